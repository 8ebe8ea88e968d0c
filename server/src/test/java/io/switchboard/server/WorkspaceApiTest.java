package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.RoutingClient;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.SwitchboardException;
import io.switchboard.client.WorkspacesClient;
import io.switchboard.routing.Activity;
import io.switchboard.routing.Agent;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.Strategy;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.TaskQueueStats;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceSettings;
import io.switchboard.server.config.ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The workspace API over real HTTP (docs/routing.md, "Workspaces, queues and workflows"):
 * workspaces, activities and task queues under {@code /v1/workspaces}, agents and contacts within a
 * workspace, {@code /v1/routing} as the workspace {@code default}, bad input with its code and
 * nothing changed, and a durable server keeping it all across a restart.
 */
class WorkspaceApiTest {

  @TempDir Path dir;

  private static JsonNode ok(int status, Http.Answer a) {
    assertEquals(status, a.status(), a.toString());
    return a.json();
  }

  private static void error(int status, String code, Http.Answer a) {
    assertEquals(status, a.status(), a.toString());
    assertEquals(code, a.code(), a.toString());
    assertFalse(a.json().path("message").asText().isEmpty(), a.toString());
  }

  private SwitchboardServer durable() {
    return SwitchboardServer.start(
        ServerConfig.resolve(Map.of("port", "0", "data-dir", dir.toString()), Map.of()));
  }

  private static final String CENTRE =
      "{\"name\":\"centre\",\"strategy\":\"least-occupied\",\"offerTimeoutSeconds\":10,"
          + "\"activities\":[{\"name\":\"Ready\",\"available\":true},"
          + "{\"name\":\"Lunch\",\"available\":false},{\"name\":\"offline\",\"available\":false}]}";

  /** The centre with a billing queue, an agent of each kind and a waiting billing call. */
  private static void seed(Http http) {
    ok(201, http.post("/v1/workspaces", CENTRE));
    ok(
        200,
        http.send(
            "PUT",
            "/v1/workspaces/centre/task-queues/billing",
            "{\"workerExpression\":\"skills HAS 'billing'\",\"order\":\"lifo\","
                + "\"strategy\":\"highest:level\",\"maxReservationsPerAgent\":2,"
                + "\"serviceLevelThresholdSeconds\":45}"));
    JsonNode gen =
        ok(
            201,
            http.post(
                "/v1/workspaces/centre/agents",
                "{\"id\":\"gen\",\"attributes\":{\"skills\":[\"general\"]},"
                    + "\"capacity\":{\"voice\":1},\"activity\":\"Ready\"}"));
    assertEquals("Ready", gen.get("activity").asText());
    assertEquals("available", gen.get("presence").asText());
    JsonNode call =
        ok(
            201,
            http.post(
                "/v1/workspaces/centre/contacts",
                "{\"id\":\"b1\",\"channel\":\"voice\",\"queue\":\"billing\"}"));
    assertEquals("queued", call.get("state").asText(), "gen does not serve billing");
    assertEquals("billing", call.get("queue").asText());
  }

