package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.cli.CliServer.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code switchboard workspaces ...} against an in-process server. */
class WorkspacesCliTest {

  @RegisterExtension static final CliServer cli = new CliServer();

  @Test
  void workspaces_createShowQueueActivityDelete() {
    Run created =
        cli.run(
            "workspaces",
            "create",
            "centre",
            "--activity",
            "Ready=true",
            "--activity",
            "Lunch=false",
            "--strategy",
            "least-occupied");
    assertEquals(0, created.code(), created.err());
    assertTrue(created.out().contains("least-occupied"), created.out());
    assertTrue(created.out().contains("default:        Ready"), created.out());
    assertTrue(created.out().contains("callback secret: "), created.out());
    Run rotated = cli.run("workspaces", "rotate-callback-secret", "centre");
    assertEquals(0, rotated.code(), rotated.err());
    assertTrue(rotated.out().strip().length() >= 32, rotated.out());
    assertTrue(!created.out().contains(rotated.out().strip()), "a new secret");

    Run queue =
        cli.run("workspaces", "queue", "centre", "billing", "--expression", "skills HAS 'billing'");
    assertEquals(0, queue.code(), queue.err());
    Run activity = cli.run("workspaces", "activity", "centre", "Training");
    assertEquals(0, activity.code(), activity.err());

    Run shown = cli.run("workspaces", "show", "centre");
    assertEquals(0, shown.code(), shown.err());
    assertTrue(shown.out().contains("skills HAS 'billing'"), shown.out());
    assertTrue(shown.out().contains("Training"), shown.out());
    Run list = cli.run("workspaces", "list");
    assertTrue(list.out().contains("centre") && list.out().contains("default"), list.out());

    Run rules =
        cli.run(
            "workspaces",
            "queue",
            "centre",
            "chat",
            "--order",
            "lifo",
            "--strategy",
            "highest:level",
            "--max-reservations",
            "2",
            "--service-level",
            "30",
            "--json");
    assertEquals(0, rules.code(), rules.err());
    assertTrue(
        rules.out().contains("maxReservationsPerAgent") && rules.out().contains("highest:level"),
        rules.out());
    Run stats = cli.run("workspaces", "queue-stats", "centre", "chat");
    assertEquals(0, stats.code(), stats.err());
    assertTrue(stats.out().contains("0 answered (0 within 30 s)"), stats.out());
    Run badRule = cli.run("workspaces", "queue", "centre", "q", "--max-reservations", "0");
    assertTrue(badRule.err().contains("must be 1..100, got 0"), badRule.err());
    Run noStats = cli.run("workspaces", "queue-stats", "centre", "nope");
    assertTrue(noStats.err().contains("TASK_QUEUE_NOT_FOUND"), noStats.err());

    Run bad = cli.run("workspaces", "queue", "centre", "q", "--expression", "skills HAS");
    assertEquals(1, Math.min(bad.code(), 1), bad.out());
    assertTrue(bad.err().contains("INVALID_SELECTOR"), bad.err());

    assertEquals(0, cli.run("workspaces", "delete-queue", "centre", "billing").code());
    assertEquals(0, cli.run("workspaces", "delete", "centre").code());
    Run gone = cli.run("workspaces", "show", "centre");
    assertTrue(gone.err().contains("WORKSPACE_NOT_FOUND"), gone.err());
  }

  @Test
  void workspaces_refusalSettings_atCreationAndByConfigure() {
    Run created =
        cli.run(
            "workspaces",
            "create",
            "desk",
            "--activity",
            "Ready=true",
            "--activity",
            "Lunch=false",
            "--activity",
            "Offline=false",
            "--miss-limit",
            "1",
            "--auto-accept",
            "chat,sms",
            "--rest-period",
            "45",
            "--reject-activity",
            "Lunch");
    assertEquals(0, created.code(), created.err());
    assertTrue(created.out().contains("miss limit:     1"), created.out());
    assertTrue(created.out().contains("auto-accept:    chat,sms"), created.out());
    assertTrue(created.out().contains("rest period:    45 s"), created.out());
    assertTrue(created.out().contains("on reject:      Lunch"), created.out());
    assertTrue(created.out().contains("on miss limit:  Offline"), created.out());

    Run configured =
        cli.run(
            "workspaces",
            "configure",
            "desk",
            "--timeout-activity",
            "Lunch",
            "--stats-window",
            "600",
            "--reject-activity",
            "");
    assertEquals(0, configured.code(), configured.err());
    assertTrue(configured.out().contains("on miss limit:  Lunch"), configured.out());
    assertTrue(configured.out().contains("stats window:   600 s"), configured.out());
    assertTrue(configured.out().contains("on reject:      (stays)"), configured.out());

    Run bad = cli.run("workspaces", "configure", "desk", "--timeout-activity", "Ready");
    assertTrue(bad.err().contains("INVALID_ARGUMENT"), bad.err());
    assertTrue(bad.err().contains("available=false"), bad.err());
    assertEquals(0, cli.run("workspaces", "delete", "desk").code());
  }
}
