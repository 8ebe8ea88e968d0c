package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.SendResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * SendMessage, ReceiveMessage, DeleteMessage, ChangeMessageVisibility and their batches: each reads
 * the SQS request, makes the engine calls and writes the SQS answer. FIFO rules that SQS words
 * differently from the engine ({@code MissingParameter} for a group id) are checked here first.
 */
final class MessageActions {

  private static final int MAX_BATCH_BYTES = 1_048_576;
  static final int MAX_VISIBILITY = 43_200;

  private MessageActions() {}

  static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  static String queue(SqsRequest r) {
    return r.queue();
  }

  static boolean fifo(String queue) {
    return queue.endsWith(".fifo");
  }

  private static final java.math.BigInteger SEQUENCE_BASE = java.math.BigInteger.TEN.pow(19);

  /**
   * A message's {@code SequenceNumber} as SQS shows it: a decimal string of 20 digits that grows
   * with the engine's sequence (10^19 + sequence, zero-padded to 20 digits for the negative
   * sequences a LIFO queue may hold), so it increases within a group as SQS's does and is the same
   * after a restart, being derived from the stored sequence.
   */
  static String sequenceNumber(long sequence) {
    String s = SEQUENCE_BASE.add(java.math.BigInteger.valueOf(sequence)).toString();
    return s.length() >= 20 ? s : "0".repeat(20 - s.length()) + s;
  }

  // ---- send --------------------------------------------------------------------------------

  /** A send entry read and checked, with what its answer needs. */
  private record Outgoing(
      NewMessage message, Map<String, AttributeValue> sent, Map<String, AttributeValue> system) {
    int bytes() {
      // not encoded for this (an ASCII body is counted): MessageMd5 encodes it once more
      return AttributeValue.utf8Length(message.body()) + attributeBytes();
    }

    /**
     * At least {@link #bytes}, without counting the body's UTF-8 bytes (a UTF-16 character is at
     * most 3 of them): a batch whose bound is within the limit is within it, so only one near the
     * limit is counted exactly.
     */
    long atMostBytes() {
      return 3L * message.body().length() + attributeBytes();
    }

    private int attributeBytes() {
      int n = 0;
      for (var e : message.attributes().entrySet()) {
        n += e.getKey().length() + e.getValue().sizeInBytes();
      }
      return n;
    }
  }

  static ObjectNode send(QueueEngine engine, SqsRequest r) {
    String queue = queue(r);
    Outgoing out = outgoing(engine, queue, r);
    SendResult result;
    try {
      result = engine.send(queue, out.message());
    } catch (QueueException e) {
      throw sendError(engine, queue, e);
    }
    return sent(object(), out, result, fifo(queue));
  }

  /**
   * A send refused by the engine, as SQS words it: a message over the queue's size limit names the
   * limit in bytes.
   */
  private static RuntimeException sendError(QueueEngine engine, String queue, QueueException e) {
    if (e.code() == ErrorCode.MESSAGE_TOO_LARGE) {
      return SqsErrorText.MESSAGE_TOO_LONG.error(engine.queue(queue).config().maxMessageSize());
    }
    return e;
  }

