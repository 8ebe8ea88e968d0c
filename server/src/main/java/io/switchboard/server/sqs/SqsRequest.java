package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * One AWS JSON 1.0 request body, read leniently about fields it does not know (SDKs add members
 * over time) and strictly about the types of those it does: a wrong type is {@code
 * InvalidParameterValue}, a required field missing is {@code MissingParameter}.
 */
final class SqsRequest {

  private final JsonNode root;
  private final QueueAddress address;
  private final @Nullable SqsState state;

  /**
   * The {@code QueueUrl} the read-ahead resolved at this address, and its queue ({@link #known}).
   */
  private @Nullable String knownUrl;

  private @Nullable String knownQueue;

  /** The request's {@code X-Amzn-Trace-Id} header ({@link #traceHeader(String)}), if any. */
  private @Nullable String traceHeader;

  private SqsRequest(JsonNode root, QueueAddress address, @Nullable SqsState state) {
    this.root = root;
    this.address = address;
    this.state = state;
  }

  /**
   * A request already in tree form, such as a translated query-protocol request, made at {@code
   * address}, served with the endpoint's {@code state}.
   */
  static SqsRequest of(ObjectNode root, QueueAddress address, SqsState state) {
    return new SqsRequest(root, address, state);
  }

  /** A JSON-protocol body, served with the endpoint's {@code state}. */
  static SqsRequest parse(byte[] body, QueueAddress address, SqsState state) {
    return new SqsRequest(parseBody(body), address, state);
  }

  /** A request only read, not served (ahead of serving, {@link SqsAction}): it has no state. */
  static SqsRequest readAhead(JsonNode root, QueueAddress address) {
    return new SqsRequest(root, address, null);
  }

  /** A JSON-protocol body as a tree. */
  static ObjectNode parseBody(byte[] body) {
    if (body.length == 0) {
      return JsonNodeFactory.instance.objectNode();
    }
    JsonNode root;
    try {
      root = SqsJson.MAPPER.readTree(body);
    } catch (IOException e) {
      throw SqsError.sender("SerializationException", "the request body is not JSON");
    }
    if (!(root instanceof ObjectNode object)) {
      throw SqsError.sender("SerializationException", "the request body must be a JSON object");
    }
    return object;
  }

  /**
   * What the endpoint remembers between requests (purges, receive attempts), for the actions that
   * need it.
   */
  SqsState state() {
    if (state == null) {
      throw new IllegalStateException("a request read ahead is not served");
    }
    return state;
  }

  /**
   * Adds the selector extension's header ({@link SqsEndpoint#SELECTOR_HEADER}) to the request as
   * the reserved {@code MessageAttributeNames} entry the receive reads ({@link Extensions}), so the
   * two ways of asking are one: naming both is refused like two entries.
   *
   * @throws SqsError if {@code MessageAttributeNames} is there but not a list
   */
  void addSelector(String selector) {
    ObjectNode tree = (ObjectNode) root;
    JsonNode names = tree.get("MessageAttributeNames");
    if (names != null && !(names instanceof ArrayNode)) {
      throw SqsError.invalidParameter(
          "MessageAttributeNames must be a list of strings, got " + names.getNodeType());
    }
    ArrayNode list = names instanceof ArrayNode a ? a : tree.putArray("MessageAttributeNames");
    list.add(Extensions.SELECTOR_PREFIX + selector);
  }

  /**
   * Tells the request the value of its {@code X-Amzn-Trace-Id} header: as on SQS, a message sent
   * without an explicit {@code AWSTraceHeader} system attribute takes it as that attribute ({@link
   * MessageActions}). Batch entries read from this request see it too. A blank value is ignored.
   */
  void traceHeader(String value) {
    if (!value.isBlank()) {
      this.traceHeader = value;
    }
  }

  /** The request's {@code X-Amzn-Trace-Id} header, if it had a non-blank one. */
  Optional<String> traceHeader() {
    return Optional.ofNullable(traceHeader);
  }

  /** A structure nested in this request (a map value, a list entry): it shares its trace header. */
  private SqsRequest child(JsonNode node) {
    SqsRequest c = new SqsRequest(node, address, state);
    c.traceHeader = traceHeader;
    return c;
  }

  /** The region and account the request is made in: how its queue names, URLs and ARNs resolve. */
  QueueAddress address() {
    return address;
  }

