package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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

  private static Run runExactly(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void globalOptions_workBeforeAndAfterTheCommand() {
    run("queues", "create", "cli-global");
    Run before = runExactly("--server", url, "--json", "queues", "list");
    assertEquals(Main.OK, before.code(), before.toString());
    assertTrue(before.json().toString().contains("cli-global"), before.out());
    Run after = runExactly("queues", "list", "--json", "--server", url);
    assertEquals(Main.OK, after.code(), after.toString());
    assertEquals(before.json(), after.json());
    Run equals = runExactly("--server=" + url, "stats", "cli-global");
    assertEquals(Main.OK, equals.code(), equals.toString());
  }

  @Test
  void errors_underJson_areOneJsonObjectOnStderr_withCodeStatusAndExit() {
    Run gone = runExactly("--json", "--server", url, "queues", "show", "cli-no-such-queue");
    assertEquals(Main.NOT_FOUND, gone.code());
    assertEquals("", gone.out());
    JsonNode error = WireFormat.parse(gone.err().getBytes(StandardCharsets.UTF_8));
    assertEquals("QUEUE_NOT_FOUND", error.get("code").asText(), gone.err());
    assertEquals(404, error.get("status").asInt(), gone.err());
    assertEquals(Main.NOT_FOUND, error.get("exit").asInt(), gone.err());
    assertTrue(error.get("message").asText().contains("cli-no-such-queue"), gone.err());

    Run badFlag = runExactly("--json", "receive", "q", "--frobnicate");
    assertEquals(Main.USAGE, badFlag.code());
    JsonNode usage = WireFormat.parse(badFlag.err().strip().getBytes(StandardCharsets.UTF_8));
    assertEquals("USAGE", usage.get("code").asText(), badFlag.err());
    assertTrue(usage.get("message").asText().contains("--frobnicate"), badFlag.err());
  }

  @Test
  void queuesList_limit_pagesWithTheCursorItPrints() {
    for (String q : List.of("cli-page-a", "cli-page-b", "cli-page-c")) {
      assertEquals(Main.OK, run("queues", "create", q).code());
    }
    Run first = run("queues", "list", "--prefix", "cli-page-", "--limit", "2", "--json");
    assertEquals(2, first.json().get("queues").size(), first.out());
    assertEquals("cli-page-b", first.json().path("nextCursor").asText(), first.out());
    Run text = run("queues", "list", "--prefix", "cli-page-", "--limit", "2");
    assertTrue(text.out().contains("next page: --cursor cli-page-b"), text.out());
    Run last =
        run(
            "queues",
            "list",
            "--prefix",
            "cli-page-",
            "--limit",
            "2",
            "--cursor",
            "cli-page-b",
            "--json");
    assertEquals("cli-page-c", last.json().at("/queues/0/name").asText(), last.out());
    assertTrue(last.json().path("nextCursor").isMissingNode(), last.out());
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
  void queuesCreate_withAKeyLimit_skipsAGroupAtItsLimit_andABadOneSaysWhy() {
    Run created = run("queues", "create", "cli-tenants", "--key-limit", "1");
    assertEquals(Main.OK, created.code(), created.toString());
    Run show = run("queues", "show", "cli-tenants", "--json");
    assertEquals(1, show.json().at("/config/keyLimit/maxConcurrent").asInt(), show.out());
    run("send", "cli-tenants", "a1", "--group", "acme");
    run("send", "cli-tenants", "a2", "--group", "acme");
    run("send", "cli-tenants", "g1", "--group", "globex");
    Run got = run("receive", "cli-tenants", "--max", "10", "--json");
    assertTrue(got.out().contains("a1") && got.out().contains("g1"), got.out());
    assertFalse(got.out().contains("a2"), "acme is at its limit: " + got.out());
    assertTrue(run("queues", "show", "cli-tenants").out().contains("key-limited 1"));
    Run bad = run("queues", "create", "cli-bad", "--key-limit", "0");
    assertEquals(Main.REFUSED, bad.code(), bad.toString());
    assertTrue(bad.err().contains("keyLimit.maxConcurrent must be 1..120000"), bad.err());
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

  private static String id(Run sent) {
    assertEquals(Main.OK, sent.code(), sent.toString());
    return sent.out().strip();
  }

  private static String firstBody(String queue) {
    return run("browse", queue, "--json").json().at("/messages/0/body").asText();
  }

  @Test
  void byId_updateTouchGetRemove_deadLetterAndRestore() {
    run("queues", "create", "cli-ship-dlq");
    run(
        "queues",
        "create",
        "cli-ship",
        "--dead-letter",
        "cli-ship-dlq",
        "--max-receive-count",
        "3");
    String a = id(run("send", "cli-ship", "shipment-A"));
    String b = id(run("send", "cli-ship", "shipment-B"));
    String c = id(run("send", "cli-ship", "shipment-C"));

    Run raised = run("update", "cli-ship", c, "--priority", "10");
    assertEquals(Main.OK, raised.code(), raised.toString());
    assertTrue(raised.out().contains("priority") && raised.out().contains("10"), raised.out());
    assertEquals("shipment-C", firstBody("cli-ship"));
    Run tagged = run("update", "cli-ship", c, "-a", "region=eu", "-n", "weight=3", "--json");
    assertEquals("eu", tagged.json().at("/attributes/region").asText(), tagged.out());
    assertEquals(10, tagged.json().get("priority").asInt(), "priority kept: " + tagged.out());
    Run cleared = run("update", "cli-ship", c, "--clear-attributes", "--json");
    assertEquals(0, cleared.json().get("attributes").size(), cleared.out());

    assertEquals(Main.OK, run("touch", "cli-ship", a).code());
    Run order = run("browse", "cli-ship");
    assertTrue(
        order.out().indexOf("shipment-C") < order.out().indexOf("shipment-B")
            && order.out().indexOf("shipment-B") < order.out().indexOf("shipment-A"),
        order.out());

    Run got = run("get", "cli-ship", a);
    assertTrue(got.out().contains("available") && got.out().contains("shipment-A"), got.out());

    assertEquals(Main.OK, run("dead-letter", "cli-ship", "--id", a).code());
    Run inDlq = run("get", "cli-ship-dlq", a, "--json");
    assertEquals("cli-ship", inDlq.json().get("deadLetterSource").asText(), inDlq.out());
    Run restored = run("restore", "cli-ship-dlq", a);
    assertEquals(Main.OK, restored.code(), restored.toString());
    assertEquals("available", run("get", "cli-ship", a, "--json").json().get("state").asText());

    assertEquals(Main.OK, run("remove", "cli-ship", b).code());
    Run gone = run("get", "cli-ship", b);
    assertEquals(Main.NOT_FOUND, gone.code(), gone.toString());
    assertTrue(gone.err().contains("MESSAGE_NOT_FOUND"), gone.err());

    assertEquals(Main.USAGE, run("update", "cli-ship", c).code());
    assertEquals(
        Main.USAGE, run("update", "cli-ship", c, "-a", "x=1", "--clear-attributes").code());
    assertEquals(Main.USAGE, run("dead-letter", "cli-ship").code());
    assertEquals(Main.USAGE, run("dead-letter", "cli-ship", "RECEIPT", "--id", c).code());
    Run grouped = run("queues", "create", "cli-g.fifo");
    assertEquals(Main.OK, grouped.code(), grouped.toString());
    String g = id(run("send", "cli-g.fifo", "x", "--group", "G", "--dedup-id", "x1"));
    assertEquals(Main.CONFLICT, run("touch", "cli-g.fifo", g).code());
  }

  @Test
  void leases_extendFailDeadLetter_andBatchAck() {
    run("queues", "create", "cli-work-dlq");
    run("queues", "create", "cli-work", "--dead-letter", "cli-work-dlq");
    run("send", "cli-work", "one");
    String r1 = run("receive", "cli-work", "--json").json().at("/messages/0/receipt").asText();
    Run extended = run("extend", "cli-work", r1, "--visibility", "120");
    assertEquals(Main.OK, extended.code(), extended.toString());
    assertTrue(extended.out().contains("visible again at"), extended.out());
    assertEquals(Main.USAGE, run("extend", "cli-work", r1).code(), "--visibility is required");
    assertEquals(Main.OK, run("dead-letter", "cli-work", r1).code());
    assertEquals(1, run("stats", "cli-work-dlq", "--json").json().get("available").asInt());

    run("send", "cli-work", "two");
    String r2 = run("receive", "cli-work", "--json").json().at("/messages/0/receipt").asText();
    assertEquals(Main.OK, run("fail", "cli-work", r2).code());
    assertEquals(Main.NOT_FOUND, run("fail", "cli-work", r2).code(), "the message is gone");
    assertEquals(0, run("stats", "cli-work", "--json").json().get("depth").asInt());

    for (String body : List.of("a", "b", "c")) {
      run("send", "cli-work", body);
    }
    Run three = run("receive", "cli-work", "--max", "3", "--json");
    List<String> receipts = new ArrayList<>();
    three.json().get("messages").forEach(m -> receipts.add(m.get("receipt").asText()));
    Run batch = run("ack", "cli-work", receipts.get(0), receipts.get(1));
    assertEquals(Main.OK, batch.code(), batch.toString());
    assertTrue(batch.out().contains("acknowledged 2 of 2"), batch.out());
    Run partly = run("ack", "cli-work", receipts.get(2), "garbage", "--json");
    assertEquals(Main.REFUSED, partly.code(), "the failed receipt's exit code: " + partly);
    assertTrue(partly.json().at("/results/0/acked").asBoolean(), partly.out());
    assertEquals("RECEIPT_INVALID", partly.json().at("/results/1/code").asText(), partly.out());
    assertEquals(0, run("stats", "cli-work", "--json").json().get("depth").asInt());
  }

  @Test
  void redrive_startListCancel() {
    run("queues", "create", "cli-rd-dlq");
    run("queues", "create", "cli-rd", "--dead-letter", "cli-rd-dlq");
    for (int i = 0; i < 3; i++) {
      run("dead-letter", "cli-rd", "--id", id(run("send", "cli-rd", "m" + i)));
    }
    Run started = run("redrive", "start", "cli-rd-dlq", "--max-per-second", "1", "--json");
    assertEquals(Main.OK, started.code(), started.toString());
    String task = started.json().get("id").asText();
    Run list = run("redrive", "list", "cli-rd-dlq");
    assertTrue(list.out().contains(task) && list.out().contains("(sources)"), list.out());
    Run cancelled = run("redrive", "cancel", task, "--json");
    assertEquals(Main.OK, cancelled.code(), cancelled.toString());
    assertEquals("cancelled", cancelled.json().get("status").asText(), cancelled.out());
    assertEquals(Main.NOT_FOUND, run("redrive", "cancel", "no-such-task").code());
    Run all = run("redrive", "start", "cli-rd-dlq", "--to", "cli-rd");
    assertEquals(Main.OK, all.code(), all.toString());
    assertTrue(all.out().contains("cli-rd"), all.out());
  }

  @Test
  void badInput_andUnreachableServer_haveDocumentedExitCodes() {
    run("queues", "create", "cli-bad");
    Run badSelector = run("receive", "cli-bad", "--filter", "((");
    assertEquals(Main.REFUSED, badSelector.code(), badSelector.toString());
    assertTrue(
        badSelector.err().startsWith("switchboard: INVALID_SELECTOR: "), badSelector.toString());
    // browse checks its selector here, before any request: the same code, the same prefix
    Run badBrowse = run("browse", "cli-bad", "--filter", "((");
    assertEquals(Main.REFUSED, badBrowse.code(), badBrowse.toString());
    assertTrue(badBrowse.err().startsWith("switchboard: INVALID_SELECTOR: "), badBrowse.toString());
    Run badFlag = run("receive", "cli-bad", "--frobnicate");
    assertEquals(Main.USAGE, badFlag.code());
    assertTrue(badFlag.err().startsWith("switchboard: USAGE: "), badFlag.toString());

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
