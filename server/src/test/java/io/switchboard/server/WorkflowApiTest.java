package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.RoutingClient;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.SwitchboardException;
import io.switchboard.client.WorkspacesClient;
import io.switchboard.routing.Activity;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.WorkflowFilter;
import io.switchboard.routing.WorkflowTarget;
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
 * Workflows over real HTTP and the Java client (docs/routing.md, "Workflows"): PUT, GET, list and
 * DELETE under {@code /v1/workspaces/{ws}/workflows}, contacts created with {@code workflow}, bad
 * input with its code and nothing changed, and a durable server keeping workflows and routed
 * contacts across a restart.
 */
class WorkflowApiTest {

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

  static final String SUPPORT =
      "{\"filters\":[{\"name\":\"billing\",\"expression\":\"topic = 'billing'\",\"targets\":["
          + "{\"queue\":\"billing\",\"timeoutSeconds\":30},"
          + "{\"queue\":\"general\",\"expression\":\"languages HAS contact.language\"}]}],"
          + "\"defaultFilter\":{\"targets\":[{\"queue\":\"general\"}]}}";

  private static final String W = "/v1/workspaces/centre";

  /** The seed-004 centre: billing and general queues, the support workflow. */
  private static void seed(Http http) {
    ok(
        201,
        http.post(
            "/v1/workspaces",
            "{\"name\":\"centre\",\"activities\":[{\"name\":\"Ready\",\"available\":true},"
                + "{\"name\":\"offline\",\"available\":false}]}"));
    ok(
        200,
        http.send(
            "PUT", W + "/task-queues/billing", "{\"workerExpression\":\"skills HAS 'billing'\"}"));
    ok(200, http.send("PUT", W + "/task-queues/general", "{}"));
    JsonNode wf = ok(200, http.send("PUT", W + "/workflows/support", SUPPORT));
    assertEquals("support", wf.get("name").asText());
    assertEquals(30, wf.at("/filters/0/targets/0/timeoutSeconds").asInt());
  }

