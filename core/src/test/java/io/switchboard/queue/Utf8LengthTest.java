package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Regression (the performance round, docs/benchmarks.md): an SQS batch's size check encoded every
 * body to UTF-8 only to count its bytes (and {@code MessageMd5} encoded it again). {@link
 * AttributeValue#utf8Length} counts them, encoding only a string that is not ASCII; it must count
 * what the encoding would.
 */
class Utf8LengthTest {

  @Test
  void bodyEncodedTwiceForItsSize_utf8LengthCountsTheSameBytes() {
    for (String s :
        new String[] {
          "",
          "plain ascii body",
          "é",
          "naïve café",
          "€ and 中文",
          "emoji 😀 pair",
          "x".repeat(1000) + "ü"
        }) {
      assertEquals(s.getBytes(StandardCharsets.UTF_8).length, AttributeValue.utf8Length(s), s);
    }
  }
}
