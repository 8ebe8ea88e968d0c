package io.switchboard.client.wire;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.AckResult;
import io.switchboard.client.wire.Json.Required;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.DeadLetterPolicy;
import io.switchboard.queue.DedupScope;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.queue.SendResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The native queue API's request and response bodies as records, bound by Jackson ({@link Json}):
 * the client writes a request from one and the server reads it strictly into the same one, so the
 * two ends share one definition. {@code null} is an absent field. A queue configuration's PATCH
 * (and a queue's create) stays a tree ({@link WireFormat#config(JsonFields, QueueConfig)}), since
 * there {@code null} (clear) and absent (keep) differ.
 *
 * <p>Public for the server; not part of the client API.
 */
public final class NativeWire {

  private NativeWire() {}

  // ---- requests ----------------------------------------------------------------------------

  /** {@code POST /v1/queues/{queue}/messages}, and each item of a batch. */
  public record SendMessage(
      @Required String body,
      @Nullable JsonNode attributes,
      @Nullable Integer priority,
      @Nullable String groupId,
      @Nullable String deduplicationId,
      @Nullable Long delaySeconds,
      @Nullable Long timeToLiveSeconds) {

    public static SendMessage of(NewMessage m) {
      return new SendMessage(
          m.body(),
          m.attributes().isEmpty() ? null : WireFormat.attributes(m.attributes()),
          m.priority() == 0 ? null : m.priority(),
          m.groupId().orElse(null),
          m.deduplicationId().orElse(null),
          m.delay().map(d -> WireFormat.wholeSeconds("delay", d)).orElse(null),
          m.timeToLive().map(t -> WireFormat.wholeSeconds("timeToLive", t)).orElse(null));
    }

    public NewMessage toNewMessage() {
      NewMessage.Builder b = NewMessage.builder(body);
      Json.present(attributes).ifPresent(a -> b.attributes(WireFormat.attributes(a)));
      Optional.ofNullable(priority).ifPresent(b::priority);
      Optional.ofNullable(groupId).ifPresent(b::groupId);
      Optional.ofNullable(deduplicationId).ifPresent(b::deduplicationId);
      Json.seconds("delaySeconds", delaySeconds, QueueConfig.MAX_DELAY).ifPresent(b::delay);
      Json.seconds("timeToLiveSeconds", timeToLiveSeconds).ifPresent(b::timeToLive);
      return b.build();
    }
  }

  /** {@code POST /v1/queues/{queue}/messages/batch}. */
  public record SendBatch(@Nullable List<SendMessage> messages) {

    /**
     * A request body as {@link Json#strict(byte[], String, Class)} binds it ({@code where} names it
     * in errors), read in one pass when it is the plain shape ({@link OnePassReader}).
     */
    public static SendBatch read(byte[] body, String where) {
      SendBatch fast = OnePassReader.sendBatch(body);
      return fast != null ? fast : Json.strict(body, where, SendBatch.class);
    }
  }

  /**
   * {@code POST /v1/queues/{queue}/receive}; the selector is text, checked by the server before it
   * parses it.
   */
  public record Receive(
      @Nullable Integer maxMessages,
      @Nullable Long visibilityTimeoutSeconds,
      @Nullable Long waitTimeSeconds,
      @Nullable String selector) {

    public static Receive of(ReceiveRequest r, Optional<String> selector) {
      return new Receive(
          r.maxMessages(),
          r.visibilityTimeout()
              .map(v -> WireFormat.wholeSeconds("visibilityTimeout", v))
              .orElse(null),
          r.waitTime().map(w -> WireFormat.wholeSeconds("waitTime", w)).orElse(null),
          selector.orElse(null));
    }

    /** As {@link SendBatch#read}. */
    public static Receive read(byte[] body, String where) {
      Receive fast = OnePassReader.receive(body);
      return fast != null ? fast : Json.strict(body, where, Receive.class);
    }

    /** The request, less its selector. */
    public ReceiveRequest.Builder toRequest() {
      ReceiveRequest.Builder b = ReceiveRequest.builder();
      Optional.ofNullable(maxMessages).ifPresent(b::maxMessages);
      Json.seconds("visibilityTimeoutSeconds", visibilityTimeoutSeconds)
          .ifPresent(b::visibilityTimeout);
      Json.seconds("waitTimeSeconds", waitTimeSeconds).ifPresent(b::waitTime);
      return b;
    }
  }

  /** {@code POST .../leases/{receipt}/release}. */
  public record Release(@Nullable Long delaySeconds, @Nullable Boolean toBack) {

    public static Release of(Duration delay, boolean toBack) {
      return new Release(WireFormat.wholeSeconds("delay", delay), toBack);
    }

    public Duration delay() {
      return Json.seconds("delaySeconds", delaySeconds, QueueConfig.MAX_DELAY)
          .orElse(Duration.ZERO);
    }

    public boolean back() {
      return Boolean.TRUE.equals(toBack);
    }
  }

  /** {@code POST .../leases/{receipt}/extend}. */
  public record Extend(@Required Long visibilityTimeoutSeconds) {

    public static Extend of(Duration visibilityTimeout) {
      return new Extend(WireFormat.wholeSeconds("visibilityTimeout", visibilityTimeout));
    }

    public Duration visibilityTimeout() {
      return Json.seconds("visibilityTimeoutSeconds", visibilityTimeoutSeconds).orElseThrow();
    }
  }

  /** {@code POST /v1/queues/{queue}/acks}. */
  public record AckBatch(@Nullable List<String> receipts) {

    /** As {@link SendBatch#read}. */
    public static AckBatch read(byte[] body, String where) {
      AckBatch fast = OnePassReader.ackBatch(body);
      return fast != null ? fast : Json.strict(body, where, AckBatch.class);
    }
  }

  /** {@code PATCH /v1/queues/{queue}/messages/{id}}: either or both. */
  public record UpdateMessage(@Nullable Integer priority, @Nullable JsonNode attributes) {

    public static UpdateMessage of(
        Optional<Integer> priority, Optional<Map<String, AttributeValue>> a) {
      return new UpdateMessage(priority.orElse(null), a.map(WireFormat::attributes).orElse(null));
    }

    public Optional<Map<String, AttributeValue>> attributeValues() {
      return Json.present(attributes).map(WireFormat::attributes);
    }
  }

  /** {@code POST /v1/queues/{queue}/redrives}: to the messages' sources unless a destination. */
  public record StartRedrive(@Nullable String destination, @Nullable Integer maxPerSecond) {

    public static StartRedrive of(RedriveRequest r) {
      return new StartRedrive(
          r.destination().orElse(null),
          r.maxPerSecond().isPresent() ? r.maxPerSecond().getAsInt() : null);
    }

    public RedriveRequest toRequest() {
      RedriveRequest r =
          destination == null ? RedriveRequest.toSources() : RedriveRequest.to(destination);
      return maxPerSecond == null ? r : r.maxPerSecond(maxPerSecond);
    }
  }

  // ---- answers -----------------------------------------------------------------------------

  /** A batch send's answer: a {@link SendResult} each, which binds as it is. */
  public record SendResults(@Nullable List<SendResult> results) {

    /**
     * As {@link Json#lenient(byte[], Class)} binds it, in one pass if plain ({@link
     * Messages#read}).
     */
    public static SendResults read(byte[] body) {
      SendResults fast = OnePassReader.sendResults(body);
      return fast != null ? fast : Json.lenient(body, SendResults.class);
    }
  }

  /**
   * A queue's statistics: {@link QueueStats} with its depth, and its oldest age in milliseconds;
   * the counters bind as they are.
   */
  public record Stats(
      long available,
      long delayed,
      long inFlight,
      long depth,
      @Nullable Long oldestAgeMillis,
      @Nullable Map<Integer, Long> byPriority,
      int waitingReceivers,
      QueueStats.@Nullable Counters counters) {

    public static Stats of(QueueStats s) {
      return new Stats(
          s.available(),
          s.delayed(),
          s.inFlight(),
          s.depth(),
          s.oldestAge().map(Duration::toMillis).orElse(null),
          s.byPriority(),
          s.waitingReceivers(),
          s.counters());
    }

    public QueueStats toStats() {
      return new QueueStats(
          available,
          delayed,
          inFlight,
          Optional.ofNullable(oldestAgeMillis).map(Duration::ofMillis),
          byPriority == null ? Map.of() : byPriority,
          waitingReceivers,
          counters == null ? new QueueStats.Counters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) : counters);
    }
  }

  /** One receipt of a batch ack: {@code acked}, or not with the code and message. */
  public record Acked(
      @Nullable String receipt, boolean acked, @Nullable String code, @Nullable String message) {

    public static Acked of(AckResult r) {
      return new Acked(r.receipt(), r.acked(), r.code().orElse(null), r.message().orElse(null));
    }

    public AckResult toResult() {
      String id = Objects.requireNonNull(receipt, "receipt"); // every answer names it
      return acked
          ? AckResult.acked(id)
          : AckResult.failed(id, code == null ? "UNKNOWN" : code, message == null ? "" : message);
    }
  }

  public record AckResults(@Nullable List<Acked> results) {

    /**
     * As {@link Json#lenient(byte[], Class)} binds it, in one pass if plain ({@link
     * Messages#read}).
     */
    public static AckResults read(byte[] body) {
      AckResults fast = OnePassReader.ackResults(body);
      return fast != null ? fast : Json.lenient(body, AckResults.class);
    }
  }

  /**
   * A receive's or a browse's messages; a browse's next cursor. A message is the core record as it
   * is, bound by {@link MessageJson} from its own components.
   */
  public record Messages(@Nullable List<Message> messages, @Nullable String nextCursor) {

    public static Messages of(List<Message> messages, Optional<String> nextCursor) {
      return new Messages(messages, nextCursor.orElse(null));
    }

    public List<Message> toMessages() {
      return Json.items(messages);
    }

    /**
     * An answer's messages from its bytes: what {@link Json#lenient(byte[], Class)} binds, read in
     * one pass with Jackson's parser when the answer is the plain shape the server writes (known
     * fields once each, of their exact types, no attributes, nothing after the object); any other
     * answer (unknown or repeated fields, {@code null}s, attributes, anything malformed) is bound
     * as before, with the same result or error.
     */
    public static Messages read(byte[] body) {
      Messages fast = OnePassReader.messages(body);
      return fast != null ? fast : Json.lenient(body, Messages.class);
    }
  }

  /** A page of queues; the name to list after for the next page, absent on the last. */
  public record Queues(@Nullable List<QueueView> queues, @Nullable String nextCursor) {

    public static Queues of(List<QueueInfo> queues, Optional<String> nextCursor) {
      return new Queues(
          queues.stream().map(q -> QueueView.of(q, null)).toList(), nextCursor.orElse(null));
    }

    public List<QueueInfo> toQueues() {
      return Json.items(queues).stream().map(QueueView::toQueueInfo).toList();
    }
  }

  /** A queue in an answer: its configuration, and its statistics where the answer has them. */
  public record QueueView(
      @Required String name,
      boolean grouped,
      @Nullable String createdAt,
      @Nullable ConfigView config,
      @Nullable Stats stats) {

    public static QueueView of(QueueInfo q, @Nullable QueueStats stats) {
      return new QueueView(
          q.name(),
          q.grouped(),
          q.createdAt().toString(),
          ConfigView.of(q.config()),
          stats == null ? null : Stats.of(stats));
    }

    public QueueInfo toQueueInfo() {
      return new QueueInfo(
          name,
          grouped,
          config == null ? QueueConfig.defaults() : config.toConfig(),
          WireFormat.instant("createdAt", createdAt).orElse(Instant.EPOCH));
    }
  }

  /**
   * A queue's configuration in an answer: every setting, enums by wire name, durations in whole
   * seconds, indexed attributes and metadata sorted (so that its bytes, and the tag made from them
   * ({@link WireFormat#configTag}), are the same on every server). Requests that set a
   * configuration are read by {@link WireFormat#config(JsonFields, QueueConfig)}, a PATCH, where
   * {@code null} (clear) and absent (keep) differ.
   */
  public record ConfigView(
      @Nullable String order,
      @Nullable Long visibilityTimeoutSeconds,
      @Nullable Long delaySeconds,
      @Nullable Long retentionSeconds,
      @Nullable String onExpire,
      @Nullable Integer maxMessageSizeBytes,
      @Nullable Long receiveWaitSeconds,
      @Nullable DeadLetter deadLetter,
      @Nullable Long maxDepth,
      @Nullable String overflow,
      @Nullable Boolean contentBasedDeduplication,
      @Nullable String dedupScope,
      @Nullable Long historyRetentionSeconds,
      @Nullable List<String> indexedAttributes,
      @Nullable Map<String, String> metadata,
      @Nullable KeyLimit keyLimit) {

    /** The dead-letter policy: where, after how many receives. */
    public record DeadLetter(@Required String target, @Required Integer maxReceiveCount) {}

    /** The limit per key: at most this many messages of one message group in flight. */
    public record KeyLimit(@Required Integer maxConcurrent) {}

    public static ConfigView of(QueueConfig c) {
      return new ConfigView(
          WireFormat.wireName(c.order()),
          c.visibilityTimeout().toSeconds(),
          c.delay().toSeconds(),
          c.retention().toSeconds(),
          WireFormat.wireName(c.onExpire()),
          c.maxMessageSize(),
          c.receiveWait().toSeconds(),
          c.deadLetter().map(d -> new DeadLetter(d.target(), d.maxReceiveCount())).orElse(null),
          c.maxDepth().isPresent() ? c.maxDepth().getAsLong() : null,
          WireFormat.wireName(c.overflow()),
          c.contentBasedDeduplication(),
          WireFormat.wireName(c.dedupScope()),
          c.historyRetention().toSeconds(),
          c.indexedAttributes().stream().sorted().toList(),
          new TreeMap<>(c.metadata()),
          c.keyLimit().isPresent() ? new KeyLimit(c.keyLimit().getAsInt()) : null);
    }

    /** The configuration of an answer; a setting it leaves out is the default. */
    public QueueConfig toConfig() {
      QueueConfig.Builder b = QueueConfig.defaults().toBuilder();
      Optional.ofNullable(order)
          .map(o -> WireFormat.enumValue(Order.class, "order", o))
          .ifPresent(b::order);
      Json.seconds("visibilityTimeoutSeconds", visibilityTimeoutSeconds)
          .ifPresent(b::visibilityTimeout);
      Json.seconds("delaySeconds", delaySeconds).ifPresent(b::delay);
      Json.seconds("retentionSeconds", retentionSeconds).ifPresent(b::retention);
      Optional.ofNullable(onExpire)
          .map(o -> WireFormat.enumValue(ExpiryAction.class, "onExpire", o))
          .ifPresent(b::onExpire);
      Optional.ofNullable(maxMessageSizeBytes).ifPresent(b::maxMessageSize);
      Json.seconds("receiveWaitSeconds", receiveWaitSeconds).ifPresent(b::receiveWait);
      Optional.ofNullable(deadLetter)
          .ifPresent(d -> b.deadLetter(DeadLetterPolicy.of(d.target(), d.maxReceiveCount())));
      if (maxDepth != null) {
        b.maxDepth(
            maxDepth,
            overflow == null
                ? QueueConfig.defaults().overflow()
                : WireFormat.enumValue(Overflow.class, "overflow", overflow));
      }
      Optional.ofNullable(contentBasedDeduplication).ifPresent(b::contentBasedDeduplication);
      Optional.ofNullable(dedupScope)
          .map(d -> WireFormat.enumValue(DedupScope.class, "dedupScope", d))
          .ifPresent(b::dedupScope);
      Json.seconds("historyRetentionSeconds", historyRetentionSeconds)
          .ifPresent(b::historyRetention);
      Optional.ofNullable(indexedAttributes).ifPresent(a -> b.indexedAttributes(Set.copyOf(a)));
      Optional.ofNullable(metadata).ifPresent(b::metadata);
      Optional.ofNullable(keyLimit).ifPresent(k -> b.keyLimit(k.maxConcurrent()));
      return b.build();
    }
  }

  /** A redrive task in an answer: its status by wire name, its start as ISO-8601 text. */
  public record RedriveTaskView(
      @Required String id,
      @Required String source,
      @Nullable String destination,
      @Nullable Integer maxPerSecond,
      @Required String status,
      long moved,
      long toMove,
      @Nullable String startedAt,
      @Nullable String failureReason) {

    public static RedriveTaskView of(RedriveTask t) {
      return new RedriveTaskView(
          t.id(),
          t.source(),
          t.destination().orElse(null),
          t.maxPerSecond().isPresent() ? t.maxPerSecond().getAsInt() : null,
          WireFormat.wireName(t.status()),
          t.moved(),
          t.toMove(),
          t.startedAt().toString(),
          t.failureReason().orElse(null));
    }

    public RedriveTask toTask() {
      return new RedriveTask(
          id,
          source,
          Optional.ofNullable(destination),
          maxPerSecond == null ? OptionalInt.empty() : OptionalInt.of(maxPerSecond),
          WireFormat.enumValue(RedriveTask.Status.class, "status", status),
          moved,
          toMove,
          WireFormat.instant("startedAt", startedAt).orElse(Instant.EPOCH),
          Optional.ofNullable(failureReason));
    }
  }

  public record RedriveTasks(@Nullable List<RedriveTaskView> tasks) {

    public static RedriveTasks of(List<RedriveTask> tasks) {
      return new RedriveTasks(tasks.stream().map(RedriveTaskView::of).toList());
    }

    public List<RedriveTask> toTasks() {
      return Json.items(tasks).stream().map(RedriveTaskView::toTask).toList();
    }
  }

  public record Purged(long purged) {}
}
