package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void tour_walksEverySeedWithTheRightOutcomes() {
    assertEquals(Main.OK, run("tour"));
    String text = out.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("Spanish-speaking male agent: luis"), text);
    assertTrue(text.contains("C raised to priority 10 while queued; next out: shipment-C"), text);
    assertTrue(text.contains("A touched to the back; next out: shipment-B"), text);
    assertTrue(text.contains("A went to the dead-letter queue: available"), text);
    assertTrue(text.contains("restored, A is back: available"), text);
    assertTrue(text.contains("shed (oldest first): 2"), text);
    assertTrue(text.contains("50 s later: expired 2, left 1; newest first: connection-5"), text);
    assertTrue(text.contains("consumer 1 gets [A1, A2, A3, A4, A5, A6, A7, A8, A9, A10]"), text);
    assertTrue(text.contains("consumer 2 gets [B1, B2, B3, B4, B5, B6, B7, B8, B9, B10]"), text);
    assertTrue(text.contains("while B is in flight: [A11]"), text);
  }

  @Test
  void unknownCommand_exitsWithUsageCode() {
    assertEquals(Main.USAGE, run("frobnicate"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown command 'frobnicate'"));
  }
}