  @Test
  void refusalSettings_setAtCreationAndByPatch_checked_andKeptAcrossARestart() {
    try (SwitchboardServer server = durable();
        Http http = new Http(server.uri())) {
      JsonNode created =
          ok(
              201,
              http.post(
                  "/v1/workspaces",
                  "{\"name\":\"centre\",\"missLimit\":1,\"autoAccept\":[\"chat\"],"
                      + "\"statsWindowSeconds\":600,\"restPeriodSeconds\":45,"
                      + "\"rejectActivity\":\"Lunch\",\"timeoutActivity\":\"Lunch\","
                      + "\"activities\":[{\"name\":\"Ready\",\"available\":true},"
                      + "{\"name\":\"Lunch\",\"available\":false},"
                      + "{\"name\":\"Offline\",\"available\":false}]}"));
      assertEquals(1, created.get("missLimit").asInt());
      assertEquals("[\"chat\"]", created.get("autoAccept").toString());
      assertEquals(600, created.get("statsWindowSeconds").asInt());
      assertEquals(45, created.get("restPeriodSeconds").asInt());
      assertEquals("Lunch", created.get("rejectActivity").asText());
      assertEquals("Lunch", created.get("timeoutActivity").asText());

      // bad values: a clear message and a stable code, nothing changed
      JsonNode before = ok(200, http.get("/v1/workspaces/centre"));
      Http.Answer available =
          http.send("PATCH", "/v1/workspaces/centre", "{\"timeoutActivity\":\"Ready\"}");
      error(400, "INVALID_ARGUMENT", available);
      assertTrue(available.json().get("message").asText().contains("available=false"));
      Http.Answer unknown =
          http.send("PATCH", "/v1/workspaces/centre", "{\"rejectActivity\":\"Nap\"}");
      error(404, "ACTIVITY_NOT_FOUND", unknown);
      assertTrue(unknown.json().get("message").asText().contains("Ready, Lunch, Offline"));
      Http.Answer rest = http.send("PATCH", "/v1/workspaces/centre", "{\"restPeriodSeconds\":0}");
      error(400, "INVALID_ARGUMENT", rest);
      assertTrue(
          rest.json().get("message").asText().contains("restPeriod must be 1 s..1 h, got 0 s"));
      error(
          400,
          "INVALID_ARGUMENT",
          http.send("PATCH", "/v1/workspaces/centre", "{\"missLimit\":1001}"));
      assertEquals(before, ok(200, http.get("/v1/workspaces/centre")));

      JsonNode patched =
          ok(
              200,
              http.send(
                  "PATCH",
                  "/v1/workspaces/centre",
                  "{\"missLimit\":3,\"restPeriodSeconds\":20,\"rejectActivity\":\"\"}"));
      assertEquals(3, patched.get("missLimit").asInt());
      assertEquals(20, patched.get("restPeriodSeconds").asInt());
      assertFalse(patched.has("rejectActivity"), patched.toString());
    }
    try (SwitchboardServer server = durable();
        Http http = new Http(server.uri())) {
      JsonNode ws = ok(200, http.get("/v1/workspaces/centre"));
      assertEquals(3, ws.get("missLimit").asInt());
      assertEquals(20, ws.get("restPeriodSeconds").asInt());
      assertEquals("Lunch", ws.get("timeoutActivity").asText());
    }
  }

