package io.switchboard.queue.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The body check of a send reads the UTF-8 bytes eight at a time for a '?' (the mark of an unpaired
 * surrogate that UTF-8 encoding replaced): wherever the surrogate or the '?' falls, in a word or
 * the tail, the answer is the one a character-by-character check gives.
 */
class BodySurrogateCheckTest {

  private static CheckedMessage check(String body) {
    return MessageRules.check(NewMessage.of(body), -1, "q", false, QueueConfig.defaults());
  }

  @Test
  void unpairedSurrogate_atAnyPlaceOfAnyLength_isRefused() {
    for (int length = 1; length <= 40; length++) {
      for (int at = 0; at < length; at++) {
        for (char lone : new char[] {'\ud83d', '\ude80'}) {
          StringBuilder body = new StringBuilder("x".repeat(length));
          body.setCharAt(at, lone);
          QueueException e = assertThrows(QueueException.class, () -> check(body.toString()));
          assertEquals(ErrorCode.INVALID_ARGUMENT, e.code(), body.toString());
        }
      }
    }
  }

  @Test
  void questionMark_atAnyPlaceOfAnyLength_isAcceptedUnchanged() {
    for (int length = 1; length <= 40; length++) {
      for (int at = 0; at < length; at++) {
        StringBuilder body = new StringBuilder("y".repeat(length));
        body.setCharAt(at, '?');
        assertArrayEquals(
            body.toString().getBytes(StandardCharsets.UTF_8), check(body.toString()).body());
      }
    }
  }
}
