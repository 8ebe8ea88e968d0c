package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hand-written id and channel checks accept exactly what their documented patterns do. */
class ChecksTest {

  private static final String ALPHABET = "aZ09_-.:@/ é\u0000A-z";

  @Test
  void idAndChannelChecks_agreeWithTheirPatterns() {
    Random random = new Random(11);
    for (int i = 0; i < 100_000; i++) {
      int length = random.nextInt(10) == 0 ? 60 + random.nextInt(80) : random.nextInt(6);
      StringBuilder b = new StringBuilder();
      for (int j = 0; j < length; j++) {
        b.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
      }
      String s = b.toString();
      assertEquals(Checks.ID.matcher(s).matches(), Checks.isId(s), "id '" + s + "'");
      assertEquals(Checks.CHANNEL.matcher(s).matches(), Checks.isChannel(s), "channel '" + s + "'");
    }
  }
}
