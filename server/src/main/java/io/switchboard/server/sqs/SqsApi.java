package io.switchboard.server.sqs;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Amazon SQS over the AWS JSON 1.0 protocol ({@code docs/sqs.md}): {@code POST /} with {@code
 * X-Amz-Target: AmazonSQS.<Action>} and a JSON body. Free of HTTP-framework types: {@link
 * SqsEndpoint} hands over the target header, the body and the request's {@link QueueAddress} (its
 * region and account, and the base URL that queue URLs are made of), and writes the {@link Answer}
 * back. Every failure becomes an SQS error shape here, never the native one, because SDKs parse
 * nothing else.
 *
 * <p>SigV4 is verified, when access keys are configured, before a request gets here ({@link
 * SigV4Verifier}).
 */
public final class SqsApi {

  private static final Logger LOG = LoggerFactory.getLogger(SqsApi.class);
  private static final String TARGET_PREFIX = "AmazonSQS.";
  private static final String CONTENT_TYPE = "application/x-amz-json-1.0";

  /** What to send back. */
  public record Answer(int status, Map<String, String> headers, byte[] body) {}

  private SqsApi() {}

  /** The action an {@code X-Amz-Target} names, for metrics; empty if it names none. */
  public static Optional<String> action(Optional<String> target) {
    return target
        .filter(t -> t.startsWith(TARGET_PREFIX))
        .map(t -> t.substring(TARGET_PREFIX.length()));
  }

  /** Every action this endpoint serves ({@link SqsOperation}), by name. */
  static java.util.Set<String> actions() {
    return java.util.Arrays.stream(SqsOperation.values())
        .map(SqsOperation::action)
        .collect(java.util.stream.Collectors.toUnmodifiableSet());
  }

  /** True if {@code name} is an action this endpoint serves. */
  static boolean serves(String name) {
    return SqsOperation.named(name).isPresent();
  }

  /**
   * Serves one request.
   *
   * @param target the {@code X-Amz-Target} header
   * @param body the body, parsed here when the read-ahead did not
   * @param selector the selector extension's header ({@link SqsEndpoint#SELECTOR_HEADER}), which a
   *     {@code ReceiveMessage} adds to the parsed request ({@link SqsRequest#addSelector})
   * @param traceHeader the {@code X-Amzn-Trace-Id} header ({@link SqsRequest#traceHeader(String)})
   * @param address the request's region and account
   * @param read what the read-ahead found ({@link SqsAction.Read}): the body as a tree, if it was
   *     parsed, and the queue its {@code QueueUrl} resolved to at {@code address}
   * @param state the endpoint's state, for the actions that remember something
   * @param requestId the request's id, for the log line of a failure ({@link SqsEndpoint} puts it
   *     on the answer)
   */
  static Answer handle(
      QueueEngine engine,
      Optional<String> target,
      byte[] body,
      Optional<String> selector,
      Optional<String> traceHeader,
      QueueAddress address,
      SqsAction.Read read,
      SqsState state,
      String requestId) {
    try {
      String name =
          action(target)
              .orElseThrow(
                  () ->
                      SqsError.sender(
                          "InvalidAction",
                          "X-Amz-Target must be AmazonSQS.<Action>, got "
                              + target.map(t -> "'" + t + "'").orElse("none")));
      // the body as the server read it ahead (SqsAction), else parsed here
      ObjectNode parsed = read.tree;
      SqsRequest request =
          parsed != null
              ? SqsRequest.of(parsed, address, state)
              : SqsRequest.parse(body, address, state);
      String url = read.url;
      String queue = read.queue;
      if (url != null && queue != null && read.address == address) {
        request.known(url, queue); // resolved by the read-ahead at this very address
      }
      if (selector.isPresent() && SqsOperation.has(name, SqsOperation.Flag.LONG_POLL)) {
        request.addSelector(selector.get());
      }
      traceHeader.ifPresent(request::traceHeader);
      return ok(run(engine, name, request), requestId);
    } catch (SqsError e) {
      return error(e);
    } catch (QueueException e) {
      return error(SqsError.of(e));
    } catch (RuntimeException e) {
      LOG.atError()
          .addKeyValue("target", target.orElse(""))
          .addKeyValue("requestId", requestId)
          .setCause(e)
          .log("sqs request failed, request id " + requestId);
      return error(SqsError.internal(internalMessage(requestId)));
    }
  }

  /**
   * What a client is told of an internal error: the request id to report (the log line has the
   * same), never the exception's text.
   */
  static String internalMessage(String requestId) {
    return "internal error; request id " + requestId;
  }

  /**
   * Runs one action on a parsed request; the answer is in the JSON protocol's shape, which the
   * query protocol ({@link SqsEndpoint}) renders as XML.
   *
   * @throws SqsError for an unknown action or anything the action refuses
   */
  static ObjectNode run(QueueEngine engine, String name, SqsRequest request) {
    SqsOperation operation =
        SqsOperation.named(name).orElseThrow(() -> SqsErrorText.INVALID_ACTION.error(name));
    return withoutEmptyCollections(operation.handler().run(engine, request));
  }