  private static Outgoing outgoing(QueueEngine engine, String queue, SqsRequest r) {
    String body =
        r.string("MessageBody").orElseThrow(() -> SqsError.missingParameter("MessageBody"));
    if (body.isEmpty()) {
      throw SqsError.missingParameter("MessageBody"); // as SQS words an empty body
    }
    checkCharacters(body);
    NewMessage.Builder b = NewMessage.builder(body);
    Map<String, AttributeValue> sent = MessageAttributes.read(r.objects("MessageAttributes"));
    Map<String, AttributeValue> stored = new LinkedHashMap<>(Extensions.apply(sent, b));
    Map<String, AttributeValue> system =
        MessageAttributes.readSystem(r.objects("MessageSystemAttributes"));
    // As SQS: an explicit AWSTraceHeader wins; without one, the request's X-Amzn-Trace-Id header
    // becomes it (stored, not digested: the send's MD5OfMessageSystemAttributes covers what the
    // caller put in the request, as the SDK checks it).
    AttributeValue trace = system.get(MessageAttributes.AWS_TRACE_HEADER);
    if (trace == null && r.traceHeader().isPresent()) {
      trace = MessageAttributes.traceHeader(r.traceHeader().get());
    }
    if (trace != null) {
      stored.put(MessageAttributes.TRACE_HEADER_ATTRIBUTE, trace);
    }
    b.attributes(stored);
    var delay = r.integer("DelaySeconds", 0, 900);
    var group = r.string("MessageGroupId");
    group.ifPresent(MessageActions::checkGroupId);
    var dedup = r.string("MessageDeduplicationId");
    if (fifo(queue)) {
      dedup.ifPresent(MessageActions::checkDeduplicationId);
      // SQS refuses a per-message delay on FIFO queues, but takes an explicit 0 (no delay).
      if (delay.isPresent() && delay.getAsInt() != 0) {
        throw SqsErrorText.FIFO_DELAY_SECONDS.error(delay.getAsInt());
      }
      b.groupId(group.orElseThrow(() -> SqsError.missingParameter("MessageGroupId")));
      if (dedup.isPresent()) {
        b.deduplicationId(dedup.get());
      } else if (!engine.queue(queue).config().contentBasedDeduplication()) {
        throw SqsErrorText.DEDUPLICATION_ID_REQUIRED.error();
      }
    } else {
      if (dedup.isPresent()) {
        throw SqsError.invalidParameter(
            "The request include parameter MessageDeduplicationId that is not valid for this queue"
                + " type");
      }
      delay.ifPresent(d -> b.delay(Duration.ofSeconds(d)));
      // A fair queue: the group id names the message's tenant (the engine schedules fairly).
      group.ifPresent(b::groupId);
    }
    return new Outgoing(b.build(), sent, system);
  }

  /**
   * SQS: 1..128 characters of letters, digits and punctuation (ASCII's visible characters, {@code
   * \p{Graph}}), on FIFO and standard queues.
   */
  private static final java.util.regex.Pattern GROUP_ID =
      java.util.regex.Pattern.compile("\\p{Graph}{1,128}");

  private static void checkGroupId(String group) {
    if (!GROUP_ID.matcher(group).matches()) {
      throw SqsErrorText.GROUP_ID_INVALID.error(group);
    }
  }

  /** SQS: the same characters and length as a group id. */
  private static void checkDeduplicationId(String id) {
    if (!GROUP_ID.matcher(id).matches()) {
      throw SqsErrorText.DEDUPLICATION_ID_INVALID.error(id);
    }
  }

  /** SQS allows #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF. */
  static void checkCharacters(String body) {
    firstInvalidCharacter(body)
        .ifPresent(
            c -> {
              throw SqsErrorText.INVALID_MESSAGE_CONTENTS.error(Integer.toHexString(c));
            });
  }

  /** The first character SQS does not allow in a message (body or string attribute), if any. */
  static java.util.OptionalInt firstInvalidCharacter(String text) {
    // a loop, not a code-point stream: this runs on every body and string attribute sent
    for (int i = 0; i < text.length(); ) {
      int c = text.codePointAt(i);
      if (!(c == 0x9
          || c == 0xA
          || c == 0xD
          || (c >= 0x20 && c <= 0xD7FF)
          || (c >= 0xE000 && c <= 0xFFFD)
          || (c >= 0x10000 && c <= 0x10FFFF))) {
        return java.util.OptionalInt.of(c);
      }
      i += Character.charCount(c);
    }
    return java.util.OptionalInt.empty();
  }

  private static ObjectNode sent(ObjectNode o, Outgoing out, SendResult result, boolean fifo) {
    o.put("MessageId", result.id());
    o.put("MD5OfMessageBody", MessageMd5.body(out.message().body()));
    if (!out.sent().isEmpty()) {
      // What the caller sent, reserved attributes included: that is what the SDK digests.
      o.put("MD5OfMessageAttributes", MessageMd5.attributes(out.sent()));
    }
    if (!out.system().isEmpty()) {
      o.put("MD5OfMessageSystemAttributes", MessageMd5.attributes(out.system()));
    }
    if (fifo) {
      o.put("SequenceNumber", sequenceNumber(result.sequence()));
    }
    return o;
  }

