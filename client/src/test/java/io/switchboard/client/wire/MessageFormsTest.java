package io.switchboard.client.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.testing.Components;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A message has one hand-written form on the native API's wire besides its record: the fast writer
 * ({@link StreamedAnswers#messages}), which the binding's serializer is too ({@link MessageJson});
 * the binding's reader and the one-pass reader ({@link OnePassReader}) read the record's own
 * components by name. Each component of {@link Message}, changed alone, changes the bytes, is
 * written under its name and reads back to the same message, both ways, so a field added to the
 * record and left out of the writer fails here. The same for a message sent ({@link NewMessage}:
 * {@link StreamedAnswers#sendBatch}, {@link NativeWire.SendMessage}).
 */
class MessageFormsTest {

  private static final Instant SENT = Instant.ofEpochMilli(1_700_000_000_123L);

  /** Every optional field present, no attributes: the shape the fast reader reads. */
  private static final Message MESSAGE =
      new Message(
          "m-1",
          "body",
          Map.of(),
          3,
          Optional.of("group"),
          Optional.of("dedup"),
          17,
          MessageState.IN_FLIGHT,
          SENT,
          Optional.of(SENT.plusMillis(5)),
          2,
          Optional.of(SENT.plusSeconds(30)),
          SENT.plusSeconds(345_600),
          Optional.of("AAAAAAAAAAEAAAAB"),
          Optional.of("source-queue"));

  private static @Nullable Object other(Type type, @Nullable Object value) {
    return value instanceof Map<?, ?> ? Map.of("a", AttributeValue.string("x")) : null;
  }

  @Test
  void everyComponentOfTheMessage_inEveryFormOfTheAnswer() {
    byte[] original = StreamedAnswers.messages(List.of(MESSAGE), Optional.empty());
    Components.eachChanged(MESSAGE, MessageFormsTest::other)
        .forEach(
            (name, m) -> {
              byte[] bytes = StreamedAnswers.messages(List.of(m), Optional.empty());
              assertFalse(Arrays.equals(original, bytes), name + " is written");
              assertArrayEquals(
                  Json.bytes(NativeWire.Messages.of(List.of(m), Optional.empty())),
                  bytes,
                  name + ": the fast writer writes what the binding writes");
              assertEquals(
                  m,
                  WireFormat.message(JsonFields.lenient(WireFormat.message(m))),
                  name + " bound both ways");
              assertEquals(
                  List.of(m), NativeWire.Messages.read(bytes).toMessages(), name + " read back");
              if (m.attributes().isEmpty()) {
                NativeWire.Messages fast = OnePassReader.messages(bytes);
                assertNotNull(fast, name + ": read in one pass");
                assertEquals(List.of(m), fast.toMessages(), name + " read in one pass");
              }
            });
  }

  /** Each component is written under its own name: what the readers look it up by. */
  @Test
  void everyComponentOfTheMessage_isWrittenUnderItsName() {
    Message full =
        new Message(
            MESSAGE.id(),
            MESSAGE.body(),
            Map.of("a", AttributeValue.string("x")),
            MESSAGE.priority(),
            MESSAGE.groupId(),
            MESSAGE.deduplicationId(),
            MESSAGE.sequence(),
            MESSAGE.state(),
            MESSAGE.sentAt(),
            MESSAGE.firstReceivedAt(),
            MESSAGE.receiveCount(),
            MESSAGE.visibleAt(),
            MESSAGE.expiresAt(),
            MESSAGE.receipt(),
            MESSAGE.deadLetterSource());
    List<String> names = new ArrayList<>();
    WireFormat.message(full).fieldNames().forEachRemaining(names::add);
    assertEquals(
        Arrays.stream(Message.class.getRecordComponents()).map(RecordComponent::getName).toList(),
        names);
  }

  @Test
  void everyComponentOfAMessageSent_inEveryFormOfTheRequest() {
    NewMessage sent =
        new NewMessage(
            "body",
            Map.of(),
            3,
            Optional.of("group"),
            Optional.of("dedup"),
            Optional.of(Duration.ofSeconds(5)),
            Optional.of(Duration.ofSeconds(60)));
    byte[] original = StreamedAnswers.sendBatch(List.of(sent));
    Components.eachChanged(sent, MessageFormsTest::other)
        .forEach(
            (name, m) -> {
              byte[] bytes = StreamedAnswers.sendBatch(List.of(m));
              assertFalse(Arrays.equals(original, bytes), name + " is written");
              NativeWire.SendBatch bound =
                  Json.strict(bytes, "request", NativeWire.SendBatch.class);
              assertArrayEquals(
                  Json.bytes(bound),
                  bytes,
                  name + ": the fast writer writes what the record's binding writes");
              assertEquals(
                  List.of(NativeWire.SendMessage.of(m)), bound.messages(), name + " in the record");
              if (m.attributes().isEmpty()) {
                assertEquals(bound, OnePassReader.sendBatch(bytes), name + " read in one pass");
              }
            });
  }
}
