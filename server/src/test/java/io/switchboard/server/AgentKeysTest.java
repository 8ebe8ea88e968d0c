package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An agent's key ({@code routing:agent} bound to one agent) acts as that agent only: its presence,
 * its offers, its contacts, its event stream; another agent's are refused with 403, and so is
 * everything a supervisor does.
 */
class AgentKeysTest {

  private SwitchboardServer server;
  private Http http;

  @BeforeEach
  void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    server
        .keys()
        .put(
            new Principal(
                "SUP",
                "sup-secret",
                Optional.of("supervisor"),
                List.of(Grant.of("default", Action.ROUTING_SUPERVISOR)),
                Optional.empty()));
    server
        .keys()
        .put(
            new Principal(
                "QUEUES",
                "queues-secret",
                Optional.empty(),
                List.of(Grant.of("*", Action.QUEUE_SEND)),
                Optional.empty()));
    for (String agent : List.of("ann", "bob")) {
      server
          .keys()
          .put(
              new Principal(
                  agent.toUpperCase(),
                  agent + "-secret",
                  Optional.empty(),
                  List.of(Grant.of("default", Action.ROUTING_AGENT)),
                  Optional.of(agent)));
    }
    http = new Http(server.uri());
  }

  @AfterEach
  void stop() {
    http.close();
    server.stop();
  }

  private Http.Answer as(String key, String method, String path, String body) {
    Map<String, String> headers = new HashMap<>();
    String secret = key.equals("SUP") ? "sup-secret" : key.toLowerCase() + "-secret";
    headers.put(
        "Authorization",
        "Basic "
            + Base64.getEncoder()
                .encodeToString((key + ":" + secret).getBytes(StandardCharsets.UTF_8)));
    if (body != null) {
      headers.put("Content-Type", "application/json");
    }
    return http.send(method, path, body, headers);
  }

  private static void forbidden(Http.Answer a) {
    assertEquals(403, a.status(), a.toString());
    assertEquals("FORBIDDEN", a.code(), a.toString());
  }

  private static void notFound(Http.Answer a) {
    assertEquals(404, a.status(), a.toString());
    assertTrue(a.code().endsWith("_NOT_FOUND"), a.toString());
  }

  private JsonNode ok(Http.Answer a) {
    assertTrue(a.status() == 200 || a.status() == 201, a.toString());
    return a.json();
  }

  /** Ann and Bob available; a contact only Ann can take, offered to her. */
  private String offerToAnn() {
    for (String agent : List.of("ann", "bob")) {
      ok(
          as(
              "SUP",
              "POST",
              "/v1/routing/agents",
              "{\"id\":\""
                  + agent
                  + "\",\"attributes\":{\"name\":\""
                  + agent
                  + "\"},\"capacity\":{\"voice\":1},\"presence\":\"available\"}"));
    }
    JsonNode contact =
        ok(
            as(
                "SUP",
                "POST",
                "/v1/routing/contacts",
                "{\"id\":\"c1\",\"channel\":\"voice\",\"requirements\":\"name = 'ann'\"}"));
    assertEquals("ann", contact.get("agentId").asText(), contact.toString());
    return contact.get("reservationId").asText();
  }

  @Test
  void anAgentKey_cannotTouchAnotherAgentsOffersPresenceOrStream() {
    String reservation = offerToAnn();
    String r = "/v1/routing/reservations/" + reservation;
    forbidden(as("BOB", "GET", "/v1/routing/agents/ann", null));
    forbidden(as("BOB", "PUT", "/v1/routing/agents/ann/presence", "{\"presence\":\"away\"}"));
    forbidden(as("BOB", "GET", "/v1/routing/agents/ann/reservations", null));
    forbidden(as("BOB", "GET", "/v1/routing/agents/ann/events?after=-1", null));
    // another agent's offer does not exist, to Bob's key
    notFound(as("BOB", "GET", r, null));
    notFound(as("BOB", "POST", r + "/accept", ""));
    notFound(as("BOB", "POST", r + "/reject", ""));
    Http.Answer refused = as("BOB", "GET", "/v1/routing/agents/ann", null);
    assertFalse(refused.text().contains("ann"), refused.toString());

    // Ann may do all of it for herself
    ok(as("ANN", "GET", "/v1/routing/agents/ann", null));
    assertEquals(
        reservation,
        ok(as("ANN", "GET", "/v1/routing/agents/ann/reservations", null))
            .at("/reservations/0/id")
            .asText());
    ok(as("ANN", "GET", r, null));
    assertEquals("assigned", ok(as("ANN", "POST", r + "/accept", "")).get("state").asText());
    Http.Answer stream = as("ANN", "GET", "/v1/routing/agents/ann/events?after=-1", null);
    assertNotEquals(403, stream.status(), stream.toString());
    assertNotEquals(401, stream.status(), stream.toString());

    // her contact: Bob cannot complete it, she can
    notFound(as("BOB", "POST", "/v1/routing/contacts/c1/complete", "{\"wrapUpSeconds\":0}"));
    notFound(as("BOB", "GET", "/v1/routing/contacts/c1", null));
    ok(as("ANN", "GET", "/v1/routing/contacts/c1", null));
    ok(as("ANN", "POST", "/v1/routing/contacts/c1/complete", "{\"wrapUpSeconds\":0}"));

    // his own presence
    ok(as("BOB", "PUT", "/v1/routing/agents/bob/presence", "{\"presence\":\"away\"}"));
  }

  @Test
  void anAgentKey_getsOneAnswer_whetherAContactOrOfferIsAnothersOrDoesNotExist() {
    String reservation = offerToAnn();
    ok(as("ANN", "POST", "/v1/routing/reservations/" + reservation + "/accept", ""));
    for (String[] probe :
        List.of(
            new String[] {"GET", "/v1/routing/contacts/%s", null},
            new String[] {"POST", "/v1/routing/contacts/%s/complete", "{\"wrapUpSeconds\":0}"},
            new String[] {"GET", "/v1/routing/reservations/%s", null},
            new String[] {"POST", "/v1/routing/reservations/%s/reject", ""})) {
      boolean contact = probe[1].contains("contacts");
      Http.Answer anns =
          as("BOB", probe[0], probe[1].formatted(contact ? "c1" : reservation), probe[2]);
      Http.Answer none = as("BOB", probe[0], probe[1].formatted("no-such-id"), probe[2]);
      notFound(anns);
      assertEquals(anns.status(), none.status(), none.toString());
      assertEquals(anns.code(), none.code(), none.toString());
      assertEquals(
          anns.json().get("message").asText().replace(contact ? "c1" : reservation, "ID"),
          none.json().get("message").asText().replace("no-such-id", "ID"),
          none.toString());
      assertFalse(anns.text().contains("ann"), anns.toString());
    }
    // a contact waiting for an agent does not exist to an agent's key either
    ok(as("SUP", "POST", "/v1/routing/contacts", "{\"id\":\"c9\",\"channel\":\"chat\"}"));
    Http.Answer waiting = as("BOB", "GET", "/v1/routing/contacts/c9", null);
    notFound(waiting);
    assertEquals(
        waiting.json().get("message").asText().replace("c9", "ID"),
        as("BOB", "GET", "/v1/routing/contacts/c8", null)
            .json()
            .get("message")
            .asText()
            .replace("c8", "ID"));
    // a key that is no agent's is refused alike whether the contact exists or not
    Http.Answer existing = as("QUEUES", "GET", "/v1/routing/contacts/c1", null);
    Http.Answer missing = as("QUEUES", "GET", "/v1/routing/contacts/nope", null);
    forbidden(existing);
    assertEquals(existing.text(), missing.text());
    // a supervisor hears that it does not exist
    assertEquals(404, as("SUP", "GET", "/v1/routing/contacts/no-such-id", null).status());
    assertEquals(404, as("SUP", "GET", "/v1/routing/reservations/no-such-id", null).status());
  }

  @Test
  void anAgentKey_cannotDoWhatASupervisorDoes() {
    offerToAnn();
    forbidden(as("ANN", "GET", "/v1/routing/agents", null));
    forbidden(as("ANN", "GET", "/v1/routing/contacts", null));
    forbidden(as("ANN", "GET", "/v1/routing/stats", null));
    forbidden(as("ANN", "GET", "/v1/routing/events?after=-1", null));
    forbidden(as("ANN", "PATCH", "/v1/routing/agents/ann", "{\"capacity\":{\"voice\":5}}"));
    forbidden(as("ANN", "DELETE", "/v1/routing/agents/ann", null));
    forbidden(as("ANN", "POST", "/v1/routing/contacts/c1/abandon", ""));
    forbidden(as("ANN", "POST", "/v1/routing/contacts", "{\"id\":\"c2\",\"channel\":\"voice\"}"));
    // nor anything on queues
    forbidden(as("ANN", "GET", "/v1/queues", null));
  }

  @Test
  void aSupervisorKey_actsForEveryAgent() {
    String reservation = offerToAnn();
    ok(as("SUP", "PUT", "/v1/routing/agents/bob/presence", "{\"presence\":\"away\"}"));
    ok(as("SUP", "GET", "/v1/routing/agents/ann/reservations", null));
    ok(as("SUP", "POST", "/v1/routing/reservations/" + reservation + "/accept", ""));
  }
}