  @Test
  void workspace_lifecycle_activitiesQueuesAgentsAndContacts() {
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        Http http = new Http(server.uri())) {
      seed(http);
      JsonNode ws = ok(200, http.get("/v1/workspaces/centre"));
      assertEquals("least-occupied", ws.get("strategy").asText());
      assertEquals(10, ws.get("offerTimeoutSeconds").asInt());
      assertEquals("offline", ws.get("defaultActivity").asText());
      assertEquals("lifo", ws.at("/taskQueues/0/order").asText());
      JsonNode list = ok(200, http.get("/v1/workspaces"));
      assertEquals("centre", list.at("/workspaces/0/name").asText());
      assertEquals("default", list.at("/workspaces/1/name").asText());

      JsonNode bill =
          ok(
              201,
              http.post(
                  "/v1/workspaces/centre/agents",
                  "{\"id\":\"bill\",\"attributes\":{\"skills\":[\"billing\"]},"
                      + "\"capacity\":{\"voice\":1}}"));
      assertEquals("offline", bill.get("activity").asText(), "the default activity");
      ok(
          200,
          http.send(
              "PUT", "/v1/workspaces/centre/agents/bill/activity", "{\"activity\":\"ready\"}"));
      JsonNode b1 = ok(200, http.get("/v1/workspaces/centre/contacts/b1"));
      assertEquals("bill", b1.get("agentId").asText());
      ok(
          200,
          http.post(
              "/v1/workspaces/centre/reservations/" + b1.get("reservationId").asText() + "/accept",
              ""));
      JsonNode stats = ok(200, http.get("/v1/workspaces/centre/task-queues/billing/stats"));
      assertEquals("billing", stats.get("queue").asText());
      assertEquals(45, stats.get("serviceLevelThresholdSeconds").asInt(), "the queue's own");
      assertEquals(1, stats.get("offered").asInt());
      assertEquals(1, stats.get("accepted").asInt());
      assertEquals(1, stats.get("answered").asInt());
      assertEquals(1, stats.get("answeredWithinThreshold").asInt());
      assertEquals(1.0, stats.get("serviceLevel").asDouble());
      assertEquals(0, stats.get("waiting").asInt());
      assertFalse(stats.has("abandonmentRate"));
      error(
          409,
          "TASK_QUEUE_IN_USE",
          http.send("DELETE", "/v1/workspaces/centre/task-queues/billing", null));
      ok(200, http.post("/v1/workspaces/centre/contacts/b1/complete", ""));
      assertEquals(
          204, http.send("DELETE", "/v1/workspaces/centre/task-queues/billing", null).status());
      error(404, "AGENT_NOT_FOUND", http.get("/v1/routing/agents/bill"));

      JsonNode patched =
          ok(200, http.send("PATCH", "/v1/workspaces/centre", "{\"offerTimeoutSeconds\":20}"));
      assertEquals(20, patched.get("offerTimeoutSeconds").asInt());
      assertEquals("least-occupied", patched.get("strategy").asText());
      assertEquals(
          2,
          ok(200, http.get("/v1/workspaces/centre/agents")).get("agents").size(),
          "agents kept across a settings change");

      assertEquals(204, http.send("DELETE", "/v1/workspaces/centre", null).status());
      error(404, "WORKSPACE_NOT_FOUND", http.get("/v1/workspaces/centre/agents"));
    }
  }

  @Test
  void defaultWorkspace_isTheRoutingOfBefore() {
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        Http http = new Http(server.uri())) {
      ok(
          201,
          http.post(
              "/v1/routing/agents",
              "{\"id\":\"ana\",\"capacity\":{\"voice\":1},\"presence\":\"available\"}"));
      JsonNode ana = ok(200, http.get("/v1/workspaces/default/agents/ana"));
      assertEquals("available", ana.get("activity").asText());
      ok(200, http.send("PUT", "/v1/workspaces/default/task-queues/sales", "{}"));
      JsonNode c =
          ok(
              201,
              http.post(
                  "/v1/routing/contacts",
                  "{\"id\":\"c\",\"channel\":\"voice\",\"queue\":\"sales\"}"));
      assertEquals("ana", c.get("agentId").asText());
      assertEquals("c", ok(200, http.get("/v1/workspaces/default/contacts/c")).get("id").asText());
      JsonNode d = ok(200, http.get("/v1/workspaces/default"));
      assertEquals(3, d.get("activities").size());
      error(409, "INVALID_STATE", http.send("DELETE", "/v1/workspaces/default", null));
      error(
          409,
          "INVALID_STATE",
          http.send("PATCH", "/v1/workspaces/default", "{\"offerTimeoutSeconds\":5}"));
    }
  }

  @Test
  void badInput_clearCodes_nothingChanged() {
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        Http http = new Http(server.uri())) {
      seed(http);
      String before = http.get("/v1/workspaces/centre").text();
      error(
          400,
          "INVALID_SELECTOR",
          http.send(
              "PUT",
              "/v1/workspaces/centre/task-queues/q",
              "{\"workerExpression\":\"skills HAS\"}"));
      error(
          400,
          "INVALID_ARGUMENT",
          http.send("PUT", "/v1/workspaces/centre/task-queues/q", "{\"order\":\"random\"}"));
      error(
          400,
          "INVALID_ARGUMENT",
          http.send("PUT", "/v1/workspaces/centre/task-queues/q", "{\"strategy\":\"random\"}"));
      Http.Answer noAttribute =
          http.send("PUT", "/v1/workspaces/centre/task-queues/q", "{\"strategy\":\"highest:\"}");
      error(400, "INVALID_ARGUMENT", noAttribute);
      assertTrue(noAttribute.text().contains("got ''"), noAttribute.text());
      for (int max : new int[] {0, 101}) {
        Http.Answer out =
            http.send(
                "PUT",
                "/v1/workspaces/centre/task-queues/q",
                "{\"maxReservationsPerAgent\":" + max + "}");
        error(400, "INVALID_ARGUMENT", out);
        assertTrue(out.text().contains("must be 1..100, got " + max), out.text());
      }
      error(404, "TASK_QUEUE_NOT_FOUND", http.get("/v1/workspaces/centre/task-queues/q/stats"));
      error(
          404,
          "ACTIVITY_NOT_FOUND",
          http.send("PUT", "/v1/workspaces/centre/agents/gen/activity", "{\"activity\":\"Nap\"}"));
      error(
          404,
          "TASK_QUEUE_NOT_FOUND",
          http.post(
              "/v1/workspaces/centre/contacts",
              "{\"id\":\"x\",\"channel\":\"voice\",\"queue\":\"nope\"}"));
      error(
          409,
          "TASK_QUEUE_IN_USE",
          http.send("DELETE", "/v1/workspaces/centre/task-queues/billing", null));
      error(
          409,
          "ACTIVITY_IN_USE",
          http.send("DELETE", "/v1/workspaces/centre/activities/Ready", null));
      error(
          400,
          "INVALID_ARGUMENT",
          http.post(
              "/v1/workspaces/centre/agents",
              "{\"id\":\"p\",\"capacity\":{\"voice\":1},\"presence\":\"available\"}"));
      error(409, "WORKSPACE_ALREADY_EXISTS", http.post("/v1/workspaces", CENTRE));
      error(400, "INVALID_ARGUMENT", http.post("/v1/workspaces", "{\"name\":\"Bad Name\"}"));
      error(404, "WORKSPACE_NOT_FOUND", http.get("/v1/workspaces/ghost"));
      error(
          400,
          "INVALID_ARGUMENT",
          http.send("PATCH", "/v1/workspaces/centre", "{\"offerTimeoutSeconds\":0}"));
      error(
          400,
          "UNKNOWN_FIELD",
          http.send("PATCH", "/v1/workspaces/centre", "{\"offerTimeout\":5}"));
      assertEquals(before, http.get("/v1/workspaces/centre").text());
      assertEquals(1, ok(200, http.get("/v1/workspaces/centre/agents")).get("agents").size());
      assertEquals(1, ok(200, http.get("/v1/workspaces/centre/contacts")).get("contacts").size());
    }
  }

  @Test
  void durableServer_keepsWorkspacesActivitiesQueuesAndAgentsAcrossARestart() {
    String before;
    try (SwitchboardServer server = durable();
        Http http = new Http(server.uri())) {
      seed(http);
      ok(
          200,
          http.send("PUT", "/v1/workspaces/centre/activities/Training", "{\"available\":false}"));
      ok(200, http.send("PUT", "/v1/workspaces/default/task-queues/sales", "{}"));
      ok(
          200,
          http.send(
              "PUT", "/v1/workspaces/centre/agents/gen/activity", "{\"activity\":\"Lunch\"}"));
      before = http.get("/v1/workspaces/centre").text();
    }
    try (SwitchboardServer server = durable();
        Http http = new Http(server.uri())) {
      assertEquals(before, http.get("/v1/workspaces/centre").text());
      assertEquals(
          "sales", ok(200, http.get("/v1/workspaces/default")).at("/taskQueues/0/name").asText());
      JsonNode gen = ok(200, http.get("/v1/workspaces/centre/agents/gen"));
      assertEquals("Lunch", gen.get("activity").asText());
      assertTrue(gen.get("activityTimeMillis").has("Ready"), gen.toString());
      JsonNode b1 = ok(200, http.get("/v1/workspaces/centre/contacts/b1"));
      assertEquals("billing", b1.get("queue").asText());
    }
    var report = io.switchboard.storage.rocksdb.StoreDoctor.verify(dir);
    assertFalse(report.damaged(), report.lines().toString());
    assertTrue(
        report.lines().stream()
            .anyMatch(l -> l.startsWith("ok " + dir.resolve("workspaces/centre"))),
        "store verify reads the workspace's store: " + report.lines());
    try (SwitchboardServer server = durable();
        Http http = new Http(server.uri())) {
      assertEquals(204, http.send("DELETE", "/v1/workspaces/centre", null).status());
    }
    try (SwitchboardServer server = durable();
        Http http = new Http(server.uri())) {
      error(404, "WORKSPACE_NOT_FOUND", http.get("/v1/workspaces/centre"));
      ok(201, http.post("/v1/workspaces", CENTRE));
      assertEquals(
          0,
          ok(200, http.get("/v1/workspaces/centre/agents")).get("agents").size(),
          "a workspace created again starts empty");
    }
  }

  @Test
  void javaClient_drivesWorkspacesActivitiesQueuesAgentsAndContacts() {
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        SwitchboardClient client = SwitchboardClient.create(server.uri())) {
      WorkspacesClient ws = client.workspaces();
      WorkspaceDefinition created =
          ws.create(
              "centre",
              WorkspaceSettings.DEFAULTS.withOfferTimeout(Duration.ofSeconds(12)),
              List.of(
                  new Activity("Ready", true),
                  new Activity("Lunch", false),
                  new Activity("offline", false)));
      assertEquals(Duration.ofSeconds(12), created.settings().offerTimeout());
      TaskQueue billing =
          new TaskQueue(
              "billing",
              Optional.of("skills HAS 'billing'"),
              TaskQueue.Order.LIFO,
              Optional.of(Strategy.highest("level")),
              Optional.of(2),
              Optional.of(Duration.ofSeconds(45)));
      ws.putQueue("centre", billing);
      assertEquals(billing, ws.queue("centre", "billing"));
      ws.putActivity("centre", new Activity("Training", false));
      assertTrue(created.callbackSecret().isPresent(), "create returns the callback secret");
      assertEquals(
          created
              .withCallbackSecret(Optional.empty()) // shown by the creation only
              .withQueue(billing)
              .withActivity(new Activity("Training", false)),
          ws.get("centre"));
      assertEquals(
          List.of("centre", "default"), ws.list().stream().map(WorkspaceDefinition::name).toList());

      RoutingClient centre = client.workspace("centre");
      Agent bill =
          centre.createAgent(
              NewAgent.builder("bill")
                  .attribute("skills", List.of("billing"))
                  .capacity("voice", 1)
                  .build(),
              "Lunch");
      assertEquals("Lunch", bill.activity());
      Contact c = centre.createContact(NewContact.builder("c1", "voice").build(), "billing");
      assertEquals(ContactState.QUEUED, c.state());
      assertEquals(Optional.of("billing"), c.queue());
      centre.activity("bill", "Ready");
      assertEquals(Optional.of("bill"), centre.contact("c1").agentId());
      TaskQueueStats stats = ws.queueStats("centre", "billing");
      assertEquals(1, stats.offered());
      assertEquals(Duration.ofSeconds(45), stats.serviceLevelThreshold());
      assertEquals(java.util.OptionalDouble.empty(), stats.serviceLevel(), "nothing answered yet");
      SwitchboardException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              SwitchboardException.class, () -> ws.removeQueue("centre", "billing"));
      assertEquals(Optional.of(RoutingErrorCode.TASK_QUEUE_IN_USE), e.routingCode());
      centre.abandon("c1");
      ws.removeQueue("centre", "billing");
      ws.delete("centre");
      assertEquals(List.of("default"), ws.list().stream().map(WorkspaceDefinition::name).toList());
    }
  }
}
