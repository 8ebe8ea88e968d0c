package io.switchboard.bench.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.SendResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The work behind both routes of {@link StackServerMain}, the same code whatever HTTP stack calls
 * it, so that a difference between two stacks is the stack's: the no-op drops the body it is given;
 * the batch send parses an SQS-JSON-like {@code SendMessageBatch} body with Jackson (the server's
 * version), puts its entries into a queue of core's in-memory engine and writes a small JSON answer
 * (the entries' ids and message ids).
 *
 * <p>The queue is purged every {@link #PURGE_EVERY} batches, so the heap holds at most that many
 * batches whatever the rate (the same amortised cost on every stack).
 */
final class StackWork {

  static final String NOOP_PATH = "/noop";
  static final String BATCH_PATH = "/batch";
  static final String QUEUE = "stacks";
  static final int PURGE_EVERY = 1_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final QueueEngine engine = QueueEngine.inMemory();
  private final AtomicLong batches = new AtomicLong();

  StackWork() {
    engine.createQueue(QUEUE, QueueConfig.defaults());
  }

  /** The no-op: the body was read by the stack; nothing to answer (204). */
  @SuppressWarnings("unused")
  void noop(byte[] body) {
    // dropped
  }

  /**
   * The batch send: {@code {"QueueUrl":..., "Entries":[{"Id":..., "MessageBody":...}, ...]}} in,
   * {@code {"Successful":[{"Id":..., "MessageId":...}, ...],"Failed":[]}} out.
   *
   * @throws IllegalArgumentException if the body is not such a request (the stack answers 400)
   */
  byte[] sendBatch(byte[] body) {
    JsonNode request;
    try {
      request = JSON.readTree(body);
    } catch (IOException e) {
      throw new IllegalArgumentException("the body is not JSON: " + e.getMessage(), e);
    }
    JsonNode entries = request == null ? null : request.get("Entries");
    if (entries == null || !entries.isArray() || entries.isEmpty()) {
      throw new IllegalArgumentException("the body has no Entries");
    }
    List<String> ids = new ArrayList<>(entries.size());
    List<NewMessage> messages = new ArrayList<>(entries.size());
    for (JsonNode e : entries) {
      ids.add(e.path("Id").asText());
      messages.add(NewMessage.of(e.path("MessageBody").asText()));
    }
    List<SendResult> sent = engine.sendBatch(QUEUE, messages);
    if (batches.incrementAndGet() % PURGE_EVERY == 0) {
      engine.purge(QUEUE);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 64 * ids.size());
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeArrayFieldStart("Successful");
      for (int i = 0; i < ids.size(); i++) {
        g.writeStartObject();
        g.writeStringField("Id", ids.get(i));
        g.writeStringField("MessageId", sent.get(i).id());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeArrayFieldStart("Failed");
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return out.toByteArray();
  }
}