  static ObjectNode sendBatch(QueueEngine engine, SqsRequest r) {
    String queue = queue(r);
    List<SqsRequest> entries =
        BatchEntries.check(r.list("Entries"), "SendMessageBatchRequestEntry");
    if (fifo(queue)) {
      checkFifoEntries(engine, queue, entries);
    }
    Batch batch = new Batch();
    List<String> ids = new ArrayList<>();
    List<Outgoing> valid = new ArrayList<>();
    long atMost = 0;
    for (SqsRequest e : entries) {
      String id = e.required("Id");
      try {
        Outgoing out = outgoing(engine, queue, e);
        ids.add(id);
        valid.add(out);
        atMost += out.atMostBytes();
      } catch (SqsError error) {
        batch.failed(id, error);
      } catch (QueueException error) {
        rethrowQueueLevel(error);
        batch.failed(id, SqsError.of(error));
      }
    }
    if (atMost > MAX_BATCH_BYTES) {
      int bytes = 0;
      for (Outgoing out : valid) {
        bytes += out.bytes();
      }
      if (bytes > MAX_BATCH_BYTES) {
        throw SqsErrorText.BATCH_REQUEST_TOO_LONG.error(MAX_BATCH_BYTES, bytes);
      }
    }
    List<SendResult> results = sendAll(engine, queue, valid, ids, batch);
    for (int i = 0; i < results.size(); i++) {
      if (results.get(i) != null) {
        batch.successful(
            sent(object().put("Id", ids.get(i)), valid.get(i), results.get(i), fifo(queue)));
      }
    }
    return batch.answer();
  }

  /**
   * Sends the valid entries as one engine batch, which is all or nothing; if the engine refuses it
   * for one entry's sake, sends them one by one so that only the bad ones fail, as SQS does.
   * Results are in entry order, {@code null} where an entry failed.
   */
  private static List<SendResult> sendAll(
      QueueEngine engine, String queue, List<Outgoing> valid, List<String> ids, Batch batch) {
    if (valid.isEmpty()) {
      return List.of();
    }
    try {
      return engine.sendBatch(queue, valid.stream().map(Outgoing::message).toList());
    } catch (QueueException e) {
      rethrowQueueLevel(e);
    }
    List<SendResult> results = new ArrayList<>();
    for (int i = 0; i < valid.size(); i++) {
      try {
        results.add(engine.send(queue, valid.get(i).message()));
      } catch (QueueException e) {
        rethrowQueueLevel(e);
        RuntimeException error = sendError(engine, queue, e);
        batch.failed(ids.get(i), error instanceof SqsError s ? s : SqsError.of(e));
        results.add(null);
      }
    }
    return results;
  }

  /**
   * As SQS, a FIFO batch with an entry lacking its group id, or its deduplication id on a queue
   * without content-based deduplication, fails as a whole, not as that entry.
   */
  private static void checkFifoEntries(QueueEngine engine, String queue, List<SqsRequest> entries) {
    boolean contentBased = engine.queue(queue).config().contentBasedDeduplication();
    for (SqsRequest e : entries) {
      if (!e.has("MessageGroupId")) {
        throw SqsErrorText.BATCH_ENTRY_GROUP_ID_MISSING.error();
      }
      if (!contentBased && !e.has("MessageDeduplicationId")) {
        throw SqsErrorText.DEDUPLICATION_ID_REQUIRED.error();
      }
    }
  }

  /** Errors about the queue, not the entry, fail the whole request. */
  private static void rethrowQueueLevel(QueueException e) {
    if (e.code() == ErrorCode.QUEUE_NOT_FOUND || e.code() == ErrorCode.UNAVAILABLE) {
      throw e;
    }
  }

  // ---- delete, change visibility -----------------------------------------------------------

  static ObjectNode delete(QueueEngine engine, SqsRequest r) {
    String queue = queue(r);
    String receipt = r.required("ReceiptHandle");
    onDeleteReceipt(receipt, () -> engine.ack(queue, receipt));
    return object();
  }

  /**
   * Runs an engine call on a receipt handle as SQS answers it. A handle from an earlier receive of
   * a message received again since (the engine's {@code RECEIPT_STALE}) succeeds and changes
   * nothing: the message stays leased to its latest receiver, as SQS documents for DeleteMessage
   * ("the request succeeds, but the message will not be deleted"). A malformed handle, or one of
   * another queue, is {@code ReceiptHandleIsInvalid} with SQS's text.
   */
  private static void onReceipt(String receipt, Runnable call) {
    try {
      call.run();
    } catch (QueueException e) {
      switch (e.code()) {
        case RECEIPT_STALE -> {
          // succeeds; nothing changes
        }
        case RECEIPT_INVALID -> throw SqsErrorText.RECEIPT_HANDLE_INVALID.error(receipt);
        default -> throw e;
      }
    }
  }

