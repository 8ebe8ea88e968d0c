package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.WireFormat;
import io.switchboard.server.ServerConfig;
import io.switchboard.server.SwitchboardServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The client commands, run in-process against an in-process server. */
class CliTest {

  private static SwitchboardServer server;
  private static String url;

  @BeforeAll
  static void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    url = server.uri().toString();
  }

  @AfterAll
  static void stop() {
    server.stop();
  }

  private record Run(int code, String out, String err) {
    JsonNode json() {
      return WireFormat.parse(out.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--server";
    all[args.length + 1] = url;
    int code =
        Main.run(
            all,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void queues_createListShowPurgeDelete() {
    Run created = run("queues", "create", "cli-q", "--order", "lifo", "--visibility-timeout", "60");
    assertEquals(Main.OK, created.code(), created.toString());
    assertTrue(created.out().contains("cli-q"), created.out());
    assertTrue(run("queues", "list").out().contains("cli-q"));
    Run show = run("queues", "show", "cli-q", "--json");
    assertEquals("lifo", show.json().at("/config/order").asText(), show.out());
    run("send", "cli-q", "one");
    assertTrue(run("queues", "purge", "cli-q").out().contains("purged 1"));
    assertEquals(Main.OK, run("queues", "delete", "cli-q").code());
    Run gone = run("queues", "show", "cli-q");
    assertEquals(Main.NOT_FOUND, gone.code());
    assertTrue(gone.err().contains("QUEUE_NOT_FOUND"), gone.err());
  }

  @Test
  void sendReceiveWithFilterAndAck() {
    run("queues", "create", "cli-agents");
    run("send", "cli-agents", "ana", "-a", "language=es", "-a", "gender=F");
    Run luis =
        run(
            "send",
            "cli-agents",
            "luis",
            "-a",
            "language=es",
            "-a",
            "gender=M",
            "-l",
            "skills=billing,vip",
            "--json");
    String id = luis.json().get("id").asText();
    Run got =
        run("receive", "cli-agents", "--filter", "language = 'es' AND skills HAS 'vip'", "--json");
    assertEquals(Main.OK, got.code(), got.toString());
    assertEquals(id, got.json().at("/messages/0/id").asText());
    String receipt = got.json().at("/messages/0/receipt").asText();
    assertEquals(Main.OK, run("ack", "cli-agents", receipt).code());

    Run table = run("receive", "cli-agents", "--ack", "--wait", "1");
    assertTrue(table.out().contains("ana"), table.out());
    assertTrue(table.out().contains("acknowledged 1"), table.out());
    Run empty = run("receive", "cli-agents", "--wait", "0");
    assertTrue(empty.out().contains("(no messages)"), empty.out());
  }

  @Test
  void releaseBrowseStats_andConflictExitCode() {
    run("queues", "create", "cli-prio");
    run("send", "cli-prio", "low", "-p", "1");
    run("send", "cli-prio", "high", "-p", "9", "-n", "weight=2.5");
    Run browse = run("browse", "cli-prio");
    assertTrue(browse.out().indexOf("high") < browse.out().indexOf("low"), browse.out());
    assertTrue(browse.out().contains("weight=2.5"), browse.out());

    String r1 = run("receive", "cli-prio", "--json").json().at("/messages/0/receipt").asText();
    assertEquals(Main.OK, run("release", "cli-prio", r1, "--to-back").code());
    run("receive", "cli-prio", "--max", "2");
    Run stale = run("ack", "cli-prio", r1);
    assertEquals(Main.CONFLICT, stale.code(), stale.toString());
    assertTrue(stale.err().contains("RECEIPT_STALE"), stale.err());

    Run stats = run("stats", "cli-prio");
    assertTrue(stats.out().contains("IN FLIGHT"), stats.out());
    assertEquals(2, run("stats", "cli-prio", "--json").json().get("inFlight").asInt());
  }

  @Test
  void badInput_andUnreachableServer_haveDocumentedExitCodes() {
    run("queues", "create", "cli-bad");
    Run badSelector = run("receive", "cli-bad", "--filter", "((");
    assertEquals(Main.REFUSED, badSelector.code(), badSelector.toString());
    Run badFlag = run("receive", "cli-bad", "--frobnicate");
    assertEquals(Main.USAGE, badFlag.code());

    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"queues", "list", "--server", "http://127.0.0.1:1"},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(Main.UNAVAILABLE, code);
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("UNREACHABLE"));
  }

  @Test
  void server_onADataDirectoryInUse_explainsAndExits(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
    try (var held =
        io.switchboard.storage.rocksdb.RocksJournal.open(
            dir, io.switchboard.storage.rocksdb.Durability.sync())) {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code =
          Main.run(
              new String[] {"server", "--port", "0", "--data-dir", dir.toString()},
              new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      assertEquals(Main.USAGE, code);
      assertTrue(
          err.toString(StandardCharsets.UTF_8).contains("in use by another Switchboard process"),
          err.toString(StandardCharsets.UTF_8));
    }
  }
}
