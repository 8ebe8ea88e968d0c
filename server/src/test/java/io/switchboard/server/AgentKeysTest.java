package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
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
    forbidden(as("BOB", "GET", r, null));
    forbidden(as("BOB", "POST", r + "/accept", ""));
    forbidden(as("BOB", "POST", r + "/reject", ""));
    Http.Answer refused = as("BOB", "POST", r + "/accept", "");
    assertTrue(refused.text().contains("agent 'ann'"), refused.toString());

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
    forbidden(as("BOB", "POST", "/v1/routing/contacts/c1/complete", "{\"wrapUpSeconds\":0}"));
    forbidden(as("BOB", "GET", "/v1/routing/contacts/c1", null));
    ok(as("ANN", "GET", "/v1/routing/contacts/c1", null));
    ok(as("ANN", "POST", "/v1/routing/contacts/c1/complete", "{\"wrapUpSeconds\":0}"));

    // his own presence
    ok(as("BOB", "PUT", "/v1/routing/agents/bob/presence", "{\"presence\":\"away\"}"));
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
