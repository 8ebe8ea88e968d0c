package io.switchboard.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.Json.Required;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
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
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The native queue API's request and response bodies as records, bound by Jackson ({@link Json}):
 * the client writes a request from one and the server reads it strictly into the same one, so the
 * two ends share one definition. {@code null} is an absent field. Queues inside an answer stay
 * {@link WireFormat}'s trees; a queue configuration's PATCH stays a tree too, since there {@code
 * null} (clear) and absent (keep) differ.
 *
 * <p>Public for the server; not part of the client API.
 */
public final class NativeWire {

  private NativeWire() {}

  // ---- requests ----------------------------------------------------------------------------

  /** {@code POST /v1/queues/{queue}/messages}, and each item of a batch. */
  public record SendMessage(
      @Required String body,
      JsonNode attributes,
      Integer priority,
      String groupId,
      String deduplicationId,
      Long delaySeconds,
      Long timeToLiveSeconds) {

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
  public record SendBatch(List<SendMessage> messages) {}

  /**
   * {@code POST /v1/queues/{queue}/receive}; the selector is text, checked by the server before it
   * parses it.
   */
  public record Receive(
      Integer maxMessages, Long visibilityTimeoutSeconds, Long waitTimeSeconds, String selector) {

    public static Receive of(ReceiveRequest r, Optional<String> selector) {
      return new Receive(
          r.maxMessages(),
          r.visibilityTimeout()
              .map(v -> WireFormat.wholeSeconds("visibilityTimeout", v))
              .orElse(null),
          r.waitTime().map(w -> WireFormat.wholeSeconds("waitTime", w)).orElse(null),
          selector.orElse(null));
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
  public record Release(Long delaySeconds, Boolean toBack) {

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
  public record AckBatch(List<String> receipts) {}

  /** {@code PATCH /v1/queues/{queue}/messages/{id}}: either or both. */
  public record UpdateMessage(Integer priority, JsonNode attributes) {

    public static UpdateMessage of(
        Optional<Integer> priority, Optional<Map<String, AttributeValue>> a) {
      return new UpdateMessage(priority.orElse(null), a.map(WireFormat::attributes).orElse(null));
    }

    public Optional<Map<String, AttributeValue>> attributeValues() {
      return Json.present(attributes).map(WireFormat::attributes);
    }
  }

  /** {@code POST /v1/queues/{queue}/redrives}: to the messages' sources unless a destination. */
  public record StartRedrive(String destination, Integer maxPerSecond) {

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
  public record SendResults(List<SendResult> results) {}

  /**
   * A queue's statistics: {@link QueueStats} with its depth, and its oldest age in milliseconds;
   * the counters bind as they are.
   */
  public record Stats(
      long available,
      long delayed,
      long inFlight,
      long depth,
      Long oldestAgeMillis,
      Map<Integer, Long> byPriority,
      int waitingReceivers,
      QueueStats.Counters counters) {

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
          counters == null ? new QueueStats.Counters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0) : counters);
    }
  }

  /** One receipt of a batch ack: {@code acked}, or not with the code and message. */
  public record Acked(String receipt, boolean acked, String code, String message) {

    public static Acked of(AckResult r) {
      return new Acked(r.receipt(), r.acked(), r.code().orElse(null), r.message().orElse(null));
    }

    public AckResult toResult() {
      return acked
          ? AckResult.acked(receipt)
          : AckResult.failed(
              receipt, code == null ? "UNKNOWN" : code, message == null ? "" : message);
    }
  }

  public record AckResults(List<Acked> results) {}

  /**
   * A message in an answer: instants as ISO-8601 text, the state by its wire name, attributes in
   * {@link WireFormat#attributes}'s forms (always there, {@code {}} for none); absent optional
   * fields are left out.
   */
  public record MessageView(
      @Required String id,
      @Required String body,
      JsonNode attributes,
      int priority,
      String groupId,
      String deduplicationId,
      long sequence,
      String state,
      String sentAt,
      String firstReceivedAt,
      int receiveCount,
      String visibleAt,
      String expiresAt,
      String receipt,
      String deadLetterSource) {

    public static MessageView of(Message m) {
      return new MessageView(
          m.id(),
          m.body(),
          WireFormat.attributes(m.attributes()),
          m.priority(),
          m.groupId().orElse(null),
          m.deduplicationId().orElse(null),
          m.sequence(),
          m.state().wireName(),
          m.sentAt().toString(),
          m.firstReceivedAt().map(Instant::toString).orElse(null),
          m.receiveCount(),
          m.visibleAt().map(Instant::toString).orElse(null),
          m.expiresAt().toString(),
          m.receipt().orElse(null),
          m.deadLetterSource().orElse(null));
    }

    public Message toMessage() {
      return new Message(
          id,
          body,
          Json.present(attributes).map(WireFormat::attributes).orElse(Map.of()),
          priority,
          Optional.ofNullable(groupId),
          Optional.ofNullable(deduplicationId),
          sequence,
          state == null
              ? MessageState.AVAILABLE
              : WireFormat.enumValue(MessageState.class, "state", state),
          WireFormat.instant("sentAt", sentAt).orElse(Instant.EPOCH),
          WireFormat.instant("firstReceivedAt", firstReceivedAt),
          receiveCount,
          WireFormat.instant("visibleAt", visibleAt),
          WireFormat.instant("expiresAt", expiresAt).orElse(Instant.EPOCH),
          Optional.ofNullable(receipt),
          Optional.ofNullable(deadLetterSource));
    }
  }

  /** A receive's or a browse's messages; a browse's next cursor. */
  public record Messages(List<MessageView> messages, String nextCursor) {

    public static Messages of(List<Message> messages, Optional<String> nextCursor) {
      return new Messages(messages.stream().map(MessageView::of).toList(), nextCursor.orElse(null));
    }

    public List<Message> toMessages() {
      return Json.items(messages).stream().map(MessageView::toMessage).toList();
    }
  }

  public record Queues(List<JsonNode> queues) {

    public static Queues of(List<QueueInfo> queues) {
      return new Queues(Json.trees(queues, WireFormat::queueInfo));
    }

    public List<QueueInfo> toQueues() {
      return Json.read(queues, WireFormat::queueInfo);
    }
  }

  /** A redrive task in an answer: its status by wire name, its start as ISO-8601 text. */
  public record RedriveTaskView(
      @Required String id,
      @Required String source,
      String destination,
      Integer maxPerSecond,
      @Required String status,
      long moved,
      long toMove,
      String startedAt,
      String failureReason) {

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

  public record RedriveTasks(List<RedriveTaskView> tasks) {

    public static RedriveTasks of(List<RedriveTask> tasks) {
      return new RedriveTasks(tasks.stream().map(RedriveTaskView::of).toList());
    }

    public List<RedriveTask> toTasks() {
      return Json.items(tasks).stream().map(RedriveTaskView::toTask).toList();
    }
  }

  public record Purged(long purged) {}
}
