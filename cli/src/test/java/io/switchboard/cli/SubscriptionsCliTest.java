package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code switchboard subscriptions ...} against an in-process server. */
class SubscriptionsCliTest {

  private static SwitchboardServer server;

  @BeforeAll
  static void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
  }

  @AfterAll
  static void stop() {
    server.stop();
  }

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--server";
    all[args.length + 1] = server.uri().toString();
    int code =
        Main.run(
            all,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void subscriptions_createListPauseStatsRotateDelete() {
    assertEquals(0, run("queues", "create", "checks", "--order", "lifo").code());
    Run created =
        run(
            "subscriptions",
            "create",
            "checks",
            "validator",
            "--url",
            "http://127.0.0.1:9/validate",
            "--max-concurrent",
            "1",
            "--max-per-second",
            "50",
            "--paused");
    assertEquals(0, created.code(), created.err());
    Matcher secret = Pattern.compile("secret: +(\\S+)").matcher(created.out());
    assertTrue(secret.find(), created.out());

    Run list = run("subscriptions", "list", "checks");
    assertEquals(0, list.code(), list.err());
    assertTrue(list.out().contains("validator") && list.out().contains("50.0"), list.out());
    assertFalse(list.out().contains(secret.group(1)), "the secret is shown once");

    Run stats = run("subscriptions", "stats", "checks", "validator");
    assertTrue(stats.out().contains("state:       paused"), stats.out());

    Run bad =
        run(
            "subscriptions",
            "create",
            "checks",
            "other",
            "--url",
            "http://127.0.0.1:9/",
            "--burst",
            "0");
    assertEquals(ExitCode.REFUSED.code(), bad.code(), bad.err());
    assertTrue(bad.err().contains("burst"), bad.err());

    Run rotated = run("subscriptions", "rotate-secret", "checks", "validator");
    assertEquals(0, rotated.code(), rotated.err());
    assertFalse(rotated.out().contains(secret.group(1)), rotated.out());

    assertEquals(0, run("subscriptions", "delete", "checks", "validator").code());
    assertTrue(run("subscriptions", "list", "checks").out().contains("(no subscriptions)"));
  }
}
