package io.switchboard.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.Agent;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.ListPage;
import io.switchboard.routing.ListRequest;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.ReservationState;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingStats;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The typed routing client against a real server: round trips, and errors with their codes. */
class RoutingClientTest {

  private SwitchboardServer server;
  private SwitchboardClient client;
  private RoutingClient routing;

  @BeforeEach
  void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    client = SwitchboardClient.create(server.uri());
    routing = client.routing();
  }

  @AfterEach
  void stop() {
    client.close();
    server.stop();
  }

  private static NewAgent agent(String id, Map<String, Object> attributes) {
    return NewAgent.builder(id)
        .attributes(attributes)
        .capacity("voice", 1)
        .presence(Presence.available())
        .build();
  }

  @Test
  void seed000_roundTrip_throughTypedClient() {
    routing.createAgent(agent("christine", Map.of("gender", "F", "languages", List.of("es"))));
    Agent billy =
        routing.createAgent(
            agent("billy", Map.of("gender", "M", "languages", List.of("en", "fr", "es"))));
    assertEquals(List.of("en", "fr", "es"), billy.attributes().get("languages"));
    routing.createAgent(agent("chad", Map.of("gender", "M", "languages", List.of("es", "fr"))));

    Contact spanish =
        routing.createContact(
            NewContact.builder("caller-1", "voice")
                .requirements("languages HAS 'es' AND gender = 'M'")
                .priority(2)
                .escalate(Duration.ofSeconds(60), "languages HAS 'es'")
                .maxWait(Duration.ofMinutes(10))
                .build());
    assertEquals(ContactState.OFFERED, spanish.state());
    assertEquals("billy", spanish.agentId().orElseThrow());
    Contact french =
        routing.createContact(
            NewContact.builder("caller-2", "voice")
                .requirements("languages HAS 'fr' AND gender = 'M'")
                .build());
    assertEquals("chad", french.agentId().orElseThrow());

    String offer = spanish.reservationId().orElseThrow();
    assertEquals(offer, routing.pendingReservations("billy").get(0).id());
    assertEquals(ContactState.ASSIGNED, routing.accept(offer).state());
    assertEquals(ReservationState.ACCEPTED, routing.reservation(offer).state());
    assertEquals(ContactState.COMPLETED, routing.complete("caller-1", Duration.ZERO).state());
    // chad rejects; billy is free again and matches, so caller-2 goes to him.
    Contact again = routing.reject(french.reservationId().orElseThrow());
    assertEquals("billy", again.agentId().orElseThrow());
    assertEquals(List.of(), routing.waiting());
    assertEquals(ContactState.ABANDONED, routing.abandon("caller-2").state());

    assertEquals(2, routing.agents("gender = 'M'").size());
    assertEquals(3, routing.agents().size());
    Agent away = routing.presence("chad", Presence.away("lunch"));
    assertEquals(Presence.away("lunch"), away.presence());
    assertEquals(
        7L,
        ((Number) routing.updateAttributes("chad", Map.of("level", 7)).attributes().get("level"))
            .longValue());
    assertEquals(3, routing.updateCapacity("chad", Map.of("chat", 3)).capacity().get("chat"));
    routing.removeAgent("chad");

    RoutingStats stats = routing.stats();
    assertEquals(1, stats.overall().answered());
    assertEquals(2, stats.agentsByPresence().get(Presence.Kind.AVAILABLE));
  }

  @Test
  void errors_carryTheRoutingCodeAndStatus() {
    SwitchboardException unknown =
        assertThrows(SwitchboardException.class, () -> routing.agent("nobody"));
    assertEquals(404, unknown.status());
    assertEquals(RoutingErrorCode.AGENT_NOT_FOUND, unknown.routingCode().orElseThrow());

    SwitchboardException selector =
        assertThrows(
            SwitchboardException.class,
            () ->
                routing.createContact(
                    NewContact.builder("c", "voice").requirements("skills HAS").build()));
    assertEquals(RoutingErrorCode.INVALID_SELECTOR, selector.routingCode().orElseThrow());
    assertTrue(selector.getMessage().contains("column"), selector.getMessage());

    SwitchboardException negative =
        assertThrows(
            SwitchboardException.class,
            () -> routing.createAgent(NewAgent.builder("neg").capacity("voice", -1).build()));
    assertEquals(400, negative.status(), negative.getMessage());
    assertEquals(RoutingErrorCode.INVALID_ARGUMENT, negative.routingCode().orElseThrow());

    SwitchboardException expired =
        assertThrows(SwitchboardException.class, () -> routing.accept("res-404"));
    assertEquals(RoutingErrorCode.RESERVATION_NOT_FOUND, expired.routingCode().orElseThrow());
  }

  @Test
  void lists_followCursors_soTheWholeListComesBack() {
    for (int i = 0; i < 1205; i++) {
      routing.createAgent(
          NewAgent.builder(String.format("a%04d", i)).attribute("odd", i % 2 == 1).build());
      if (i < 1003) {
        routing.createContact(
            NewContact.builder("c" + i, "voice").requirements("odd = 'never'").build());
      }
    }
    List<Agent> agents = routing.agents();
    assertEquals(1205, agents.size(), "more than one page of the largest size");
    assertEquals("a0000", agents.get(0).id());
    assertEquals("a1204", agents.get(1204).id());
    assertEquals(602, routing.agents("odd = TRUE").size());
    assertEquals(1003, routing.waiting().size());

    ListPage<Agent> page = routing.agents(null, ListRequest.first(10));
    assertEquals(agents.subList(0, 10), page.items());
    ListPage<Agent> next =
        routing.agents(null, ListRequest.first(10).after(page.nextCursor().get()));
    assertEquals(agents.subList(10, 20), next.items());
  }
}
