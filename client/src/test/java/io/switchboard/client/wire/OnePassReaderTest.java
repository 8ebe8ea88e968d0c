package io.switchboard.client.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link NativeWire.Messages#read} gives what the lenient binding gives, and {@link
 * NativeWire.SendBatch#read} and {@link NativeWire.AckBatch#read} what the strict binding gives,
 * result or error, for the bodies the two ends write and for every shape the one-pass reader leaves
 * to the binding.
 */
class OnePassReaderTest {

  @Test
  void theServersAnswers_readInOnePass_asTheBindingReadsThem() {
    Random r = new Random(19);
    for (int round = 0; round < 1_000; round++) {
      List<Message> messages = new ArrayList<>();
      for (int i = r.nextInt(11); i > 0; i--) {
        Instant sent = Instant.ofEpochSecond(1_700_000_000L + r.nextInt(100_000), r.nextInt(1000));
        messages.add(
            new Message(
                "m-" + r.nextInt(),
                "body \" \\ é 🚀 " + "x".repeat(r.nextInt(120)),
                Map.of(),
                r.nextInt(19) - 9,
                r.nextBoolean() ? Optional.empty() : Optional.of("g" + i),
                r.nextBoolean() ? Optional.empty() : Optional.of("d" + i),
                r.nextLong() >>> 1,
                MessageState.values()[r.nextInt(MessageState.values().length)],
                sent,
                r.nextBoolean() ? Optional.empty() : Optional.of(sent.plusMillis(5)),
                r.nextInt(4),
                r.nextBoolean() ? Optional.empty() : Optional.of(sent.plusSeconds(30)),
                sent.plusSeconds(345_600),
                r.nextBoolean() ? Optional.empty() : Optional.of("AAAAAAAAAAEAAAAB" + i),
                Optional.empty()));
      }
      Optional<String> cursor = r.nextBoolean() ? Optional.empty() : Optional.of("c" + round);
      byte[] answer = StreamedAnswers.messages(messages, cursor);
      assertNotNull(OnePassReader.messages(answer), "the plain shape is read in one pass");
      assertEquals(
          Json.lenient(answer, NativeWire.Messages.class), NativeWire.Messages.read(answer));
      assertEquals(messages, NativeWire.Messages.read(answer).toMessages());
    }
  }

  @Test
  void attributes_areLeftToTheBinding_withTheSameResult() {
    Message m =
        new Message(
            "m",
            "b",
            Map.of("n", AttributeValue.number(5), "s", AttributeValue.string("x")),
            0,
            Optional.empty(),
            Optional.empty(),
            1,
            MessageState.IN_FLIGHT,
            Instant.EPOCH,
            Optional.empty(),
            1,
            Optional.empty(),
            Instant.EPOCH,
            Optional.of("r"),
            Optional.empty());
    byte[] answer = StreamedAnswers.messages(List.of(m), Optional.empty());
    assertNull(OnePassReader.messages(answer));
    assertEquals(List.of(m), NativeWire.Messages.read(answer).toMessages());
  }

  @Test
  void everyOtherShape_readsOrFailsExactlyAsTheBinding() {
    String[] answers = {
      "{\"messages\":[{\"id\":\"a\",\"body\":\"b\",\"id\":\"c\"}]}", // a repeated field
      "{\"messages\":[{\"id\":\"a\",\"body\":\"b\",\"newField\":{\"x\":[1,2]}}]}", // unknown
      "{\"messages\":[],\"later\":1}", // an unknown field at the top
      "{\"messages\":[{\"id\":\"a\"}]}", // no body
      "{\"messages\":[{\"id\":\"a\",\"body\":null}]}",
      "{\"messages\":[{\"id\":\"a\",\"body\":\"b\",\"groupId\":null}]}",
      "{\"messages\":[{\"id\":\"a\",\"body\":\"b\",\"priority\":\"5\"}]}",
      "{\"messages\":[{\"id\":\"a\",\"body\":\"b\",\"priority\":5.0}]}",
      "{\"messages\":[{\"id\":\"a\",\"body\":\"b\",\"priority\":3000000000}]}",
      "{\"messages\":[{\"id\":\"a\",\"body\":\"b\",\"sequence\":99999999999999999999}]}",
      "{\"messages\":[{\"id\":\"a\",\"body\":\"b\",\"receiveCount\":true}]}",
      "{\"messages\":[{\"id\":7,\"body\":\"b\"}]}",
      "{\"messages\":[{\"id\":\"a\",\"body\":\"b\",\"state\":\"nonsense\"}]}",
      "{\"messages\":[{\"id\":\"a\",\"body\":\"b\",\"sentAt\":\"yesterday\"}]}",
      "{\"messages\":[{\"id\":\"a\",\"body\":\"b\",\"attributes\":[]}]}",
      "{\"messages\":[{\"id\":\"a\",\"body\":\"b\",\"attributes\":{\"k\":1,\"k\":2}}]}",
      "{\"messages\":[{\"id\":\"a\",\"body\":\"b\"},7]}",
      "{\"messages\":{}}",
      "{\"messages\":[],\"messages\":[]}",
      "{\"messages\":[],\"nextCursor\":5}",
      "{\"nextCursor\":\"c\"}",
      "{}",
      "{\"messages\":[]} {}",
      "{\"messages\":[]",
      "[]",
      "",
      "  {\"messages\":[{\"id\":\"a\",\"body\":\"b\"}]}  ",
    };
    for (String text : answers) {
      byte[] answer = text.getBytes(StandardCharsets.UTF_8);
      assertEquals(outcome(() -> bound(answer)), outcome(() -> read(answer)), text);
    }
  }

