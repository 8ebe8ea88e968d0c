package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.cli.CliServer.Run;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The routing commands, in-process against an in-process server: seed 004 and errors. */
class RoutingCliTest {

  private SwitchboardServer server;

  @BeforeEach
  void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
  }

  @AfterEach
  void stop() {
    server.stop();
  }

  private Run run(String... args) {
    return CliServer.run(server, args);
  }

  private Run ok(String... args) {
    Run r = run(args);
    assertEquals(Main.OK, r.code(), r.toString());
    return r;
  }

  @Test
  void seed004_throughTheCli() {
    ok(
        "agents",
        "create",
        "a1",
        "-l",
        "skills=english,billing",
        "-c",
        "voice=1",
        "--presence",
        "available");
    ok(
        "agents",
        "create",
        "a2",
        "-l",
        "skills=english",
        "-c",
        "voice=1",
        "--presence",
        "available");
    Run table = ok("agents", "list", "--selector", "skills HAS 'billing'");
    assertTrue(table.out().startsWith("AGENT"), table.out());
    assertTrue(table.out().contains("a1") && !table.out().contains("a2"), table.out());

    Run c1 =
        ok(
            "contacts",
            "create",
            "c1",
            "voice",
            "-r",
            "skills HAS ALL ('english', 'billing')",
            "--json");
    assertEquals("a1", c1.json().get("agentId").asText(), c1.out());
    Run c2 = ok("contacts", "create", "c2", "voice", "-r", "skills HAS 'billing'", "--json");
    assertEquals("queued", c2.json().get("state").asText());

    Run accepted = ok("reservations", "accept", c1.json().get("reservationId").asText());
    assertTrue(accepted.out().contains("assigned"), accepted.out());
    Run done = ok("contacts", "complete", "c1", "--wrap-up", "0", "--json");
    assertEquals("completed", done.json().get("state").asText());
    Run served = ok("contacts", "show", "c2", "--json");
    assertEquals("a1", served.json().get("agentId").asText(), served.out());
    Run rejected = ok("reservations", "reject", served.json().get("reservationId").asText());
    assertTrue(rejected.out().contains("c2"), rejected.out());

    // the rest period after a reject: c2 is not offered to a1 again at once
    Run shown = ok("agents", "show", "a1");
    assertTrue(!shown.out().contains("offered c2"), shown.out());
    assertEquals("queued", ok("contacts", "show", "c2", "--json").json().get("state").asText());
    ok("contacts", "abandon", "c2");
    Run away = ok("agents", "presence", "a1", "away", "--reason", "lunch", "--json");
    assertEquals("lunch", away.json().get("reason").asText());
    Run stats = ok("routing", "stats");
    assertTrue(stats.out().contains("agents: offline 0, available 1, away 1"), stats.out());
    assertEquals(1, ok("routing", "stats", "--json").json().at("/overall/answered").asInt());
    ok("agents", "delete", "a2");
  }

  @Test
  void errors_mapToExitCodesAndNameTheCode() {
    Run unknown = run("agents", "show", "nobody");
    assertEquals(Main.NOT_FOUND, unknown.code());
    assertTrue(unknown.err().contains("AGENT_NOT_FOUND"), unknown.err());
    Run selector = run("contacts", "create", "c", "voice", "-r", "skills HAS");
    assertEquals(Main.REFUSED, selector.code());
    assertTrue(selector.err().contains("INVALID_SELECTOR"), selector.err());
    Run negative = run("agents", "create", "n", "-c", "voice=-1");
    assertEquals(Main.REFUSED, negative.code(), negative.toString());
    Run expired = run("reservations", "accept", "res-9");
    assertEquals(Main.NOT_FOUND, expired.code());
    assertTrue(expired.err().contains("RESERVATION_NOT_FOUND"), expired.err());
  }

  @Test
  void statistics_tableAndJson_badInstantIsAUsageError() {
    ok("agents", "create", "a1", "-c", "voice=1", "--presence", "available");
    ok("contacts", "create", "c1", "voice");
    Run table = ok("routing", "statistics");
    assertTrue(table.out().contains("ARRIVED"), table.out());
    assertTrue(table.out().contains("since start"), table.out());
    JsonNode json = ok("routing", "statistics", "--agent", "a1", "--json").json();
    assertEquals(1, json.at("/totals/offered").asInt(), json.toString());
    assertEquals("a1", json.get("agent").asText());
    Run bad = run("routing", "statistics", "--from", "yesterday");
    assertEquals(Main.USAGE, bad.code(), bad.toString());
    assertTrue(bad.err().contains("got 'yesterday'"), bad.err());
    Run unknown = run("routing", "statistics", "--queue", "nope");
    assertTrue(unknown.err().contains("'nope'"), unknown.toString());
  }
}
