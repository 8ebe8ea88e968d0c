package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code switchboard keys create|list|revoke} against an in-process server. */
class KeysCliTest {

  private static SwitchboardServer server;

  @BeforeAll
  static void start() {
    server =
        SwitchboardServer.start(
            ServerConfig.forTests()
                .with(
                    Settings.ACCESS_KEYS,
                    io.switchboard.server.auth.AccessKeys.parse("AKADMIN:admin-secret")));
  }

  @AfterAll
  static void stop() {
    server.stop();
  }

  private record Run(int code, String out, String err) {}

  /** Runs the CLI as the admin key. */
  private static Run run(String... args) {
    return runAs("AKADMIN", "admin-secret", args);
  }

  private static Run runAs(String accessKey, String secretKey, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] all = new String[args.length + 6];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--server";
    all[args.length + 1] = server.uri().toString();
    all[args.length + 2] = "--access-key";
    all[args.length + 3] = accessKey;
    all[args.length + 4] = "--secret-key";
    all[args.length + 5] = secretKey;
    int code =
        Main.run(
            all,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void keys_createListRevoke() {
    Run created =
        run("keys", "create", "--name", "worker", "--grant", "queue:receive,queue:send=orders-*");
    assertEquals(0, created.code(), created.err());
    Matcher id = Pattern.compile("access key id: +(\\S+)").matcher(created.out());
    Matcher secret = Pattern.compile("secret access key: +(\\S+)").matcher(created.out());
    assertTrue(id.find() && secret.find(), created.out());

    Run list = run("keys", "list");
    assertEquals(0, list.code(), list.err());
    assertTrue(list.out().contains(id.group(1)));
    // a grant's actions are shown in their canonical order, whatever order they were given in
    assertTrue(list.out().contains("queue:send,queue:receive=orders-*"), list.out());
    assertTrue(list.out().contains("AKADMIN") && list.out().contains("configured"), list.out());
    assertFalse(list.out().contains(secret.group(1)));

    Run notAdmin = runAs(id.group(1), secret.group(1), "keys", "list");
    assertEquals(Main.DENIED, notAdmin.code(), "only admin lists keys: " + notAdmin.out());
    assertTrue(notAdmin.err().contains("FORBIDDEN"), notAdmin.err());
    Run wrongSecret = runAs("AKADMIN", "not-the-secret", "keys", "list");
    assertTrue(wrongSecret.err().contains("UNAUTHENTICATED"), wrongSecret.err());
    assertEquals(Main.DENIED, wrongSecret.code(), wrongSecret.err());

    assertEquals(0, run("keys", "revoke", id.group(1)).code());
    Run again = run("keys", "revoke", id.group(1));
    assertEquals(Main.NOT_FOUND, again.code());
    assertTrue(again.err().contains("KEY_NOT_FOUND"), again.err());
  }

  @Test
  void keys_badGrant_refusedSayingTheShape() {
    Run bad = run("keys", "create", "--grant", "queue:send");
    assertEquals(Main.REFUSED, bad.code());
    assertTrue(bad.err().contains("ACTIONS=RESOURCE"), bad.err());
    Run unknown = run("keys", "create", "--grant", "queue:all=*");
    assertEquals(Main.REFUSED, unknown.code());
    assertTrue(unknown.err().contains("queue:all"), unknown.err());
  }
}