  @Test
  void sendBatchRequests_readInOnePass_asTheStrictBindingReadsThem() {
    Random r = new Random(31);
    for (int round = 0; round < 1_000; round++) {
      List<NewMessage> messages = new ArrayList<>();
      for (int i = r.nextInt(11); i > 0; i--) {
        NewMessage.Builder b = NewMessage.builder("é \" \\ " + "x".repeat(r.nextInt(100)));
        if (r.nextBoolean()) {
          b.priority(r.nextInt(19) - 9);
        }
        if (r.nextBoolean()) {
          b.groupId("g" + i);
        }
        if (r.nextBoolean()) {
          b.deduplicationId("d" + i);
        }
        if (r.nextBoolean()) {
          b.delay(Duration.ofSeconds(r.nextInt(900)));
        }
        if (r.nextBoolean()) {
          b.timeToLive(Duration.ofSeconds(1 + r.nextInt(86_400)));
        }
        if (r.nextInt(10) == 0) {
          b.attribute("k", AttributeValue.string("v")); // left to the binding
        }
        messages.add(b.build());
      }
      byte[] body = StreamedAnswers.sendBatch(messages);
      assertEquals(
          Json.strict(body, "request body", NativeWire.SendBatch.class),
          NativeWire.SendBatch.read(body, "request body"));
    }
  }

  @Test
  void everyOtherRequestShape_readsOrIsRefusedExactlyAsTheStrictBinding() {
    String[] sends = {
      "{\"messages\":[{\"body\":\"a\",\"body\":\"b\"}]}",
      "{\"messages\":[{\"body\":\"a\",\"extra\":1}]}",
      "{\"messages\":[{\"body\":\"a\"}],\"extra\":1}",
      "{\"messages\":[{\"body\":\"a\"}],\"messages\":[]}",
      "{\"messages\":[{\"priority\":1}]}",
      "{\"messages\":[{\"body\":null}]}",
      "{\"messages\":[{\"body\":\"a\",\"groupId\":null}]}",
      "{\"messages\":[{\"body\":5}]}",
      "{\"messages\":[{\"body\":\"a\",\"priority\":\"5\"}]}",
      "{\"messages\":[{\"body\":\"a\",\"priority\":1.0}]}",
      "{\"messages\":[{\"body\":\"a\",\"priority\":3000000000}]}",
      "{\"messages\":[{\"body\":\"a\",\"delaySeconds\":99999999999999999999}]}",
      "{\"messages\":[{\"body\":\"a\",\"delaySeconds\":-1}]}",
      "{\"messages\":[{\"body\":\"a\",\"attributes\":{}}]}",
      "{\"messages\":[{\"body\":\"a\",\"attributes\":[]}]}",
      "{\"messages\":[{\"body\":\"a\",\"attributes\":{\"k\":\"v\",\"k\":\"w\"}}]}",
      "{\"messages\":[{\"body\":\"a\"},null]}",
      "{\"messages\":[{\"body\":\"a\"},7]}",
      "{\"messages\":[]}",
      "{\"messages\":null}",
      "{\"messages\":{}}",
      "{}",
      "[]",
      "",
      "{\"messages\":[{\"body\":\"a\"}]} x",
      "{\"messages\":[{\"body\":\"a\"}]",
      " {\"messages\":[{\"body\":\"a\"}]} ",
    };
    for (String text : sends) {
      byte[] body = text.getBytes(StandardCharsets.UTF_8);
      assertEquals(
          outcome(() -> Json.strict(body, "request body", NativeWire.SendBatch.class)),
          outcome(() -> NativeWire.SendBatch.read(body, "request body")),
          text);
    }
    String[] acks = {
      "{\"receipts\":[\"a\",\"b\"]}",
      "{\"receipts\":[]}",
      "{\"receipts\":[\"a\",null]}",
      "{\"receipts\":[\"a\",7]}",
      "{\"receipts\":\"a\"}",
      "{\"receipts\":[\"a\"],\"x\":1}",
      "{\"receipts\":[\"a\"],\"receipts\":[\"b\"]}",
      "{\"x\":1}",
      "{}",
      "{\"receipts\":[\"a\"]} []",
      "{\"receipts\":[\"a\"",
    };
    for (String text : acks) {
      byte[] body = text.getBytes(StandardCharsets.UTF_8);
      assertEquals(
          outcome(() -> Json.strict(body, "request body", NativeWire.AckBatch.class)),
          outcome(() -> NativeWire.AckBatch.read(body, "request body")),
          text);
    }
  }

