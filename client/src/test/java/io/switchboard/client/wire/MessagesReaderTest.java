package io.switchboard.client.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link NativeWire.Messages#read} gives what the lenient binding gives, result or error, for the
 * answers the server writes and for every shape the one-pass reader leaves to the binding.
 */
class MessagesReaderTest {

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
      assertNotNull(MessagesReader.read(answer), "the plain shape is read in one pass");
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
    assertNull(MessagesReader.read(answer));
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

  private static List<Message> bound(byte[] answer) {
    return Json.lenient(answer, NativeWire.Messages.class).toMessages();
  }

  private static List<Message> read(byte[] answer) {
    return NativeWire.Messages.read(answer).toMessages();
  }

  /** The messages, or the error's class and text. */
  private static String outcome(java.util.function.Supplier<List<Message>> read) {
    try {
      return "read " + read.get();
    } catch (RuntimeException e) {
      return "failed " + e.getClass().getName() + ": " + e.getMessage();
    }
  }
}
