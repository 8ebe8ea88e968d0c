package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.RoutingClient;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.SwitchboardException;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.ContactUpdate;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.server.SseStream.Event;
import io.switchboard.server.config.ServerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Changes while waiting (PATCH a contact, cancel) and transfers over REST, the Java client and the
 * event stream, under {@code /v1/routing} and {@code /v1/workspaces/{ws}}; bad input refused with
 * its code, changing nothing.
 */
class RoutingChangesApiTest {

  private SwitchboardServer server;
  private Http http;
  private SwitchboardClient client;

  @BeforeEach
  void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    http = new Http(server.uri());
    client = SwitchboardClient.create(server.uri());
  }

  @AfterEach
  void stop() {
    http.close();
    server.stop();
  }

  private static JsonNode ok(Http.Answer a) {
    assertEquals(200, a.status(), a.toString());
    return a.json();
  }

  private static void error(int status, String code, Http.Answer a) {
    assertEquals(status, a.status(), a.toString());
    assertEquals(code, a.code(), a.toString());
    assertFalse(a.json().path("message").asText().isEmpty(), a.toString());
  }

  private static void agent(RoutingClient r, String id, Presence presence, String skill) {
    r.createAgent(
        NewAgent.builder(id)
            .attribute("skills", List.of(skill))
            .capacity("voice", 1)
            .presence(presence)
            .build());
  }

  @Test
  void priorityCancelAndTransfer_overRest_withEvents() throws Exception {
    RoutingClient r = client.routing();
    agent(r, "ann", Presence.offline(), "x");
    agent(r, "bob", Presence.away("lunch"), "y");
    for (String id : List.of("c1", "c2", "c3")) {
      r.createContact(NewContact.builder(id, "voice").requirements("skills HAS 'x'").build());
    }
    long before = r.contact("c3").createdAt().toEpochMilli();

    JsonNode raised = ok(http.send("PATCH", "/v1/routing/contacts/c3", "{\"priority\":9}"));
    assertEquals(9, raised.get("priority").asInt());
    assertEquals(before, r.contact("c3").createdAt().toEpochMilli(), "arrival kept");
    assertEquals(List.of("c3", "c1", "c2"), r.waiting().stream().map(Contact::id).toList());
    JsonNode cancelled =
        ok(http.post("/v1/routing/contacts/c2/cancel", "{\"reason\":\"called back\"}"));
    assertEquals("cancelled", cancelled.get("state").asText());
    r.presence("ann", Presence.available());
    assertEquals(Optional.of("ann"), r.contact("c3").agentId(), "c3 first: priority 9");
    r.accept(r.contact("c3").reservationId().orElseThrow());

    error(
        409, "INVALID_STATE", http.post("/v1/routing/contacts/c3/transfer", "{\"agent\":\"bob\"}"));
    error(
        404,
        "TASK_QUEUE_NOT_FOUND",
        http.post("/v1/routing/contacts/c3/transfer", "{\"queue\":\"nope\"}"));
    error(
        400,
        "INVALID_ARGUMENT",
        http.post("/v1/routing/contacts/c3/transfer", "{\"queue\":\"q\",\"agent\":\"bob\"}"));
    assertEquals(ContactState.ASSIGNED, r.contact("c3").state());

    r.presence("bob", Presence.available()); // bob (y) matches nothing waiting
    Contact moved = r.transferToAgent("c3", "bob");
    assertEquals(ContactState.OFFERED, moved.state());
    assertEquals(Optional.of("bob"), moved.agentId());
    assertEquals(Optional.of("ann"), r.contact("c1").agentId(), "ann's slot freed: she takes c1");

    List<String> types = new ArrayList<>();
    try (SseStream events =
        new SseStream(
            http.client(), server.uri().resolve("/v1/routing/events?after=0"), Map.of(), 10)) {
      Event transferred =
          events.until(e -> e.type().equals("contact.transferred"), e -> types.add(e.type()));
      assertEquals("ann", transferred.data().get("fromAgentId").asText());
      assertEquals("bob", transferred.data().get("toAgentId").asText());
      assertEquals("reservation.offered", events.next().type());
    }
    assertEquals(true, types.contains("contact.updated"), types.toString());
    assertEquals(true, types.contains("contact.cancelled"), types.toString());
  }

  @Test
  void badInput_clearCodes_nothingChanged() {
    RoutingClient r = client.routing();
    r.createContact(NewContact.builder("c1", "voice").build());
    r.cancel("c1", "gone");
    r.createContact(NewContact.builder("c2", "voice").build());
    List<Contact> waiting = r.waiting();

    error(
        404,
        "CONTACT_NOT_FOUND",
        http.send("PATCH", "/v1/routing/contacts/ghost", "{\"priority\":1}"));
    error(400, "INVALID_ARGUMENT", http.send("PATCH", "/v1/routing/contacts/c2", "{}"));
    error(
        400,
        "INVALID_ARGUMENT",
        http.send("PATCH", "/v1/routing/contacts/c2", "{\"priority\":5000}"));
    error(
        400,
        "INVALID_ARGUMENT",
        http.send("PATCH", "/v1/routing/contacts/c2", "{\"priority\":\"high\"}"));
    error(
        400,
        "INVALID_SELECTOR",
        http.send("PATCH", "/v1/routing/contacts/c2", "{\"requirements\":\"a HAS\"}"));
    error(409, "INVALID_STATE", http.send("PATCH", "/v1/routing/contacts/c1", "{\"priority\":1}"));
    error(409, "INVALID_STATE", http.post("/v1/routing/contacts/c1/cancel", ""));
    error(400, "UNKNOWN_FIELD", http.post("/v1/routing/contacts/c2/cancel", "{\"why\":1}"));
    error(
        409,
        "INVALID_STATE",
        http.post("/v1/routing/contacts/c2/transfer", "{\"agent\":\"ghost\"}"));
    SwitchboardException e =
        assertThrows(
            SwitchboardException.class,
            () -> r.updateContact("c2", ContactUpdate.none().withPriority(-1001)));
    assertEquals(400, e.status());

    assertEquals(waiting, r.waiting());
    assertEquals(ContactState.CANCELLED, r.contact("c1").state());
    assertEquals(0, r.contact("c2").priority());
  }

  @Test
  void workspace_requirementsCombineWithTheQueue_andTransferToAQueue() {
    ok201(
        http.post(
            "/v1/workspaces",
            "{\"name\":\"centre\",\"activities\":[{\"name\":\"Ready\",\"available\":true},"
                + "{\"name\":\"offline\",\"available\":false}]}"));
    for (String q : List.of("billing", "general")) {
      ok(
          http.send(
              "PUT",
              "/v1/workspaces/centre/task-queues/" + q,
              "{\"workerExpression\":\"skills HAS '" + q + "'\"}"));
    }
    RoutingClient centre = client.workspace("centre");
    centre.createAgent(
        NewAgent.builder("bill")
            .attribute("skills", List.of("billing"))
            .capacity("voice", 1)
            .build(),
        "Ready");
    centre.createAgent(
        NewAgent.builder("gen")
            .attribute("skills", List.of("general"))
            .capacity("voice", 1)
            .build(),
        "offline");
    ok201(
        http.post(
            "/v1/workspaces/centre/contacts",
            "{\"id\":\"b1\",\"channel\":\"voice\",\"queue\":\"billing\"}"));
    centre.accept(centre.contact("b1").reservationId().orElseThrow());
    ok201(
        http.post(
            "/v1/workspaces/centre/contacts",
            "{\"id\":\"b2\",\"channel\":\"voice\",\"queue\":\"billing\"}"));

    Contact b2 = centre.updateContact("b2", ContactUpdate.none().withRequirements("level >= 3"));
    String req = b2.requirements().orElseThrow();
    assertEquals(true, req.contains("billing") && req.contains("level"), req);

    Contact b1 = centre.transferToQueue("b1", "general", null);
    assertEquals(ContactState.QUEUED, b1.state());
    assertEquals(Optional.of("general"), b1.queue());
    assertEquals(ContactState.QUEUED, centre.contact("b2").state(), "bill has no level");
    centre.activity("gen", "Ready");
    assertEquals(Optional.of("gen"), centre.contact("b1").agentId());
    error(
        404,
        "TASK_QUEUE_NOT_FOUND",
        http.post("/v1/workspaces/centre/contacts/b1/transfer", "{\"queue\":\"nope\"}"));
  }

  private static void ok201(Http.Answer a) {
    assertEquals(201, a.status(), a.toString());
  }
}