  /**
   * Tells the request that its {@code QueueUrl}, if it is {@code url}, names {@code queue} at its
   * address: what the read-ahead ({@link SqsAction}) resolved, at the same {@link QueueAddress}, so
   * that {@link #queue} does not resolve it again. {@link QueueAddress#fromUrl} depends on the URL
   * and the address only, so the answer is the same.
   */
  void known(String url, String queue) {
    this.knownUrl = url;
    this.knownQueue = queue;
  }

  /** The engine queue the request's {@code QueueUrl} names. */
  String queue() {
    String url = required("QueueUrl");
    String queue = knownQueue;
    if (queue != null && url.equals(knownUrl)) {
      return queue;
    }
    return address.fromUrl(url);
  }

  /** The field's value; null when absent or JSON null (read once: no Optional per look-up). */
  private @Nullable JsonNode node(String field) {
    JsonNode n = root.get(field);
    return n == null || n.isNull() ? null : n;
  }

  /** Whether the field is present and not null. */
  boolean has(String field) {
    return node(field) != null;
  }

  Optional<String> string(String field) {
    JsonNode n = node(field);
    return n == null ? Optional.empty() : Optional.of(text(field, n));
  }

  private static String text(String field, JsonNode n) {
    if (!n.isTextual()) {
      throw SqsError.invalidParameter(field + " must be a string");
    }
    return n.asText();
  }

  String required(String field) {
    JsonNode n = node(field);
    if (n == null) {
      throw SqsError.missingParameter(field);
    }
    return text(field, n);
  }

  OptionalInt integer(String field) {
    JsonNode n = node(field);
    if (n == null) {
      return OptionalInt.empty();
    }
    if (!n.isIntegralNumber() || !n.canConvertToInt()) {
      throw SqsError.invalidParameter(field + " must be an integer, got " + n);
    }
    return OptionalInt.of(n.intValue());
  }

  /** An integer that must lie in {@code min..max}, as SQS words the error. */
  OptionalInt integer(String field, int min, int max) {
    OptionalInt v = integer(field);
    if (v.isPresent() && (v.getAsInt() < min || v.getAsInt() > max)) {
      throw SqsErrorText.outOfRange(field).error(v.getAsInt(), field, min, max);
    }
    return v;
  }

  List<String> strings(String field) {
    List<String> out = new ArrayList<>();
    JsonNode n = node(field);
    if (n == null) {
      return out;
    }
    if (!n.isArray()) {
      throw SqsError.invalidParameter(field + " must be a list of strings");
    }
    for (JsonNode e : n) {
      if (!e.isTextual()) {
        throw SqsError.invalidParameter(field + " must be a list of strings");
      }
      out.add(e.asText());
    }
    return out;
  }

  /** A map of string to string, such as queue attributes; empty when absent. */
  Map<String, String> stringMap(String field) {
    Map<String, String> out = new LinkedHashMap<>();
    for (var e : objects(field).entrySet()) {
      JsonNode v = e.getValue().root;
      if (!v.isTextual()) {
        throw SqsError.invalidParameter(field + "." + e.getKey() + " must be a string");
      }
      out.put(e.getKey(), v.asText());
    }
    return out;
  }

  /** A map of name to structure, such as message attributes; empty when absent. */
  Map<String, SqsRequest> objects(String field) {
    Map<String, SqsRequest> out = new LinkedHashMap<>();
    JsonNode n = node(field);
    if (n == null) {
      return out;
    }
    if (!n.isObject()) {
      throw SqsError.invalidParameter(field + " must be a map");
    }
    for (Map.Entry<String, JsonNode> e : n.properties()) {
      out.put(e.getKey(), child(e.getValue()));
    }
    return out;
  }

  /** A list of structures, such as batch entries; empty when absent. */
  List<SqsRequest> list(String field) {
    List<SqsRequest> out = new ArrayList<>();
    JsonNode n = node(field);
    if (n == null) {
      return out;
    }
    if (!n.isArray()) {
      throw SqsError.invalidParameter(field + " must be a list");
    }
    for (JsonNode e : n) {
      if (!e.isObject()) {
        throw SqsError.invalidParameter(field + " entries must be structures");
      }
      out.add(child(e));
    }
    return out;
  }
}
