package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.StartupException;
import io.switchboard.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Routing workspaces on servers sharing a PostgreSQL database (docs/deploy.md, "Routing across
 * servers"): a workspace created through a follower is created on the leader and served by either
 * server; when the leader dies, the other server takes over with the workspace's agents (in their
 * activities), its waiting contacts (queue, arrival) and rising reservation ids; an init file's
 * workspaces are applied by the leader at start, and by a server that started as a follower once it
 * takes the lease. Waits are bounded polls of a condition, never fixed sleeps.
 */
class PostgresWorkspacesTest {

  private static final String ROUTED_BY = "X-Switchboard-Routed-By";
  private static final Duration WAIT = Duration.ofSeconds(20);

  private static final String CENTRE =
      "{\"name\":\"centre\",\"activities\":[{\"name\":\"Ready\",\"available\":true},"
          + "{\"name\":\"Lunch\",\"available\":false},{\"name\":\"offline\",\"available\":false}]}";

  private static int databases;

  @TempDir Path dir;

  /** The settings of servers on a database of their own, plus {@code extra}. */
  private static Map<String, String> freshDatabase(String lease) throws Exception {
    String name = "workspaces_" + (++databases);
    String url = SharedPostgres.database(name);
    Map<String, String> settings = new HashMap<>();
    settings.put("port", "0");
    settings.put("routing-lease", lease);
    settings.put("postgres-url", url);
    settings.put("postgres-user", "postgres");
    settings.put("postgres-password", "postgres");
    return settings;
  }

  private static ServerConfig config(Map<String, String> settings) {
    return ServerConfig.resolve(settings, Map.of());
  }

  private Map<String, String> withInit(Map<String, String> settings, String yaml) throws Exception {
    Path file = dir.resolve("init-" + System.nanoTime() + ".yaml");
    Files.writeString(file, yaml);
    Map<String, String> with = new HashMap<>(settings);
    with.put("init", file.toString());
    return with;
  }

  @Test
  void workspaceThroughTheFollower_survivesTheLeadersDeath_agentsContactsAndRisingIds()
      throws Exception {
    ServerConfig config = config(freshDatabase("2s"));
    SwitchboardServer one = SwitchboardServer.start(config);
    SwitchboardServer two = SwitchboardServer.start(config);
    try (Http b = new Http(two.uri())) {
      String oneId = one.cluster().orElseThrow().serverId();
      String twoId = two.cluster().orElseThrow().serverId();
      assertTrue(one.cluster().orElseThrow().leading());

      Http.Answer created = b.post("/v1/workspaces", CENTRE);
      assertEquals(201, created.status(), created.toString());
      assertEquals(oneId, created.raw().headers().firstValue(ROUTED_BY).orElseThrow());
      ok(
          200,
          b.send(
              "PUT",
              "/v1/workspaces/centre/task-queues/billing",
              "{\"workerExpression\":\"skills HAS 'billing'\"}"));
      agent(b, "ann", "billing", "Ready");
      agent(b, "bob", "billing", "Lunch");
      JsonNode b1 = ok(201, contact(b, "b1"));
      assertEquals("ann", b1.get("agentId").asText());
      String offer = b1.get("reservationId").asText();
      JsonNode b2 = ok(201, contact(b, "b2"));
      assertEquals("queued", b2.get("state").asText());

      one.halt(); // dies: no lease released, nothing more written
      Await.until(
          () -> twoId.equals(routedBy(b.get("/v1/workspaces/centre"))),
          "the follower takes over the workspaces",
          WAIT);

      JsonNode ws = ok(200, b.get("/v1/workspaces/centre"));
      assertEquals("billing", ws.at("/taskQueues/0/name").asText(), ws.toString());
      assertEquals(
          "Ready", ok(200, b.get("/v1/workspaces/centre/agents/ann")).get("activity").asText());
      assertEquals(
          "Lunch", ok(200, b.get("/v1/workspaces/centre/agents/bob")).get("activity").asText());
      JsonNode waiting = ok(200, b.get("/v1/workspaces/centre/contacts/b2"));
      assertEquals("queued", waiting.get("state").asText());
      assertEquals("billing", waiting.get("queue").asText());
      assertEquals(b2.get("createdAt"), waiting.get("createdAt"), "the arrival is kept");
      JsonNode offered = ok(200, b.get("/v1/workspaces/centre/contacts/b1"));
      assertEquals(offer, offered.get("reservationId").asText());
      assertEquals(404, b.get("/v1/routing/agents/ann").status(), "default has its own agents");

      // routing resumes in the workspace, with a reservation id the dead leader never showed
      ok(
          200,
          b.send("PUT", "/v1/workspaces/centre/agents/bob/activity", "{\"activity\":\"Ready\"}"));
      JsonNode b2now = ok(200, b.get("/v1/workspaces/centre/contacts/b2"));
      assertEquals("bob", b2now.get("agentId").asText());
      String fresh = b2now.get("reservationId").asText();
      assertTrue(number(fresh) > number(offer), fresh + " after " + offer);
    } finally {
      two.stop();
      one.stop();
    }
  }

