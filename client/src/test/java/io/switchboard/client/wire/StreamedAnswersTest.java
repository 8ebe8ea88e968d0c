package io.switchboard.client.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.client.AckResult;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.SendResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The streamed answers are byte for byte what the records' binding writes (the wire format the
 * client reads and the OpenAPI document describes), for every optional field present or absent,
 * every attribute form, text that needs escaping, and empty lists.
 */
class StreamedAnswersTest {

  private static final String[] TEXTS = {
    "", "plain", "quote \" backslash \\ slash /", "tab\tnewline\ncontrol\u0001", "é ü ✓ 🚀", "<&>"
  };

  @Test
  void messages_sameBytesAsTheRecords_everyFieldPresentOrAbsent() {
    Random random = new Random(19);
    for (int round = 0; round < 2_000; round++) {
      int n = random.nextInt(4);
      List<Message> messages = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        messages.add(message(random));
      }
      Optional<String> cursor =
          random.nextBoolean() ? Optional.empty() : Optional.of(text(random) + round);
      assertSame(
          Json.bytes(NativeWire.Messages.of(messages, cursor)),
          StreamedAnswers.messages(messages, cursor));
    }
  }

  @Test
  void messages_noneAtAll() {
    assertEquals(
        "{\"messages\":[]}",
        new String(StreamedAnswers.messages(List.of(), Optional.empty()), StandardCharsets.UTF_8));
  }

  @Test
  void sendResults_sameBytesAsTheRecords() {
    Random random = new Random(7);
    for (int round = 0; round < 200; round++) {
      List<SendResult> results = new ArrayList<>();
      for (int i = random.nextInt(11); i > 0; i--) {
        results.add(
            new SendResult(text(random) + i, random.nextLong() >>> 1, random.nextBoolean()));
      }
      assertSame(
          Json.bytes(new NativeWire.SendResults(results)), StreamedAnswers.sendResults(results));
    }
  }

  @Test
  void ackResults_sameBytesAsTheRecords_ackedAndRefused() {
    Random random = new Random(11);
    for (int round = 0; round < 200; round++) {
      List<AckResult> results = new ArrayList<>();
      for (int i = random.nextInt(11); i > 0; i--) {
        results.add(
            random.nextBoolean()
                ? AckResult.acked(text(random) + i)
                : AckResult.failed(text(random) + i, "RECEIPT_INVALID", text(random)));
      }
      assertSame(
          Json.bytes(
              new NativeWire.AckResults(results.stream().map(NativeWire.Acked::of).toList())),
          StreamedAnswers.ackResults(results));
    }
  }

  @Test
  void sendBatchRequest_sameBytesAsTheRecords() {
    Random r = new Random(23);
    for (int round = 0; round < 1_000; round++) {
      List<NewMessage> messages = new ArrayList<>();
      for (int i = r.nextInt(11); i > 0; i--) {
        NewMessage.Builder b = NewMessage.builder(text(r) + "x".repeat(r.nextInt(100)));
        attributes(r).forEach(b::attribute);
        if (r.nextBoolean()) {
          b.priority(r.nextInt(19) - 9);
        }
        if (r.nextBoolean()) {
          b.groupId("g-" + text(r));
        }
        if (r.nextBoolean()) {
          b.deduplicationId("d-" + text(r));
        }
        if (r.nextBoolean()) {
          b.delay(Duration.ofSeconds(r.nextInt(900)));
        }
        if (r.nextBoolean()) {
          b.timeToLive(Duration.ofSeconds(1 + r.nextInt(86_400)));
        }
        messages.add(b.build());
      }
      assertSame(
          Json.bytes(
              new NativeWire.SendBatch(messages.stream().map(NativeWire.SendMessage::of).toList())),
          StreamedAnswers.sendBatch(messages));
    }
  }

  @Test
  void sendBatchRequest_aDelayOfAFraction_refusedAsTheRecordRefusesIt() {
    List<NewMessage> messages =
        List.of(NewMessage.builder("a").delay(Duration.ofMillis(1500)).build());
    IllegalArgumentException record =
        assertThrows(
            IllegalArgumentException.class, () -> NativeWire.SendMessage.of(messages.getFirst()));
    IllegalArgumentException streamed =
        assertThrows(IllegalArgumentException.class, () -> StreamedAnswers.sendBatch(messages));
    assertEquals(record.getMessage(), streamed.getMessage());
  }

  @Test
  void ackBatchRequest_sameBytesAsTheRecords() {
    Random r = new Random(29);
    for (int round = 0; round < 200; round++) {
      List<String> receipts = new ArrayList<>();
      for (int i = r.nextInt(11); i > 0; i--) {
        receipts.add(text(r) + i);
      }
      assertSame(Json.bytes(new NativeWire.AckBatch(receipts)), StreamedAnswers.ackBatch(receipts));
    }
  }

  private static void assertSame(byte[] expected, byte[] actual) {
    assertEquals(
        new String(expected, StandardCharsets.UTF_8), new String(actual, StandardCharsets.UTF_8));
  }

  private static Message message(Random r) {
    Instant sent =
        Instant.ofEpochSecond(1_700_000_000L + r.nextInt(1_000_000), r.nextInt(3) * 1000);
    return new Message(
        "id-" + text(r),
        text(r) + "x".repeat(r.nextInt(200)),
        attributes(r),
        r.nextInt(19) - 9,
        maybe(r, "g-" + text(r)),
        maybe(r, "d-" + text(r)),
        r.nextLong() >>> 1,
        MessageState.values()[r.nextInt(MessageState.values().length)],
        sent,
        r.nextBoolean() ? Optional.empty() : Optional.of(sent.plusMillis(r.nextInt(5000))),
        r.nextInt(5),
        r.nextBoolean() ? Optional.empty() : Optional.of(sent.plusNanos(r.nextInt(1_000_000_000))),
        sent.plusSeconds(345_600),
        maybe(r, "AAAAAAAAAAEAAAAB" + r.nextInt(1000)),
        maybe(r, "dlq-source"));
  }

  private static Map<String, AttributeValue> attributes(Random r) {
    Map<String, AttributeValue> a = new LinkedHashMap<>();
    if (r.nextInt(3) == 0) {
      return a;
    }
    a.put("zeta", AttributeValue.string(text(r)));
    a.put("count", AttributeValue.number(r.nextInt(1000) - 500));
    a.put("exact", AttributeValue.number("-1.50"));
    a.put("exp", AttributeValue.number("1.5e3"));
    a.put("blob", AttributeValue.binary(new byte[] {1, 2, (byte) r.nextInt(256)}));
    a.put("tags", AttributeValue.stringList("billing", text(r)));
    a.put("labelled", new AttributeValue.StringValue("String.uuid", "u-" + r.nextInt(9)));
    return a;
  }

  private static Optional<String> maybe(Random r, String value) {
    return r.nextBoolean() ? Optional.empty() : Optional.of(value);
  }

  private static String text(Random r) {
    return TEXTS[r.nextInt(TEXTS.length)];
  }
}