  @Test
  void workflows_putGetListDelete_andContactsRoutedByThem() {
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        Http http = new Http(server.uri())) {
      seed(http);
      JsonNode got = ok(200, http.get(W + "/workflows/support"));
      assertEquals(
          "languages HAS contact.language", got.at("/filters/0/targets/1/expression").asText());
      assertEquals("general", got.at("/defaultFilter/targets/0/queue").asText());
      assertEquals("support", ok(200, http.get(W + "/workflows")).at("/workflows/0/name").asText());

      JsonNode c =
          ok(
              201,
              http.post(
                  W + "/contacts",
                  "{\"id\":\"b1\",\"channel\":\"voice\",\"workflow\":\"support\","
                      + "\"attributes\":{\"topic\":\"billing\",\"language\":\"es\"}}"));
      assertEquals("queued", c.get("state").asText());
      assertEquals("billing", c.get("queue").asText());
      assertEquals("support", c.get("workflow").asText());
      assertEquals("skills HAS 'billing'", c.get("requirements").asText());

      JsonNode moved =
          ok(
              200,
              http.send(
                  "PATCH",
                  W + "/contacts/b1",
                  "{\"attributes\":{\"topic\":\"other\",\"language\":\"es\"}}"));
      assertEquals("general", moved.get("queue").asText(), "re-evaluated: the default filter");
      assertEquals(c.get("createdAt").asText(), moved.get("createdAt").asText());

      error(409, "TASK_QUEUE_IN_USE", http.send("DELETE", W + "/task-queues/billing", null));
      assertEquals(204, http.send("DELETE", W + "/workflows/support", null).status());
      error(404, "WORKFLOW_NOT_FOUND", http.get(W + "/workflows/support"));
      assertEquals(0, ok(200, http.get(W + "/workflows")).get("workflows").size());
    }
  }

  @Test
  void badInput_clearCodes_nothingChanged() {
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        Http http = new Http(server.uri())) {
      seed(http);
      String before = http.get(W + "/workflows").text();
      error(
          400,
          "INVALID_SELECTOR",
          http.send(
              "PUT",
              W + "/workflows/w",
              "{\"filters\":[{\"name\":\"f\",\"expression\":\"topic =\",\"targets\":"
                  + "[{\"queue\":\"general\"}]}],\"defaultFilter\":{\"targets\":"
                  + "[{\"queue\":\"general\"}]}}"));
      error(
          404,
          "TASK_QUEUE_NOT_FOUND",
          http.send(
              "PUT",
              W + "/workflows/w",
              "{\"defaultFilter\":{\"targets\":[{\"queue\":\"nope\"}]}}"));
      error(
          400,
          "INVALID_ARGUMENT",
          http.send("PUT", W + "/workflows/w", "{\"defaultFilter\":{\"targets\":[]}}"));
      error(400, "INVALID_ARGUMENT", http.send("PUT", W + "/workflows/w", "{}"));
      error(
          400,
          "INVALID_ARGUMENT",
          http.send(
              "PUT",
              W + "/workflows/w",
              "{\"name\":\"other\",\"defaultFilter\":{\"targets\":[{\"queue\":\"general\"}]}}"));
      error(
          400,
          "UNKNOWN_FIELD",
          http.send(
              "PUT",
              W + "/workflows/w",
              "{\"defaultFilter\":{\"targets\":[{\"queue\":\"general\",\"skip\":true}]}}"));
      error(
          400,
          "INVALID_ARGUMENT",
          http.send(
              "PUT",
              W + "/workflows/w",
              "{\"defaultFilter\":{\"targets\":[{\"queue\":\"general\",\"timeoutSeconds\":-1}]}}"));
      assertEquals(before, http.get(W + "/workflows").text(), "nothing changed");
      error(
          404,
          "WORKFLOW_NOT_FOUND",
          http.post(W + "/contacts", "{\"id\":\"c\",\"channel\":\"voice\",\"workflow\":\"nope\"}"));
      error(
          400,
          "INVALID_ARGUMENT",
          http.post(
              W + "/contacts",
              "{\"id\":\"c\",\"channel\":\"voice\",\"workflow\":\"support\",\"queue\":\"general\"}"));
      error(404, "CONTACT_NOT_FOUND", http.get(W + "/contacts/c"));
    }
  }

  @Test
  void durableServer_keepsWorkflowsAndRoutedContactsAcrossARestart() {
    String before;
    try (SwitchboardServer server = durable();
        Http http = new Http(server.uri())) {
      seed(http);
      ok(
          201,
          http.post(
              W + "/contacts",
              "{\"id\":\"b1\",\"channel\":\"voice\",\"workflow\":\"support\","
                  + "\"attributes\":{\"topic\":\"billing\"}}"));
      before = http.get(W + "/workflows").text();
    }
    try (SwitchboardServer server = durable();
        Http http = new Http(server.uri())) {
      assertEquals(before, http.get(W + "/workflows").text());
      JsonNode b1 = ok(200, http.get(W + "/contacts/b1"));
      assertEquals("billing", b1.get("queue").asText());
      assertEquals("support", b1.get("workflow").asText());
      error(409, "TASK_QUEUE_IN_USE", http.send("DELETE", W + "/task-queues/general", null));
    }
  }

  private SwitchboardServer durable() {
    return SwitchboardServer.start(
        ServerConfig.resolve(Map.of("port", "0", "data-dir", dir.toString()), Map.of()));
  }

  @Test
  void javaClient_roundTripsWorkflows_andCreatesContactsThroughThem() {
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        SwitchboardClient client = SwitchboardClient.create(server.uri())) {
      WorkspacesClient ws = client.workspaces();
      ws.create(
          "centre",
          WorkspaceSettings.DEFAULTS,
          List.of(new Activity("Ready", true), new Activity("offline", false)));
      ws.putQueue(
          "centre", TaskQueue.named("billing").withWorkerExpression("skills HAS 'billing'"));
      ws.putQueue("centre", TaskQueue.named("general"));
      Workflow support =
          new Workflow(
              "support",
              List.of(
                  new WorkflowFilter(
                      "billing",
                      "topic = 'billing'",
                      List.of(
                          WorkflowTarget.queue("billing")
                              .withTimeout(Duration.ofSeconds(30))
                              .withPriority(2)
                              .skippingIfNoneAvailable(),
                          WorkflowTarget.queue("general")
                              .withExpression("languages HAS contact.language")))),
              List.of(WorkflowTarget.queue("general")),
              Optional.of(new Workflow.PreferredAgent("lastAgent", Duration.ofSeconds(20))));
      assertEquals(support, ws.putWorkflow("centre", support));
      assertEquals(support, ws.workflow("centre", "support"));
      assertEquals(List.of(support), ws.workflows("centre"));

      RoutingClient centre = client.workspace("centre");
      centre.createAgent(
          NewAgent.builder("bea")
              .attribute("skills", List.of("billing"))
              .capacity("voice", 1)
              .build(),
          "Ready");
      Contact c =
          centre.createContactByWorkflow(
              NewContact.builder("c1", "voice").attribute("topic", "billing").build(), "support");
      assertEquals(Optional.of("support"), c.workflow());
      assertEquals(Optional.of("billing"), c.queue());
      assertEquals(2, c.priority());
      assertEquals(ContactState.OFFERED, c.state());
      assertEquals(Optional.of("bea"), c.agentId());

      SwitchboardException e =
          assertThrows(SwitchboardException.class, () -> ws.removeQueue("centre", "general"));
      assertEquals(Optional.of(RoutingErrorCode.TASK_QUEUE_IN_USE), e.routingCode());
      assertTrue(e.getMessage().contains("workflow 'support'"), e.getMessage());
      ws.removeWorkflow("centre", "support");
      assertEquals(List.of(), ws.workflows("centre"));
      e = assertThrows(SwitchboardException.class, () -> ws.workflow("centre", "support"));
      assertEquals(Optional.of(RoutingErrorCode.WORKFLOW_NOT_FOUND), e.routingCode());
    }
  }
}
