package io.switchboard.client.wire;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import io.switchboard.client.AckResult;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.SendResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The native API's busiest answers written straight to bytes with Jackson's generator: the same
 * bytes as {@link Json#bytes} of the {@link NativeWire} record ({@link NativeWire.Messages}, {@link
 * NativeWire.SendResults}, {@link NativeWire.AckResults}), field for field in the record's order,
 * absent fields left out, without the records and their lists in between. The records stay the
 * definition (the client binds answers with them; {@code StreamedAnswersTest} checks these bytes
 * against theirs). A message is written by {@link #message} in both, the binding's serializer of
 * {@link Message} ({@link MessageJson}) included.
 *
 * <p>The client's two busiest requests ({@link #sendBatch}, {@link #ackBatch}) are written the same
 * way, the same bytes as {@link Json#bytes} of {@link NativeWire.SendBatch} and {@link
 * NativeWire.AckBatch}.
 *
 * <p>Public for the server; not part of the client API.
 */
public final class StreamedAnswers {

  private StreamedAnswers() {}

  /** Bytes of {@link NativeWire.Messages#of}{@code (messages, nextCursor)}. */
  public static byte[] messages(List<Message> messages, Optional<String> nextCursor) {
    return write(
        messages.size() * 400 + 32,
        g -> {
          g.writeStartObject();
          g.writeArrayFieldStart("messages");
          for (Message m : messages) {
            message(g, m);
          }
          g.writeEndArray();
          if (nextCursor.isPresent()) {
            g.writeStringField("nextCursor", nextCursor.get());
          }
          g.writeEndObject();
        });
  }

  /** Bytes of {@code new} {@link NativeWire.SendResults}{@code (results)}. */
  public static byte[] sendResults(List<SendResult> results) {
    return write(
        results.size() * 80 + 16,
        g -> {
          g.writeStartObject();
          g.writeArrayFieldStart("results");
          for (SendResult r : results) {
            g.writeStartObject();
            g.writeStringField("id", r.id());
            g.writeNumberField("sequence", r.sequence());
            g.writeBooleanField("duplicate", r.duplicate());
            g.writeEndObject();
          }
          g.writeEndArray();
          g.writeEndObject();
        });
  }

  /**
   * Bytes of {@code new} {@link NativeWire.AckResults} of each result's {@link
   * NativeWire.Acked#of}.
   */
  public static byte[] ackResults(List<AckResult> results) {
    return write(
        results.size() * 64 + 16,
        g -> {
          g.writeStartObject();
          g.writeArrayFieldStart("results");
          for (AckResult r : results) {
            g.writeStartObject();
            g.writeStringField("receipt", r.receipt());
            g.writeBooleanField("acked", r.acked());
            if (r.code().isPresent()) {
              g.writeStringField("code", r.code().get());
            }
            if (r.message().isPresent()) {
              g.writeStringField("message", r.message().get());
            }
            g.writeEndObject();
          }
          g.writeEndArray();
          g.writeEndObject();
        });
  }

  /** Bytes of {@code new SendBatch(messages.stream().map(SendMessage::of).toList())}. */
  public static byte[] sendBatch(List<NewMessage> messages) {
    return write(
        messages.size() * 160 + 16,
        g -> {
          g.writeStartObject();
          g.writeArrayFieldStart("messages");
          for (NewMessage m : messages) {
            newMessage(g, m);
          }
          g.writeEndArray();
          g.writeEndObject();
        });
  }

  /** Bytes of {@code new AckBatch(receipts)}. */
  public static byte[] ackBatch(List<String> receipts) {
    return write(
        receipts.size() * 40 + 16,
        g -> {
          g.writeStartObject();
          g.writeArrayFieldStart("receipts");
          for (String r : receipts) {
            g.writeString(r);
          }
          g.writeEndArray();
          g.writeEndObject();
        });
  }

  /** {@link NativeWire.SendMessage#of}'s fields, in its order, absent ones left out. */
  private static void newMessage(JsonGenerator g, NewMessage m) throws IOException {
    g.writeStartObject();
    g.writeStringField("body", m.body());
    if (!m.attributes().isEmpty()) {
      g.writeFieldName("attributes");
      g.writeTree(WireFormat.attributes(m.attributes()));
    }
    if (m.priority() != 0) {
      g.writeNumberField("priority", m.priority());
    }
    optional(g, "groupId", m.groupId());
    optional(g, "deduplicationId", m.deduplicationId());
    if (m.delay().isPresent()) {
      g.writeNumberField("delaySeconds", WireFormat.wholeSeconds("delay", m.delay().get()));
    }
    if (m.timeToLive().isPresent()) {
      g.writeNumberField(
          "timeToLiveSeconds", WireFormat.wholeSeconds("timeToLive", m.timeToLive().get()));
    }
    g.writeEndObject();
  }

  /**
   * A message's fields, in {@link Message}'s order, absent ones left out: the fast writer, and what
   * the binding writes too ({@link MessageJson}).
   */
  static void message(JsonGenerator g, Message m) throws IOException {
    g.writeStartObject();
    g.writeStringField("id", m.id());
    g.writeStringField("body", m.body());
    attributes(g, m.attributes());
    g.writeNumberField("priority", m.priority());
    optional(g, "groupId", m.groupId());
    optional(g, "deduplicationId", m.deduplicationId());
    g.writeNumberField("sequence", m.sequence());
    g.writeStringField("state", m.state().wireName());
    g.writeStringField("sentAt", InstantText.format(m.sentAt()));
    if (m.firstReceivedAt().isPresent()) {
      g.writeStringField("firstReceivedAt", InstantText.format(m.firstReceivedAt().get()));
    }
    g.writeNumberField("receiveCount", m.receiveCount());
    if (m.visibleAt().isPresent()) {
      g.writeStringField("visibleAt", InstantText.format(m.visibleAt().get()));
    }
    g.writeStringField("expiresAt", InstantText.format(m.expiresAt()));
    optional(g, "receipt", m.receipt());
    optional(g, "deadLetterSource", m.deadLetterSource());
    g.writeEndObject();
  }

  /**
   * A message's {@code attributes} field as {@link Message}'s binding writes it: an object, empty
   * when it has none. Public for the server's push deliveries, which carry it the same way.
   */
  public static void attributes(JsonGenerator g, Map<String, AttributeValue> attributes)
      throws IOException {
    g.writeFieldName("attributes");
    if (attributes.isEmpty()) {
      g.writeStartObject();
      g.writeEndObject();
    } else {
      g.writeTree(WireFormat.attributes(attributes));
    }
  }

  private static void optional(JsonGenerator g, String name, Optional<String> value)
      throws IOException {
    if (value.isPresent()) {
      g.writeStringField(name, value.get());
    }
  }

  @FunctionalInterface
  private interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  /** The generator {@link Json#STRICT} makes (its codec writes any tree), into one buffer. */
  private static byte[] write(int sizeHint, Body body) {
    ByteArrayBuilder out = new ByteArrayBuilder(Math.max(sizeHint, 64));
    try (JsonGenerator g = Json.STRICT.createGenerator(out)) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write an answer to memory", e);
    }
    return out.toByteArray();
  }
}
