package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
  void tour_showsSkillsRoutingAndAWorkspaceWorkflow_toTheEnd() {
    assertEquals(Main.OK, run("tour"));
    String text = out.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("c1 needs english and billing: offered to a1"), text);
    assertTrue(text.contains("c2 needs billing: queued (a1 is busy, a2 has no billing)"), text);
    assertTrue(text.contains("a1 accepts c1: assigned to a1"), text);
    assertTrue(text.contains("a1 completes c1 after 60 s: c2 offered to a1"), text);
    assertTrue(text.contains("billing contact b1 is queued in queue billing"), text);
    assertTrue(
        text.contains("30 s later b1 moved to queue general (step 1) and is offered to g1"), text);
  }

  @Test
  void completion_printsABashScriptNamingTheCommands() {
    assertEquals(Main.OK, run("completion"));
    String script = out.toString(StandardCharsets.UTF_8);
    assertTrue(script.contains("complete -F _complete_switchboard"), script);
    for (String command :
        List.of("queues", "receive", "agents", "workspaces", "tour", "--server")) {
      assertTrue(script.contains(command), command + " in the script");
    }
  }

  @Test
  void globalOptions_beforeTheCommand_areMovedAfterIt() {
    assertArrayEquals(
        new String[] {"queues", "list", "--server", "http://h:1", "--json"},
        Main.globalOptionsLast(
            new String[] {"--server", "http://h:1", "--json", "queues", "list"}));
    assertArrayEquals(
        new String[] {"send", "q", "--profile=p", "--", "-body"},
        Main.globalOptionsLast(new String[] {"--profile=p", "send", "q", "--", "-body"}));
    String[] after = {"queues", "list", "--server", "http://h:1"};
    assertArrayEquals(after, Main.globalOptionsLast(after));
  }

  @Test
  void unknownCommand_underJson_isAJsonError() {
    assertEquals(Main.USAGE, run("--json", "frobnicate"));
    String text = err.toString(StandardCharsets.UTF_8).strip();
    assertTrue(
        text.startsWith("{") && text.contains("\"code\":\"USAGE\"") && text.contains("frobnicate"),
        text);
  }

  @Test
  void unknownCommand_exitsWithUsageCode() {
    assertEquals(Main.USAGE, run("frobnicate"));
    assertTrue(
        err.toString(StandardCharsets.UTF_8)
            .contains("switchboard: USAGE: unknown command 'frobnicate'"));
  }
}