  @Test
  void receiveRequests_readOrAreRefusedExactlyAsTheStrictBinding() {
    String[] bodies = {
      "{\"maxMessages\":10,\"waitTimeSeconds\":0}",
      "{\"maxMessages\":10,\"visibilityTimeoutSeconds\":30,\"waitTimeSeconds\":20,"
          + "\"selector\":\"a = 'b'\"}",
      "{}",
      "",
      "  ",
      "{\"maxMessages\":10,\"maxMessages\":1}",
      "{\"maxMessages\":\"10\"}",
      "{\"maxMessages\":10.0}",
      "{\"maxMessages\":null}",
      "{\"maxMessages\":3000000000}",
      "{\"waitTimeSeconds\":-1}",
      "{\"waitTimeSeconds\":99999999999999999999}",
      "{\"selector\":5}",
      "{\"other\":1}",
      "{\"maxMessages\":1} 2",
      "{\"maxMessages\":1",
      "[]",
    };
    for (String text : bodies) {
      byte[] body = text.getBytes(StandardCharsets.UTF_8);
      assertEquals(
          outcome(() -> Json.strict(body, "request body", NativeWire.Receive.class)),
          outcome(() -> NativeWire.Receive.read(body, "request body")),
          text);
    }
  }

  @Test
  void sendAndAckAnswers_readOrFailExactlyAsTheLenientBinding() {
    Random r = new Random(37);
    for (int round = 0; round < 200; round++) {
      List<SendResult> sent = new ArrayList<>();
      List<AckResult> acked = new ArrayList<>();
      for (int i = r.nextInt(11); i > 0; i--) {
        sent.add(new SendResult("id-é-" + i, r.nextLong() >>> 1, r.nextBoolean()));
        acked.add(
            r.nextBoolean()
                ? AckResult.acked("r" + i)
                : AckResult.failed("r" + i, "RECEIPT_STALE", "stale \" " + i));
      }
      byte[] sendAnswer = StreamedAnswers.sendResults(sent);
      byte[] ackAnswer = StreamedAnswers.ackResults(acked);
      assertNotNull(OnePassReader.sendResults(sendAnswer));
      assertNotNull(OnePassReader.ackResults(ackAnswer));
      assertEquals(
          Json.lenient(sendAnswer, NativeWire.SendResults.class),
          NativeWire.SendResults.read(sendAnswer));
      assertEquals(
          Json.lenient(ackAnswer, NativeWire.AckResults.class),
          NativeWire.AckResults.read(ackAnswer));
    }
    String[] sends = {
      "{\"results\":[{\"id\":\"a\",\"sequence\":1,\"duplicate\":false,\"new\":1}]}",
      "{\"results\":[{\"id\":\"a\",\"sequence\":1}]}",
      "{\"results\":[{\"id\":\"a\",\"sequence\":1,\"duplicate\":false,\"id\":\"b\"}]}",
      "{\"results\":[{\"id\":null,\"sequence\":1,\"duplicate\":false}]}",
      "{\"results\":[{\"id\":\"a\",\"sequence\":\"1\",\"duplicate\":false}]}",
      "{\"results\":[{\"id\":\"a\",\"sequence\":1,\"duplicate\":0}]}",
      "{\"results\":[],\"more\":1}",
      "{\"results\":[]}",
      "{}",
      "{\"results\":[] ",
    };
    for (String text : sends) {
      byte[] body = text.getBytes(StandardCharsets.UTF_8);
      assertEquals(
          outcome(() -> Json.lenient(body, NativeWire.SendResults.class)),
          outcome(() -> NativeWire.SendResults.read(body)),
          text);
    }
    String[] acks = {
      "{\"results\":[{\"receipt\":\"r\",\"acked\":true,\"new\":[1]}]}",
      "{\"results\":[{\"receipt\":\"r\"}]}",
      "{\"results\":[{\"acked\":true}]}",
      "{\"results\":[{\"receipt\":\"r\",\"acked\":true,\"acked\":false}]}",
      "{\"results\":[{\"receipt\":\"r\",\"acked\":\"yes\"}]}",
      "{\"results\":[{\"receipt\":\"r\",\"acked\":false,\"code\":null}]}",
      "{\"results\":[null]}",
      "{\"results\":7}",
      "[]",
    };
    for (String text : acks) {
      byte[] body = text.getBytes(StandardCharsets.UTF_8);
      assertEquals(
          outcome(() -> Json.lenient(body, NativeWire.AckResults.class)),
          outcome(() -> NativeWire.AckResults.read(body)),
          text);
    }
  }

  private static List<Message> bound(byte[] answer) {
    return Json.lenient(answer, NativeWire.Messages.class).toMessages();
  }

  private static List<Message> read(byte[] answer) {
    return NativeWire.Messages.read(answer).toMessages();
  }

  /** The result, or the error's class and text. */
  private static String outcome(java.util.function.Supplier<?> read) {
    try {
      return "read " + read.get();
    } catch (RuntimeException e) {
      return "failed " + e.getClass().getName() + ": " + e.getMessage();
    }
  }
}