  private static final String INIT =
      """
      workspaces:
        night:
          activities:
            - {name: Ready, available: true}
            - {name: offline, available: false}
          taskQueues:
            urgent: {}
          agents:
            nia: {capacity: {voice: 1}, activity: Ready}
      """;

  @Test
  void initFile_leaderAppliesItsWorkspacesAtStart_aFollowerWhenItTakesTheLease() throws Exception {
    Map<String, String> settings = freshDatabase("10s");
    SwitchboardServer one = SwitchboardServer.start(config(withInit(settings, INIT)));
    SwitchboardServer two =
        SwitchboardServer.start(
            config(withInit(settings, INIT.replace("night", "day").replace("nia", "dan"))));
    try (Http a = new Http(one.uri());
        Http b = new Http(two.uri())) {
      assertTrue(one.cluster().orElseThrow().leading());
      JsonNode night = ok(200, b.get("/v1/workspaces/night"));
      assertEquals("urgent", night.at("/taskQueues/0/name").asText(), night.toString());
      assertEquals(
          "Ready", ok(200, a.get("/v1/workspaces/night/agents/nia")).get("activity").asText());
      assertEquals(
          404, a.get("/v1/workspaces/day").status(), "a follower leaves them to the leader");

      one.stop(); // hands over: the follower takes the lease and applies its own file
      String twoId = two.cluster().orElseThrow().serverId();
      Await.until(
          () -> {
            Http.Answer day = b.get("/v1/workspaces/day/agents/dan");
            return day.status() == 200 && twoId.equals(routedBy(day));
          },
          "the new leader applies its init file's workspaces",
          WAIT);
      assertEquals(200, b.get("/v1/workspaces/night/agents/nia").status(), "night is kept");
      assertFalse(one.cluster().orElseThrow().leading());
    } finally {
      two.stop();
      one.stop();
    }
  }

  @Test
  void initFile_refusedOnTheLeader_stopsTheStart_andReleasesTheLease() throws Exception {
    Map<String, String> settings = freshDatabase("30s");
    String nap = INIT.replace("activity: Ready", "activity: Nap");
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> SwitchboardServer.start(config(withInit(settings, nap))).stop());
    assertTrue(e.getMessage().startsWith("init file "), e.getMessage());
    assertTrue(e.getMessage().contains("agent 'nia' cannot be created"), e.getMessage());
    // the lease was given back: the next server leads at once, not after 30 s
    try (SwitchboardServer next = SwitchboardServer.start(config(settings));
        Http h = new Http(next.uri())) {
      assertTrue(next.cluster().orElseThrow().leading());
      JsonNode night = ok(200, h.get("/v1/workspaces/night"));
      assertEquals("urgent", night.at("/taskQueues/0/name").asText(), "applied before the refusal");
      assertEquals(404, h.get("/v1/workspaces/night/agents/nia").status());
    }
  }

  // ---- helpers -----------------------------------------------------------------------------

  private static JsonNode ok(int status, Http.Answer a) {
    assertEquals(status, a.status(), a.toString());
    return a.json();
  }

  private static void agent(Http h, String id, String skill, String activity) {
    ok(
        201,
        h.post(
            "/v1/workspaces/centre/agents",
            "{\"id\":\""
                + id
                + "\",\"attributes\":{\"skills\":[\""
                + skill
                + "\"]},\"capacity\":{\"voice\":1},\"activity\":\""
                + activity
                + "\"}"));
  }

  private static Http.Answer contact(Http h, String id) {
    return h.post(
        "/v1/workspaces/centre/contacts",
        "{\"id\":\"" + id + "\",\"channel\":\"voice\",\"queue\":\"billing\"}");
  }

  private static String routedBy(Http.Answer a) {
    return a.raw().headers().firstValue(ROUTED_BY).orElse("");
  }

  private static long number(String reservationId) {
    return Long.parseLong(reservationId.substring(reservationId.lastIndexOf('-') + 1));
  }
}
