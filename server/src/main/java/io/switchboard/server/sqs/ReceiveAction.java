package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * ReceiveMessage: the engine receive, the system and message attributes asked for, the selector
 * extension, and on FIFO queues {@code ReceiveRequestAttemptId}: a retry with the same id within
 * five minutes, while the messages it returned are still leased under its receipts, returns the
 * same answer and restarts their visibility timeout, as SQS does. If any of them was deleted or
 * received again in between, the retry is served as a new receive.
 */
final class ReceiveAction {

  private static final Set<String> SYSTEM_ATTRIBUTES =
      Set.of(
          "All",
          "SenderId",
          "SentTimestamp",
          "ApproximateReceiveCount",
          "ApproximateFirstReceiveTimestamp",
          "SequenceNumber",
          "MessageDeduplicationId",
          "MessageGroupId",
          "DeadLetterQueueSourceArn",
          "AWSTraceHeader");

  /** SQS: 1..128 characters of a-z, A-Z, 0-9 and punctuation. */
  private static final Pattern ATTEMPT_ID =
      Pattern.compile("[A-Za-z0-9!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~]{1,128}");

  private ReceiveAction() {}

  static ObjectNode receive(QueueEngine engine, SqsRequest r) {
    String queue = MessageActions.queue(r);
    ReceiveRequest.Builder b =
        ReceiveRequest.builder().maxMessages(r.integer("MaxNumberOfMessages", 1, 10).orElse(1));
    var visibility = r.integer("VisibilityTimeout", 0, MessageActions.MAX_VISIBILITY);
    visibility.ifPresent(v -> b.visibilityTimeout(Duration.ofSeconds(v)));
    r.integer("WaitTimeSeconds", 0, 20).ifPresent(w -> b.waitTime(Duration.ofSeconds(w)));
    Set<String> system = new LinkedHashSet<>(r.strings("AttributeNames"));
    system.addAll(r.strings("MessageSystemAttributeNames"));
    for (String name : system) {
      if (!SYSTEM_ATTRIBUTES.contains(name)) {
        throw SqsErrorText.UNKNOWN_ATTRIBUTE.error(name);
      }
    }
    List<String> attributeNames = r.strings("MessageAttributeNames");
    Extensions.selector(attributeNames).ifPresent(b::selector);
    Optional<String> attempt = r.string("ReceiveRequestAttemptId");
    if (attempt.isPresent() && !ATTEMPT_ID.matcher(attempt.get()).matches()) {
      throw SqsError.invalidParameter(
          "ReceiveRequestAttemptId must be 1..128 characters of letters, digits and punctuation,"
              + " got '"
              + attempt.get()
              + "'.");
    }
    SqsState state = r.state();
    boolean retryable = attempt.isPresent() && MessageActions.fifo(queue);
    if (retryable) {
      Optional<ObjectNode> again = retry(engine, state, queue, attempt.get());
      if (again.isPresent()) {
        return again.get();
      }
    }
    List<Message> messages = engine.receive(queue, b.build());
    ObjectNode o = MessageActions.object();
    ArrayNode list = o.putArray("Messages");
    List<String> receipts = new ArrayList<>();
    for (Message m : messages) {
      list.add(received(r.address(), MessageActions.fifo(queue), m, system, attributeNames));
      receipts.add(m.receipt().orElseThrow());
    }
    if (retryable && !messages.isEmpty()) {
      long lease =
          visibility.isPresent()
              ? visibility.getAsInt() * 1000L
              : engine.queue(queue).config().visibilityTimeout().toMillis();
      state.remember(queue, attempt.get(), o, receipts, lease);
    }
    return o;
  }

  /** The remembered answer of an attempt, its leases restarted; empty if it cannot be repeated. */
  private static Optional<ObjectNode> retry(
      QueueEngine engine, SqsState state, String queue, String attemptId) {
    Optional<SqsState.Attempt> cached = state.attempt(queue, attemptId);
    if (cached.isEmpty()) {
      return Optional.empty();
    }
    try {
      for (String receipt : cached.get().receipts()) {
        engine.extend(queue, receipt, Duration.ofMillis(cached.get().visibilityMillis()));
      }
      return Optional.of(cached.get().answer().deepCopy());
    } catch (QueueException e) {
      state.forget(queue, attemptId);
      return Optional.empty();
    }
  }

  private static ObjectNode received(
      QueueAddress address,
      boolean fifo,
      Message m,
      Set<String> system,
      List<String> attributeNames) {
    ObjectNode o = MessageActions.object();
    o.put("MessageId", m.id());
    o.put("ReceiptHandle", m.receipt().orElseThrow());
    o.put("MD5OfBody", MessageMd5.body(m.body()));
    o.put("Body", m.body());
    ObjectNode attrs = o.putObject("Attributes");
    boolean all = system.contains("All");
    if (all || system.contains("SenderId")) {
      attrs.put("SenderId", address.accountId());
    }
    if (all || system.contains("SentTimestamp")) {
      attrs.put("SentTimestamp", Long.toString(m.sentAt().toEpochMilli()));
    }
    if (all || system.contains("ApproximateReceiveCount")) {
      attrs.put("ApproximateReceiveCount", Integer.toString(m.receiveCount()));
    }
    if (all || system.contains("ApproximateFirstReceiveTimestamp")) {
      m.firstReceivedAt()
          .ifPresent(
              t -> attrs.put("ApproximateFirstReceiveTimestamp", Long.toString(t.toEpochMilli())));
    }
    if (all || system.contains("MessageGroupId")) {
      m.groupId().ifPresent(g -> attrs.put("MessageGroupId", g));
    }
    if (all || system.contains("MessageDeduplicationId")) {
      m.deduplicationId().ifPresent(d -> attrs.put("MessageDeduplicationId", d));
    }
    if ((all || system.contains("SequenceNumber")) && fifo && m.groupId().isPresent()) {
      attrs.put("SequenceNumber", MessageActions.sequenceNumber(m.sequence()));
    }
    if (all || system.contains("DeadLetterQueueSourceArn")) {
      m.deadLetterSource().ifPresent(s -> attrs.put("DeadLetterQueueSourceArn", address.arn(s)));
    }
    if ((all || system.contains(MessageAttributes.AWS_TRACE_HEADER))
        && m.attributes().get(MessageAttributes.TRACE_HEADER_ATTRIBUTE)
            instanceof AttributeValue.StringValue trace) {
      attrs.put(MessageAttributes.AWS_TRACE_HEADER, trace.value());
    }
    if (attrs.isEmpty()) {
      o.remove("Attributes");
    }
    List<String> plain =
        attributeNames.stream().filter(n -> !n.startsWith(Extensions.PREFIX)).toList();
    Map<String, AttributeValue> selected =
        new LinkedHashMap<>(MessageAttributes.select(m.attributes(), plain));
    selected.putAll(Extensions.received(m, attributeNames));
    if (!selected.isEmpty()) {
      o.set("MessageAttributes", MessageAttributes.write(selected));
      o.put("MD5OfMessageAttributes", MessageMd5.attributes(selected));
    }
    return o;
  }
}
