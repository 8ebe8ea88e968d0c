package io.switchboard.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.JsonFields;
import io.switchboard.client.wire.NativeWire;
import io.switchboard.client.wire.StreamedAnswers;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.client.wire.WireFormatException;
import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueCreation;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.queue.SelectorFilter;
import io.switchboard.queue.SendResult;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * A Switchboard server seen through its native HTTP API, as a {@link QueueEngine}: code written
 * against the in-memory engine runs unchanged against a server as long as its filters are selectors
 * and its durations whole seconds (see below). Errors are {@link SwitchboardException}s, which
 * carry the engine's error code, the code as sent and the HTTP status.
 *
 * <pre>{@code
 * try (SwitchboardClient sb = SwitchboardClient.create(URI.create("http://127.0.0.1:8080"))) {
 *   sb.createQueue("tasks", QueueConfig.defaults());
 *   sb.send("tasks", NewMessage.builder("hello").priority(5).build());
 *   for (Message m : sb.receive("tasks", ReceiveRequest.builder()
 *       .waitTime(Duration.ofSeconds(20)).build())) {
 *     sb.ack("tasks", m.receipt().orElseThrow());
 *   }
 * }
 * }</pre>
 *
 * <p>What travels, and what the client refuses before sending anything (with an {@link
 * IllegalArgumentException} that says what is allowed and what it was given):
 *
 * <ul>
 *   <li>Filters travel as selector text, so a receive or browse takes only {@link SelectorFilter}s
 *       ({@code ReceiveRequest.builder().selector("...")}, {@link SelectorFilter#parse}); a Java
 *       predicate ({@code filter(m -> ...)}) has no text and is refused.
 *   <li>Durations go on the wire in whole seconds (the native API's {@code ...Seconds} fields): a
 *       duration with a fraction of a second (a queue configuration's too) is refused rather than
 *       rounded.
 * </ul>
 *
 * <p>Everything else the engine takes, the client takes: the contract suite ({@code tck}) runs
 * against a client connected to a server ({@code ClientContractTest} in the server module), with
 * the exclusions listed in the client's README.
 *
 * <p>Long polls: a receive's HTTP timeout is its wait plus {@link Builder#requestTimeout}, so a
 * wait never times out on the client first. {@link #close()} wakes the client's blocked receives,
 * which return empty, as the engine's do; calls after it fail with {@code UNAVAILABLE} (wire code
 * {@code CLIENT_CLOSED}).
 *
 * <p>Thread-safe; one instance per server is enough. {@link #close()} does not stop the server.
 */
public final class SwitchboardClient implements QueueEngine {

  private static final Duration LONGEST_QUEUE_WAIT = Duration.ofSeconds(20);

  private final URI base;
  private final HttpClient http;
  private final Duration requestTimeout;
  private final boolean ownsHttp;
  private final @Nullable Credentials credentials;
  private final @Nullable SigV4Signer signer;
  private final Set<CompletableFuture<?>> polls = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;
  private final int grpcPort;
  private final @Nullable Path grpcCa;
  private volatile io.grpc.@Nullable ManagedChannel grpc;

  /** The queue operations over gRPC ({@link Transport#GRPC}); null: over HTTP. */
  private final @Nullable GrpcQueues queues;

  private SwitchboardClient(Builder b) {
    this.grpcPort = b.grpcPort;
    this.grpcCa = b.caCertificate;
    String text = b.baseUri.toString();
    this.base = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    this.requestTimeout = b.requestTimeout;
    this.ownsHttp = b.httpClient == null;
    this.credentials = b.credentials;
    this.signer =
        b.credentials != null && b.scheme == AuthScheme.SIGV4
            ? new SigV4Signer(b.credentials, b.region)
            : null;
    if (b.httpClient != null) {
      this.http = b.httpClient;
    } else {
      HttpClient.Builder hb =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(b.connectTimeout);
      if (b.sslContext != null) {
        hb.sslContext(b.sslContext);
      }
      this.http = hb.build();
    }
    this.queues =
        b.transport == Transport.GRPC
            ? new GrpcQueues(this::channel, grpcCallOptions(), requestTimeout, () -> closed)
            : null;
  }

  private io.grpc.CallOptions grpcCallOptions() {
    io.grpc.CallOptions call = io.grpc.CallOptions.DEFAULT;
    Credentials c = credentials;
    if (c != null) {
      call = call.withCallCredentials(new BasicCallCredentials(c));
    }
    return call;
  }

  /** A client of the server at {@code baseUri}, e.g. {@code http://127.0.0.1:8080}. */
  public static SwitchboardClient create(URI baseUri) {
    return builder().baseUri(baseUri).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public URI baseUri() {
    return base;
  }

  // ---- queues ------------------------------------------------------------------------------

  /** The server answers 201 when it created the queue, 200 when it existed alike. */
  @Override
  public QueueCreation ensureQueue(String name, QueueConfig config) {
    requireWholeSeconds(config);
    GrpcQueues q = queues;
    if (q != null) {
      return q.ensureQueue(name, config);
    }
    requireWholeSeconds(config);
    ObjectNode body = WireFormat.object().put("name", name);
    body.setAll(WireFormat.config(config));
    Answer a = exchange("POST", "/v1/queues", body, requestTimeout, Map.of());
    return new QueueCreation(WireFormat.queueInfo(a.body()), a.status() == 201);
  }

  /** Replaces the whole configuration (absent dead-letter policy and max depth included). */
  @Override
  public QueueInfo updateQueue(String name, QueueConfig config) {
    requireWholeSeconds(config);
    ObjectNode body = WireFormat.config(config);
    if (config.deadLetter().isEmpty()) {
      body.putNull("deadLetter");
    }
    if (config.maxDepth().isEmpty()) {
      body.putNull("maxDepth");
    }
    if (config.keyLimit().isEmpty()) {
      body.putNull("keyLimit");
    }
    GrpcQueues q = queues;
    if (q != null) {
      return q.updateQueue(name, body, Optional.empty());
    }
    return WireFormat.queueInfo(call("PATCH", queuePath(name), body));
  }

  /**
   * Reads the configuration with its tag ({@code ETag}), applies {@code change} and sends the
   * fields it changed with {@code If-Match}: the server applies them only if the configuration is
   * still the one read, else answers 412 and this reads it again and re-applies {@code change}
   * (which must therefore have no side effects, as the engine's contract says). So concurrent
   * changes from any number of clients and servers never lose each other, as with an in-process
   * engine.
   *
   * @throws SwitchboardException {@code CONFLICT} if the configuration changed under every one of
   *     {@value #UPDATE_ATTEMPTS} attempts
   */
  @Override
  public QueueInfo updateQueue(String name, UnaryOperator<QueueConfig> change) {
    for (int attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      GrpcQueues q = queues;
      if (q != null) {
        var read = q.read(name);
        QueueInfo info = GrpcQueues.info(read);
        QueueConfig next =
            Objects.requireNonNull(change.apply(info.config()), "the changed configuration");
        requireWholeSeconds(next);
        ObjectNode body = changedFields(WireFormat.config(info.config()), WireFormat.config(next));
        if (body.isEmpty()) {
          return info;
        }
        try {
          return q.updateQueue(name, body, Optional.of(read.getTag()));
        } catch (SwitchboardException e) {
          if (!e.wireCode().equals("PRECONDITION_FAILED")) {
            throw e;
          }
        }
        continue;
      }
      Answer read = exchange("GET", queuePath(name), null, requestTimeout, Map.of());
      QueueInfo info = WireFormat.queueInfo(read.body());
      QueueConfig next =
          Objects.requireNonNull(change.apply(info.config()), "the changed configuration");
      requireWholeSeconds(next);
      ObjectNode body = changedFields(WireFormat.config(info.config()), WireFormat.config(next));
      if (body.isEmpty()) {
        return info;
      }
      try {
        return WireFormat.queueInfo(
            exchange(
                    "PATCH",
                    queuePath(name),
                    body,
                    requestTimeout,
                    Map.of("If-Match", read.etag().orElse("*")))
                .body());
      } catch (SwitchboardException e) {
        if (e.status() != 412) {
          throw e;
        }
      }
    }
    throw new SwitchboardException(
        409,
        "CONFLICT",
        "queue '"
            + name
            + "': its configuration changed under each of "
            + UPDATE_ATTEMPTS
            + " attempts to update it; try again");
  }

  /** How often {@link #updateQueue(String, UnaryOperator)} reads and tries again. */
  static final int UPDATE_ATTEMPTS = 100;

  /** The fields of {@code after} that differ from {@code before}; a removed field as null. */
  private static ObjectNode changedFields(ObjectNode before, ObjectNode after) {
    ObjectNode body = WireFormat.object();
    after
        .fields()
        .forEachRemaining(
            e -> {
              if (!e.getValue().equals(before.get(e.getKey()))) {
                body.set(e.getKey(), e.getValue());
              }
            });
    before
        .fieldNames()
        .forEachRemaining(
            n -> {
              if (!after.has(n)) {
                body.putNull(n);
              }
            });
    return body;
  }

  @Override
  public void deleteQueue(String name) {
    GrpcQueues q = queues;
    if (q != null) {
      q.deleteQueue(name);
      return;
    }
    call("DELETE", queuePath(name), null);
  }

  @Override
  public QueueInfo queue(String name) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.queue(name);
    }
    return WireFormat.queueInfo(call("GET", queuePath(name), null));
  }

  @Override
  public List<QueueInfo> listQueues(String prefix) {
    List<QueueInfo> all = new ArrayList<>();
    Optional<String> cursor = Optional.empty();
    do {
      NativeWire.Queues page = queuePage(prefix, cursor, Optional.empty());
      all.addAll(page.toQueues());
      cursor = Optional.ofNullable(page.nextCursor());
    } while (cursor.isPresent());
    return all;
  }

  /** One page: the server's {@code GET /v1/queues} with {@code cursor} set to {@code after}. */
  @Override
  public List<QueueInfo> listQueues(String prefix, String after, int limit) {
    Optional<String> cursor = after.isEmpty() ? Optional.empty() : Optional.of(after);
    return queuePage(prefix, cursor, Optional.of(limit)).toQueues();
  }

  /**
   * One page of the queues whose names start with {@code prefix} (empty: all), by name: at most
   * {@code limit} (1..1000) after {@code cursor} (a page's {@code nextCursor}; empty for the
   * first).
   */
  public QueuePage queuePage(String prefix, Optional<String> cursor, int limit) {
    NativeWire.Queues page = queuePage(prefix, cursor, Optional.of(limit));
    return new QueuePage(page.toQueues(), Optional.ofNullable(page.nextCursor()));
  }

  private NativeWire.Queues queuePage(
      String prefix, Optional<String> cursor, Optional<Integer> limit) {
    GrpcQueues overGrpc = queues;
    if (overGrpc != null) {
      QueuePage page = overGrpc.queuePage(prefix, cursor, limit);
      return NativeWire.Queues.of(page.queues(), page.nextCursor());
    }
    List<String> query = new ArrayList<>();
    if (!prefix.isEmpty()) {
      query.add("prefix=" + Paths.encode(prefix));
    }
    cursor.ifPresent(c -> query.add("cursor=" + Paths.encode(c)));
    limit.ifPresent(l -> query.add("limit=" + l));
    String q = query.isEmpty() ? "" : "?" + String.join("&", query);
    return call("GET", "/v1/queues" + q, null, NativeWire.Queues.class);
  }

  @Override
  public QueueStats stats(String queue) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.stats(queue);
    }
    return WireFormat.stats(call("GET", queuePath(queue) + "/stats", null));
  }

  @Override
  public long purge(String queue) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.purge(queue);
    }
    return call("POST", queuePath(queue) + "/purge", null, NativeWire.Purged.class).purged();
  }

  // ---- send and receive --------------------------------------------------------------------

  @Override
  public SendResult send(String queue, NewMessage message) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.send(queue, message);
    }
    var body = NativeWire.SendMessage.of(message);
    return call("POST", queuePath(queue) + "/messages", body, SendResult.class);
  }

  @Override
  public List<SendResult> sendBatch(String queue, List<NewMessage> messages) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.sendBatch(queue, messages);
    }
    var body = new Written(StreamedAnswers.sendBatch(messages));
    var answer =
        NativeWire.SendResults.read(
            exchange("POST", queuePath(queue) + "/messages/batch", body, requestTimeout, Map.of())
                .bytes());
    return Json.items(answer.results());
  }

  @Override
  public List<Message> receive(String queue, ReceiveRequest request) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.receive(
          queue,
          request,
          request.filter().map(SwitchboardClient::selectorText),
          LONGEST_QUEUE_WAIT);
    }
    var body =
        NativeWire.Receive.of(request, request.filter().map(SwitchboardClient::selectorText));
    Duration wait = request.waitTime().orElse(LONGEST_QUEUE_WAIT);
    return poll(queuePath(queue) + "/receive", body, requestTimeout.plus(wait))
        .map(answer -> NativeWire.Messages.read(answer.bytes()).toMessages())
        .orElse(List.of());
  }

  // ---- leases ------------------------------------------------------------------------------

  @Override
  public void ack(String queue, String receipt) {
    GrpcQueues q = queues;
    if (q != null) {
      q.ack(queue, receipt);
      return;
    }
    call("POST", leasePath(queue, receipt, "ack"), null);
  }

  /**
   * Acks several receipts in one request ({@code POST /v1/queues/{queue}/acks}), each on its own:
   * the answer has one result per receipt, in order, and a bad receipt does not stop the others.
   * Throws only when the request as a whole is refused: no receipts or more than the server's
   * {@code max-batch} ({@code BATCH_TOO_LARGE}), or an unknown queue.
   */
  public List<AckResult> ackBatch(String queue, List<String> receipts) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.ackBatch(queue, receipts);
    }
    var body = new Written(StreamedAnswers.ackBatch(receipts));
    var answer =
        NativeWire.AckResults.read(
            exchange("POST", queuePath(queue) + "/acks", body, requestTimeout, Map.of()).bytes());
    return Json.items(answer.results()).stream().map(NativeWire.Acked::toResult).toList();
  }

  /**
   * {@link #ackBatch} as the engine API answers it: each refusal a {@link SwitchboardException}
   * with the server's code and message (status 0: it was one entry of a 200 answer).
   */
  @Override
  public List<Optional<QueueException>> ackAll(String queue, List<String> receipts) {
    return ackBatch(queue, receipts).stream()
        .map(
            r ->
                r.acked()
                    ? Optional.<QueueException>empty()
                    : Optional.<QueueException>of(
                        new SwitchboardException(
                            0, r.code().orElseThrow(), r.message().orElse(""))))
        .toList();
  }

  @Override
  public void release(String queue, String receipt, Duration delay, boolean toBack) {
    GrpcQueues q = queues;
    if (q != null) {
      q.release(queue, receipt, delay, toBack);
      return;
    }
    call("POST", leasePath(queue, receipt, "release"), NativeWire.Release.of(delay, toBack));
  }

  @Override
  public Message extend(String queue, String receipt, Duration visibilityTimeout) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.extend(queue, receipt, visibilityTimeout);
    }
    var body = NativeWire.Extend.of(visibilityTimeout);
    return WireFormat.message(call("POST", leasePath(queue, receipt, "extend"), body));
  }

  @Override
  public void fail(String queue, String receipt) {
    GrpcQueues q = queues;
    if (q != null) {
      q.fail(queue, receipt);
      return;
    }
    call("POST", leasePath(queue, receipt, "fail"), null);
  }

  @Override
  public void deadLetter(String queue, String receipt) {
    GrpcQueues q = queues;
    if (q != null) {
      q.deadLetter(queue, receipt);
      return;
    }
    call("POST", leasePath(queue, receipt, "dead-letter"), null);
  }

  // ---- messages by id ----------------------------------------------------------------------

  @Override
  public void deadLetterById(String queue, String id) {
    GrpcQueues q = queues;
    if (q != null) {
      q.deadLetterById(queue, id);
      return;
    }
    call("POST", messagePath(queue, id) + "/dead-letter", null);
  }

  @Override
  public Message update(String queue, String id, MessageUpdate update) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.update(queue, id, update);
    }
    var body = NativeWire.UpdateMessage.of(update.priority(), update.attributes());
    return WireFormat.message(call("PATCH", messagePath(queue, id), body));
  }

  @Override
  public Message touch(String queue, String id) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.touch(queue, id);
    }
    return WireFormat.message(call("POST", messagePath(queue, id) + "/touch", null));
  }

  @Override
  public void remove(String queue, String id) {
    GrpcQueues q = queues;
    if (q != null) {
      q.remove(queue, id);
      return;
    }
    call("DELETE", messagePath(queue, id), null);
  }

  @Override
  public Message get(String queue, String id) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.get(queue, id);
    }
    return WireFormat.message(call("GET", messagePath(queue, id), null));
  }

  @Override
  public Page browse(String queue, BrowseRequest request) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.browse(queue, request, request.filter().map(SwitchboardClient::selectorText));
    }
    StringBuilder query = new StringBuilder("?limit=").append(request.limit());
    request.cursor().ifPresent(c -> query.append("&cursor=").append(Paths.encode(c)));
    request
        .filter()
        .ifPresent(f -> query.append("&selector=").append(Paths.encode(selectorText(f))));
    if (request.includeInvisible()) {
      query.append("&includeInvisible=true");
    }
    var page = call("GET", queuePath(queue) + "/messages" + query, null, NativeWire.Messages.class);
    return new Page(page.toMessages(), Optional.ofNullable(page.nextCursor()));
  }

  @Override
  public Message restore(String deadLetterQueue, String id) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.restore(deadLetterQueue, id);
    }
    return WireFormat.message(call("POST", messagePath(deadLetterQueue, id) + "/restore", null));
  }

  // ---- redrive -----------------------------------------------------------------------------

  @Override
  public RedriveTask startRedrive(String source, RedriveRequest request) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.startRedrive(source, request);
    }
    var body = NativeWire.StartRedrive.of(request);
    return WireFormat.redriveTask(call("POST", queuePath(source) + "/redrives", body));
  }

  @Override
  public List<RedriveTask> redriveTasks(String source) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.redriveTasks(source);
    }
    return call("GET", queuePath(source) + "/redrives", null, NativeWire.RedriveTasks.class)
        .toTasks();
  }

  @Override
  public RedriveTask cancelRedrive(String taskId) {
    GrpcQueues q = queues;
    if (q != null) {
      return q.cancelRedrive(taskId);
    }
    return WireFormat.redriveTask(
        call("POST", "/v1/redrives/" + Paths.encode(taskId) + "/cancel", null));
  }

  // ---- access keys ---------------------------------------------------------------------------

  /**
   * Creates an access key with {@code grants}; the answer holds its secret, which the server never
   * shows again.
   */
  public KeyWire.AccessKey createKey(@Nullable String name, List<KeyWire.Grant> grants) {
    return createKey(name, grants, null);
  }

  /**
   * Creates an access key with {@code grants} acting as the routing agent {@code agent} (required
   * with {@code routing:agent}; null for none); the answer holds its secret, which the server never
   * shows again.
   */
  public KeyWire.AccessKey createKey(
      @Nullable String name, List<KeyWire.Grant> grants, @Nullable String agent) {
    return createKey(new KeyWire.CreateKey(name, grants, agent));
  }

  /**
   * Creates the access key {@code key} describes (name, grants, agent, and the AWS account SQS
   * queue policies see it as); the answer holds its secret, which the server never shows again.
   */
  public KeyWire.AccessKey createKey(KeyWire.CreateKey key) {
    return call("POST", "/v1/keys", key, KeyWire.AccessKey.class);
  }

  /** Every access key, by id, without secrets. */
  public List<KeyWire.AccessKey> listKeys() {
    return call("GET", "/v1/keys", null, KeyWire.KeyList.class).keys();
  }

  /** Revokes an access key: requests signed with it are refused from now on. */
  public void revokeKey(String accessKeyId) {
    call("DELETE", "/v1/keys/" + Paths.encode(accessKeyId), null);
  }

  // ---- push subscriptions (docs/api.md, "Push subscriptions") --------------------------------

  private static String subscriptions(String queue) {
    return "/v1/queues/" + Paths.encode(queue) + "/subscriptions";
  }

  private static String subscriptionPath(String queue, String name) {
    return subscriptions(queue) + "/" + Paths.encode(name);
  }

  /**
   * Creates a push subscription of {@code queue}; the answer holds its signing secret, which the
   * server never shows again.
   */
  public PushWire.Subscription createSubscription(String queue, PushWire.Subscription s) {
    return call("POST", subscriptions(queue), s, PushWire.Subscription.class);
  }

  /** The queue's push subscriptions, by name, without secrets. */
  public List<PushWire.Subscription> listSubscriptions(String queue) {
    return call("GET", subscriptions(queue), null, PushWire.SubscriptionList.class).subscriptions();
  }

  /** One push subscription, without its secret. */
  public PushWire.Subscription subscription(String queue, String name) {
    return call("GET", subscriptionPath(queue, name), null, PushWire.Subscription.class);
  }

  /** Replaces a push subscription's settings (its secret stays). */
  public PushWire.Subscription updateSubscription(String queue, PushWire.Subscription s) {
    return call("PUT", subscriptionPath(queue, s.name()), s, PushWire.Subscription.class);
  }

  /** Pauses ({@code true}) or resumes a push subscription. */
  public PushWire.Subscription pauseSubscription(String queue, String name, boolean paused) {
    return call(
        "POST",
        subscriptionPath(queue, name) + (paused ? "/pause" : "/resume"),
        null,
        PushWire.Subscription.class);
  }

  /** Makes a new signing secret, which this answer holds and the server never shows again. */
  public PushWire.Subscription rotateSubscriptionSecret(String queue, String name) {
    return call(
        "POST",
        subscriptionPath(queue, name) + "/rotate-secret",
        null,
        PushWire.Subscription.class);
  }

  /** What a push subscription did since the server started running it. */
  public PushWire.Stats subscriptionStats(String queue, String name) {
    return call("GET", subscriptionPath(queue, name) + "/stats", null, PushWire.Stats.class);
  }

  /** Deletes a push subscription; its deliveries in flight finish or their leases run out. */
  public void deleteSubscription(String queue, String name) {
    call("DELETE", subscriptionPath(queue, name), null);
  }

  /** Whether the server has finished starting (and recovering) and serves requests. */
  public boolean ready() {
    try {
      HttpResponse<byte[]> response =
          http.send(
              HttpRequest.newBuilder(base.resolve("/health")).timeout(requestTimeout).GET().build(),
              HttpResponse.BodyHandlers.ofByteArray());
      return response.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Wakes this client's blocked receives (they return empty) and closes the HTTP client if this
   * client made it; never touches the server. Later calls fail with {@code UNAVAILABLE}.
   */
  @Override
  public void close() {
    closed = true;
    polls.forEach(p -> p.cancel(true));
    if (ownsHttp) {
      http.shutdownNow();
    }
    io.grpc.ManagedChannel channel = grpc;
    if (channel != null) {
      channel.shutdownNow();
    }
  }

  // ---- streaming (gRPC) --------------------------------------------------------------------

  /**
   * Opens a consumer on {@code queue} over the server's gRPC API (docs/api.md#grpc; the builder's
   * {@link Builder#grpcPort} is needed): the server pushes messages to {@code handler} as they
   * become available, never more than {@code options.credit()} leased and unsettled at once; each
   * {@link Delivery} is settled on the same stream. Leases are the queue's as for {@link #receive}:
   * a message not settled in time is delivered again. Closing the subscription releases the
   * messages it still holds.
   *
   * <p>Returns at once; a refusal at open (an unknown queue, a key without {@code queue:receive}, a
   * credit over the server's cap) completes {@link Subscription#done()} with a {@link
   * SwitchboardException} naming it.
   *
   * @throws IllegalStateException when the builder named no gRPC port
   */
  public Subscription consume(String queue, ConsumeOptions options, MessageHandler handler) {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(handler, "handler");
    if (closed) {
      throw new SwitchboardException("CLIENT_CLOSED", "the client is closed", null);
    }
    return GrpcConsumer.open(channel(), grpcCallOptions(), queue, options, handler, requestTimeout);
  }

  private synchronized io.grpc.ManagedChannel channel() {
    io.grpc.ManagedChannel channel = grpc;
    if (channel != null) {
      return channel;
    }
    if (grpcPort < 0) {
      throw new IllegalStateException(
          "consume streams over the server's gRPC API: name its port with"
              + " SwitchboardClient.builder().grpcPort(...) (the server's grpc-port)");
    }
    io.grpc.ChannelCredentials transport;
    if ("https".equalsIgnoreCase(base.getScheme())) {
      try {
        var tls = io.grpc.TlsChannelCredentials.newBuilder();
        Path ca = grpcCa;
        if (ca != null) {
          tls.trustManager(ca.toFile());
        }
        transport = tls.build();
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read the trusted certificates: " + e, e);
      }
    } else {
      transport = io.grpc.InsecureChannelCredentials.create();
    }
    channel =
        io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forAddress(
                base.getHost(), grpcPort, transport)
            .build();
    grpc = channel;
    return channel;
  }

  // ---- transport ---------------------------------------------------------------------------

  private static String selectorText(MessageFilter filter) {
    if (filter instanceof SelectorFilter selector) {
      return selector.selector().text();
    }
    throw new IllegalArgumentException(
        "only selector filters travel over HTTP: use ReceiveRequest.builder().selector(\"...\")"
            + " or SelectorFilter.parse(\"...\"); got "
            + filter.getClass().getName()
            + ", a Java predicate, which has no selector text");
  }

  /** A configuration the wire cannot carry exactly is refused, not rounded. */
  private static void requireWholeSeconds(QueueConfig config) {
    WireFormat.wholeSeconds("visibilityTimeout", config.visibilityTimeout());
    WireFormat.wholeSeconds("delay", config.delay());
    WireFormat.wholeSeconds("retention", config.retention());
    WireFormat.wholeSeconds("receiveWait", config.receiveWait());
    WireFormat.wholeSeconds("historyRetention", config.historyRetention());
  }

  private static String queuePath(String queue) {
    return "/v1/queues/" + Paths.encode(queue);
  }

  private static String messagePath(String queue, String id) {
    return queuePath(queue) + "/messages/" + Paths.encode(id);
  }

  private static String leasePath(String queue, String receipt, String action) {
    if (receipt.isEmpty()) {
      // An empty path segment routes nowhere; no queue ever issues an empty receipt.
      throw new QueueException(
          ErrorCode.RECEIPT_INVALID, "receipt '' was not issued by queue '" + queue + "'");
    }
    return queuePath(queue) + "/leases/" + Paths.encode(receipt) + "/" + action;
  }

  /** The routing API of the server: agents, contacts, reservations, statistics. */
  public RoutingClient routing() {
    return new RoutingClient(this);
  }

  /** The workspaces of the server: create, configure, delete; activities and task queues. */
  public WorkspacesClient workspaces() {
    return new WorkspacesClient(this);
  }

  /** The routing API within workspace {@code name} ({@code /v1/workspaces/{name}/...}). */
  public RoutingClient workspace(String name) {
    return new RoutingClient(this, "/v1/workspaces/" + Paths.encode(name));
  }

  /** A request body already written ({@link StreamedAnswers}): sent as it is. */
  private record Written(byte[] bytes) {}

  /** Sends {@code body} (a tree or a {@link NativeWire} record; null for none), reads a tree. */
  JsonFields call(String method, String path, @Nullable Object body) {
    return exchange(method, path, body, requestTimeout, Map.of()).body();
  }

  /** Sends {@code body}, binds the answer to {@code answer} leniently. */
  <T> T call(String method, String path, @Nullable Object body, Class<T> answer) {
    return exchange(method, path, body, requestTimeout, Map.of()).as(answer);
  }

  /**
   * A successful answer: its status, its {@code ETag} if any, and its body's bytes, read as a tree
   * or bound straight to a record, once.
   */
  private record Answer(int status, HttpHeaders headers, byte[] bytes) {
    /** Looked up only by the one call that wants it, not on every answer. */
    Optional<String> etag() {
      return headers.firstValue("ETag");
    }

    JsonFields body() {
      return JsonFields.lenient(WireFormat.parse(bytes));
    }

    <T> T as(Class<T> type) {
      return Json.lenient(bytes, type);
    }
  }

  private Answer exchange(
      String method,
      String path,
      @Nullable Object body,
      Duration timeout,
      Map<String, String> headers) {
    HttpRequest.Builder builder = request(method, path, body, timeout);
    headers.forEach(builder::header);
    HttpRequest request = builder.build();
    try {
      return answer(http.send(request, HttpResponse.BodyHandlers.ofByteArray()));
    } catch (IOException e) {
      throw failure(method, path, timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SwitchboardException("INTERRUPTED", method + " " + path + " interrupted", e);
    }
  }

  /**
   * A long poll: like {@link #call} but cancelled by {@link #close()}, when it answers empty (as an
   * engine's blocked receive does when the engine closes).
   */
  private Optional<Answer> poll(String path, @Nullable Object body, Duration timeout) {
    CompletableFuture<HttpResponse<byte[]>> pending =
        http.sendAsync(
            request("POST", path, body, timeout).build(), HttpResponse.BodyHandlers.ofByteArray());
    polls.add(pending);
    try {
      if (closed) {
        pending.cancel(true);
      }
      return Optional.of(answer(pending.get()));
    } catch (CancellationException e) {
      return Optional.empty();
    } catch (ExecutionException e) {
      if (closed) {
        return Optional.empty();
      }
      throw failure("POST", path, timeout, Objects.requireNonNullElse(e.getCause(), e));
    } catch (InterruptedException e) {
      pending.cancel(true);
      Thread.currentThread().interrupt();
      throw new SwitchboardException("INTERRUPTED", "POST " + path + " interrupted", e);
    } finally {
      polls.remove(pending);
    }
  }

  private HttpRequest.Builder request(
      String method, String path, @Nullable Object body, Duration timeout) {
    if (closed) {
      throw new SwitchboardException(
          "CLIENT_CLOSED", method + " " + path + ": this client is closed", null);
    }
    byte[] bytes = body == null ? null : body instanceof Written w ? w.bytes() : Json.bytes(body);
    HttpRequest.BodyPublisher publisher =
        bytes == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(bytes);
    URI uri = uri(path);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .header("Accept", "application/json")
            .method(method, publisher);
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    if (signer != null) {
      signer.sign(method, uri, bytes, Instant.now()).forEach(request::header);
    } else if (credentials != null) {
      request.header("Authorization", credentials.basicAuthorization());
    }
    return request;
  }

  /**
   * The URI of a path this client requests, parsed once ({@code URI.create} was a tenth of the
   * client's CPU per request): a bounded cache, started afresh when it holds {@value #URI_CACHE}
   * paths (receipts in lease paths make them many).
   */
  private URI uri(String path) {
    URI uri = uris.get(path);
    if (uri == null) {
      uri = URI.create(base + path);
      if (uris.size() >= URI_CACHE) {
        uris.clear();
      }
      uris.put(path, uri);
    }
    return uri;
  }

  private static final int URI_CACHE = 1024;

  private final ConcurrentHashMap<String, URI> uris = new ConcurrentHashMap<>();

  private SwitchboardException failure(
      String method, String path, Duration timeout, Throwable cause) {
    if (closed) {
      return new SwitchboardException(
          "CLIENT_CLOSED", method + " " + path + ": this client is closed", cause);
    }
    if (cause instanceof HttpTimeoutException) {
      return new SwitchboardException(
          "TIMEOUT",
          method + " " + path + ": no answer within " + timeout.toMillis() + " ms",
          cause);
    }
    return new SwitchboardException(
        "UNREACHABLE", "cannot reach the server at " + base + ": " + describe(cause), cause);
  }

  private static Answer answer(HttpResponse<byte[]> response) {
    int status = response.statusCode();
    byte[] bytes = response.body();
    if (status >= 200 && status < 300) {
      return new Answer(status, response.headers(), bytes);
    }
    String code = "HTTP_" + status;
    String message = new String(bytes, StandardCharsets.UTF_8);
    try {
      JsonFields error = JsonFields.lenient(WireFormat.parse(bytes));
      code = error.string("code").orElse(code);
      message = error.string("message").orElse(message);
    } catch (WireFormatException notJson) {
      // Not our error shape (a proxy in between, say): keep the status and the raw text.
    }
    throw new SwitchboardException(status, code, message);
  }

  private static String describe(Throwable e) {
    return Optional.ofNullable(e.getMessage()).orElse(e.getClass().getSimpleName());
  }

  /** Configures a {@link SwitchboardClient}. */
  public static final class Builder {
    private URI baseUri = URI.create("http://127.0.0.1:8080");
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration requestTimeout = Duration.ofSeconds(30);
    private @Nullable HttpClient httpClient;
    private @Nullable Credentials credentials;
    private AuthScheme scheme = AuthScheme.SIGV4;
    private String region = SigV4Signer.DEFAULT_REGION;
    private @Nullable SSLContext sslContext;
    private int grpcPort = -1;
    private @Nullable Path caCertificate;
    private Transport transport = Transport.HTTP;

    private Builder() {}

    /**
     * The port of the server's gRPC API ({@code grpc-port}), on the base URI's host, for {@link
     * SwitchboardClient#consume}: TLS when the base URI is {@code https}, trusting {@link
     * #trustedCertificates} when given, else the JDK's trust store.
     */
    public Builder grpcPort(int grpcPort) {
      if (grpcPort < 1 || grpcPort > 65535) {
        throw new IllegalArgumentException("grpcPort must be 1..65535, got " + grpcPort);
      }
      this.grpcPort = grpcPort;
      return this;
    }

    /**
     * How the queue operations travel: {@link Transport#HTTP} (the default) or {@link
     * Transport#GRPC} (which needs {@link #grpcPort}, and {@link AuthScheme#BASIC} credentials or
     * none: the gRPC API takes an access key as Basic credentials in its metadata).
     */
    public Builder transport(Transport transport) {
      this.transport = Objects.requireNonNull(transport, "transport");
      return this;
    }

    /**
     * Authenticates every request with {@code credentials} (SigV4 unless {@link #authScheme} says
     * otherwise). Without, requests carry no credentials (a keyless server on loopback).
     */
    public Builder credentials(Credentials credentials) {
      this.credentials = Objects.requireNonNull(credentials, "credentials");
      return this;
    }

    /** How {@link #credentials} are presented; default {@link AuthScheme#SIGV4}. */
    public Builder authScheme(AuthScheme scheme) {
      this.scheme = Objects.requireNonNull(scheme, "scheme");
      return this;
    }

    /** The region in the SigV4 credential scope; default {@code us-east-1} (any is accepted). */
    public Builder region(String region) {
      this.region = Objects.requireNonNull(region, "region");
      return this;
    }

    /**
     * The TLS settings for {@code https} servers, e.g. {@link TlsTrust#trusting} to trust a private
     * CA; default the JVM's (its trusted CAs). Not with {@link #httpClient}, which has its own.
     */
    public Builder sslContext(SSLContext sslContext) {
      this.sslContext = Objects.requireNonNull(sslContext, "sslContext");
      return this;
    }

    /** Trusts the CA certificates in the PEM file {@code caCertificate} (see {@link TlsTrust}). */
    public Builder trustedCertificates(Path caCertificate) {
      this.caCertificate = caCertificate;
      return sslContext(TlsTrust.trusting(caCertificate));
    }

    /** The server, e.g. {@code http://127.0.0.1:8080}; default that. */
    public Builder baseUri(URI baseUri) {
      this.baseUri = Objects.requireNonNull(baseUri, "baseUri");
      return this;
    }

    /** Default 5 s. Ignored when an {@link #httpClient} is given. */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
      return this;
    }

    /** Per request, default 30 s; a receive gets its wait on top. */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
      return this;
    }

    /** Shares an HTTP client (its connection pool) instead of making one. */
    public Builder httpClient(HttpClient httpClient) {
      this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
      return this;
    }

    public SwitchboardClient build() {
      if (transport == Transport.GRPC && grpcPort < 0) {
        throw new IllegalArgumentException(
            "Transport.GRPC needs the server's gRPC port: builder().grpcPort(...)");
      }
      if (httpClient != null && sslContext != null) {
        throw new IllegalArgumentException(
            "give the TLS settings to the HttpClient passed to httpClient(...), not sslContext(...)");
      }
      if (credentials != null && scheme == AuthScheme.SIGV4) {
        new SigV4Signer(credentials, region); // checks the region now rather than per request
      }
      return new SwitchboardClient(this);
    }
  }
}