  /**
   * Leaves empty lists and maps out of an answer, at every depth, as SQS does: no {@code
   * "Messages": []} on an empty receive, no {@code "QueueUrls": []}, so that a caller's {@code
   * 'Messages' not in response} holds ({@code docs/sqs.md}, "Answer shapes"). SDKs read an absent
   * list as an empty one. A batch answer keeps its {@code Successful} and {@code Failed} lists even
   * when empty: botocore's model marks both required, and {@code resp["Successful"]} is how a boto3
   * caller reads them.
   */
  static ObjectNode withoutEmptyCollections(ObjectNode answer) {
    return withoutEmptyCollections(answer, true);
  }

  private static ObjectNode withoutEmptyCollections(ObjectNode answer, boolean top) {
    var fields = answer.properties().iterator();
    while (fields.hasNext()) {
      var field = fields.next();
      JsonNode value = field.getValue();
      if (value instanceof ObjectNode object) {
        withoutEmptyCollections(object, false);
      } else if (value instanceof ArrayNode array) {
        array.forEach(
            item -> {
              if (item instanceof ObjectNode object) {
                withoutEmptyCollections(object, false);
              }
            });
      }
      if (value.isContainerNode()
          && value.isEmpty()
          && !(top && value.isArray() && BATCH_LISTS.contains(field.getKey()))) {
        fields.remove();
      }
    }
    return answer;
  }

  /** The lists every batch answer carries, empty or not. */
  private static final Set<String> BATCH_LISTS = Set.of("Successful", "Failed");

  /** A success, with its request id already (no second header map made for it). */
  private static Answer ok(ObjectNode body, String requestId) {
    return new Answer(
        200,
        Map.of("Content-Type", CONTENT_TYPE, SqsEndpoint.REQUEST_ID_HEADER, requestId),
        bytes(body));
  }

  static Answer error(SqsError e) {
    ObjectNode body =
        JsonNodeFactory.instance
            .objectNode()
            .put("__type", "com.amazonaws.sqs#" + e.jsonType())
            .put("message", e.getMessage());
    return new Answer(
        e.status(),
        Map.of(
            "Content-Type",
            CONTENT_TYPE,
            "x-amzn-query-error",
            e.queryCode() + ";" + (e.senderFault() ? "Sender" : "Receiver")),
        bytes(body));
  }

  /**
   * An answer tree's bytes: exactly what {@code SqsJson.MAPPER.writeValueAsBytes(node)} writes (the
   * bytes of {@code toString()}, without the String; {@code SqsReadOnceTest}), written by walking
   * the tree with one generator rather than through the mapper's serializer provider, which cost a
   * sixth of a batch request's SQS handling (docs/bench-history/sqs.md). Numbers, booleans and
   * nulls, rare in answers, are written by the mapper.
   */
  static byte[] bytes(ObjectNode node) {
    ByteArrayBuilder out = new ByteArrayBuilder(256);
    try (JsonGenerator g = SqsJson.MAPPER.getFactory().createGenerator(out, JsonEncoding.UTF8)) {
      write(g, node);
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialize JSON", e);
    }
    return out.toByteArray();
  }

  private static void write(JsonGenerator g, JsonNode node) throws IOException {
    if (node instanceof ObjectNode object) {
      g.writeStartObject();
      for (Map.Entry<String, JsonNode> field : object.properties()) {
        g.writeFieldName(field.getKey());
        write(g, field.getValue());
      }
      g.writeEndObject();
    } else if (node instanceof ArrayNode array) {
      g.writeStartArray();
      for (JsonNode item : array) {
        write(g, item);
      }
      g.writeEndArray();
    } else if (node instanceof TextNode text) {
      g.writeString(text.textValue());
    } else {
      SqsJson.MAPPER.writeTree(g, node);
    }
  }

  /** The engine queue a request's {@code QueueUrl} names. */
  static String queue(SqsRequest r) {
    return r.queue();
  }

  // ---- queue actions -----------------------------------------------------------------------