  /**
   * {@link #onReceipt} for DeleteMessage: a FIFO queue's handle whose lease ended (the engine's
   * {@code MESSAGE_NOT_IN_FLIGHT}, which only a grouped queue's ack answers) is {@code
   * InvalidParameterValue}, "The receipt handle has expired.", as SQS answers it.
   */
  private static void onDeleteReceipt(String receipt, Runnable call) {
    try {
      onReceipt(receipt, call);
    } catch (QueueException e) {
      if (e.code() == ErrorCode.MESSAGE_NOT_IN_FLIGHT) {
        throw SqsErrorText.RECEIPT_HANDLE_EXPIRED.error(receipt);
      }
      throw e;
    }
  }

  /**
   * {@link #onReceipt} for ChangeMessageVisibility, whose engine call takes a handle from an
   * earlier receive as SQS's servers do ({@link QueueEngine#extendAnyLease}): a handle of a message
   * deleted since is {@code InvalidParameterValue}, as SQS answers it (DeleteMessage of it
   * succeeds).
   */
  private static void onVisibilityReceipt(String receipt, Runnable call) {
    try {
      onReceipt(receipt, call);
    } catch (QueueException e) {
      if (e.code() == ErrorCode.MESSAGE_NOT_FOUND) {
        throw SqsErrorText.VISIBILITY_MESSAGE_GONE.error(receipt);
      }
      throw e;
    }
  }

  static ObjectNode changeVisibility(QueueEngine engine, SqsRequest r) {
    String queue = queue(r);
    String receipt = r.required("ReceiptHandle");
    int timeout =
        r.integer("VisibilityTimeout", 0, MAX_VISIBILITY)
            .orElseThrow(() -> SqsError.missingParameter("VisibilityTimeout"));
    onVisibilityReceipt(
        receipt, () -> engine.extendAnyLease(queue, receipt, Duration.ofSeconds(timeout)));
    return object();
  }

  /**
   * The entries' handles are acked together ({@link QueueEngine#ackAll}: one lock hold, one
   * statement on PostgreSQL); each entry is answered as its own DeleteMessage would be.
   */
  static ObjectNode deleteBatch(QueueEngine engine, SqsRequest r) {
    String queue = queue(r);
    List<SqsRequest> entries =
        BatchEntries.check(r.list("Entries"), "DeleteMessageBatchRequestEntry");
    List<String> receipts = new ArrayList<>();
    for (SqsRequest e : entries) {
      e.string("ReceiptHandle").ifPresent(receipts::add);
    }
    Iterator<Optional<QueueException>> outcomes =
        receipts.isEmpty()
            ? Collections.emptyIterator()
            : engine.ackAll(queue, receipts).iterator();
    Batch batch = new Batch();
    for (SqsRequest e : entries) {
      batch.run(
          e,
          () -> {
            String receipt = e.required("ReceiptHandle");
            Optional<QueueException> refused = outcomes.next();
            onDeleteReceipt(
                receipt,
                () -> {
                  if (refused.isPresent()) {
                    throw refused.get();
                  }
                });
          });
    }
    return batch.answer();
  }

  static ObjectNode changeVisibilityBatch(QueueEngine engine, SqsRequest r) {
    String queue = queue(r);
    Batch batch = new Batch();
    for (SqsRequest e :
        BatchEntries.check(r.list("Entries"), "ChangeMessageVisibilityBatchRequestEntry")) {
      batch.run(
          e,
          () -> {
            String receipt = e.required("ReceiptHandle");
            int timeout =
                e.integer("VisibilityTimeout", 0, MAX_VISIBILITY)
                    .orElseThrow(() -> SqsError.missingParameter("VisibilityTimeout"));
            onVisibilityReceipt(
                receipt, () -> engine.extendAnyLease(queue, receipt, Duration.ofSeconds(timeout)));
          });
    }
    return batch.answer();
  }

  /** The Successful and Failed lists of a batch answer. */
  private static final class Batch {
    private final ObjectNode answer = object();
    private final ArrayNode successful = answer.putArray("Successful");
    private final ArrayNode failed = answer.putArray("Failed");

    void successful(ObjectNode entry) {
      successful.add(entry);
    }

    void failed(String id, SqsError e) {
      failed.add(SqsAnswers.tree(SqsAnswers.BatchError.of(id, e)));
    }

    /** Runs one entry's engine call: success, or a per-entry failure. */
    void run(SqsRequest entry, Runnable call) {
      String id = entry.required("Id");
      try {
        call.run();
        successful(object().put("Id", id));
      } catch (SqsError e) {
        failed(id, e);
      } catch (QueueException e) {
        rethrowQueueLevel(e);
        failed(id, SqsError.of(e));
      }
    }

    ObjectNode answer() {
      return answer;
    }
  }
}