  static ObjectNode createQueue(QueueEngine engine, SqsRequest r) {
    String name = r.address().forCreate(r.required("QueueName"));
    Map<String, String> attributes = r.stringMap("Attributes");
    QueueAttributes.checkName(name, attributes);
    Map<String, String> tags = QueueTags.check(r.stringMap("tags"));
    QueueConfig config =
        QueueAttributes.apply(
            engine,
            r.address(),
            name,
            name.endsWith(".fifo"),
            attributes,
            QueueConfig.defaults(),
            true,
            r.state().keys());
    config =
        config.toBuilder()
            .metadata(QueueTags.put(name, new HashMap<>(config.metadata()), tags))
            .build();
    QueueInfo info;
    try {
      info = engine.createQueue(name, config);
    } catch (QueueException e) {
      if (e.code() != ErrorCode.QUEUE_ALREADY_EXISTS) {
        throw e;
      }
      // As SQS: the queue's URL unless an attribute named has another value than the queue's
      // (attributes not named, tags and modification times do not count); the error names the
      // first such attribute.
      info = engine.queue(name);
      Optional<String> different =
          QueueAttributes.firstDifferent(
              r.address(), info.grouped(), info.config(), config, attributes.keySet());
      if (different.isPresent()) {
        throw SqsError.sender(
            "QueueNameExists",
            "A queue already exists with the same name and a different value for attribute "
                + different.get());
      }
    }
    return SqsAnswers.tree(new SqsAnswers.QueueUrl(r.address().url(info.name())));
  }

  static ObjectNode getQueueUrl(QueueEngine engine, SqsRequest r) {
    String name = r.required("QueueName");
    QueueAddress address = r.address();
    Optional<String> owner = r.string("QueueOwnerAWSAccountId");
    if (owner.isPresent() && !owner.get().equals(address.accountId())) {
      throw SqsErrorText.QUEUE_DOES_NOT_EXIST.error();
    }
    try {
      String url = address.url(engine.queue(address.lookup(name)).name());
      return SqsAnswers.tree(new SqsAnswers.QueueUrl(url));
    } catch (QueueException e) {
      if (e.code() == ErrorCode.QUEUE_NOT_FOUND) {
        throw SqsErrorText.QUEUE_DOES_NOT_EXIST.error();
      }
      throw e;
    }
  }

  /**
   * Pages by name: the token is the last name of the previous page. One more queue than the page
   * holds is read to tell whether a next page exists, and nothing else.
   */
  static ObjectNode listQueues(QueueEngine engine, SqsRequest r) {
    String prefix = r.string("QueueNamePrefix").orElse("");
    var max = r.integer("MaxResults", 1, 1000);
    String after = r.string("NextToken").map(SqsApi::decodeToken).orElse("");
    int limit = max.orElse(1000);
    SortedMap<String, String> queues = r.address().page(engine, prefix, after, limit + 1);
    List<String> names = new ArrayList<>(queues.keySet());
    List<String> page = names.subList(0, Math.min(limit, names.size()));
    String next =
        max.isPresent() && names.size() > page.size()
            ? encodeToken(page.get(page.size() - 1))
            : null;
    List<String> urls =
        page.stream()
            .map(n -> r.address().url(Objects.requireNonNull(queues.get(n), "a name of queues")))
            .toList();
    return SqsAnswers.tree(new SqsAnswers.QueueUrls(urls, next));
  }

  static String encodeToken(String lastName) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(lastName.getBytes(StandardCharsets.UTF_8));
  }

  static String decodeToken(String token) {
    try {
      return new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw SqsError.invalidParameter("Invalid NextToken value.");
    }
  }

  static ObjectNode deleteQueue(QueueEngine engine, SqsRequest r) {
    engine.deleteQueue(queue(r));
    return object();
  }

  static ObjectNode purgeQueue(QueueEngine engine, SqsRequest r) {
    String name = queue(r);
    r.state().purgeAllowed(engine.queue(name));
    engine.purge(name);
    return object();
  }

  static ObjectNode getQueueAttributes(QueueEngine engine, SqsRequest r) {
    String name = queue(r);
    List<String> names = r.strings("AttributeNames");
    ObjectNode o = object();
    if (names.isEmpty()) {
      engine.queue(name); // as SQS: a queue that does not exist is QueueDoesNotExist even so
      return o;
    }
    Map<String, String> attrs =
        QueueAttributes.read(r.address(), engine.queue(name), engine.stats(name), names);
    ObjectNode a = o.putObject("Attributes");
    attrs.forEach(a::put);
    return o;
  }

  static ObjectNode setQueueAttributes(QueueEngine engine, SqsRequest r) {
    String name = queue(r);
    Map<String, String> attributes = r.stringMap("Attributes");
    SqsState state = r.state();
    boolean fifo = engine.queue(name).grouped();
    engine.updateQueue( // the request's engine: a new dead-letter target is checked (MoveRights)
        name,
        current -> {
          QueueConfig c =
              QueueAttributes.apply(
                  engine, r.address(), name, fifo, attributes, current, false, state.keys());
          if (c.equals(current)) {
            return c;
          }
          Map<String, String> m = new HashMap<>(c.metadata());
          m.put(QueueAttributes.LAST_MODIFIED, Long.toString(state.now() / 1000));
          return c.toBuilder().metadata(m).build();
        });
    return object();
  }

  private static ObjectNode object() {
    return SqsJson.MAPPER.createObjectNode();
  }
}
