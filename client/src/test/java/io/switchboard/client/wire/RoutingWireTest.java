package io.switchboard.client.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.routing.Agent;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.ContactStats;
import io.switchboard.routing.ContactUpdate;
import io.switchboard.routing.GroupStats;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Reservation;
import io.switchboard.routing.ReservationState;
import io.switchboard.routing.RoutingEvent;
import io.switchboard.routing.RoutingStats;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The routing requests the client writes, the server reads back strictly as they were. */
class RoutingWireTest {

  private static <T> T overTheWire(Object sent, Class<T> type) {
    return Json.strict(WireFormat.parse(Json.bytes(sent)), "request body", type);
  }

  private static <T> T strict(String json, Class<T> type) {
    return Json.strict(
        WireFormat.parse(json.getBytes(StandardCharsets.UTF_8)), "request body", type);
  }

  @Test
  void newAgentAndContact_roundTrip() {
    NewAgent agent =
        NewAgent.builder("chad")
            .attribute("languages", List.of("es", "en"))
            .attribute("level", 3L)
            .capacity("voice", 1)
            .capacity("chat", 3)
            .presence(Presence.away("lunch"))
            .build();
    assertEquals(
        agent,
        overTheWire(RoutingWire.CreateAgent.of(agent), RoutingWire.CreateAgent.class).toNewAgent());
    NewContact contact =
        NewContact.builder("call-1", "voice")
            .attribute("vip", true)
            .requirements("languages HAS 'es'")
            .priority(2)
            .escalate(Duration.ofSeconds(30), "languages HAS 'en'")
            .escalateToAnyAgent(Duration.ofSeconds(60))
            .maxWait(Duration.ofSeconds(300))
            .build();
    assertEquals(
        contact,
        overTheWire(RoutingWire.CreateContact.of(contact), RoutingWire.CreateContact.class)
            .toNewContact());
    assertEquals(
        Presence.away("coffee"),
        overTheWire(
                RoutingWire.SetPresence.of(Presence.away("coffee")), RoutingWire.SetPresence.class)
            .toPresence());
  }

  @Test
  void badRequests_nameTheFieldAndWhere() {
    WireFormatException step =
        assertThrows(
            WireFormatException.class,
            () ->
                strict(
                    "{\"id\":\"c\",\"channel\":\"voice\",\"escalations\":[{\"requirements\":\"x\"}]}",
                    RoutingWire.CreateContact.class));
    assertEquals("field 'afterSeconds' is required in escalations[0]", step.getMessage());
    WireFormatException capacity =
        assertThrows(
            WireFormatException.class,
            () ->
                strict(
                    "{\"id\":\"a\",\"capacity\":{\"voice\":\"1\"}}",
                    RoutingWire.CreateAgent.class));
    assertEquals("field 'voice' must be an integer, got a string \"1\"", capacity.getMessage());
    WireFormatException reason =
        assertThrows(
            WireFormatException.class,
            () ->
                strict(
                        "{\"presence\":\"available\",\"reason\":\"x\"}",
                        RoutingWire.SetPresence.class)
                    .toPresence());
    assertEquals(WireCode.INVALID_ARGUMENT, reason.wireCode());
  }

  private static <T> T answer(Object sent, Class<T> type) {
    return Json.lenient(Json.bytes(sent), type);
  }

  @Test
  void agentContactReservationAndStats_readBackAsWritten() {
    Instant t = Instant.parse("2026-11-26T10:00:00Z");
    Agent agent =
        new Agent(
            "ann",
            Map.of("languages", List.of("es", "en"), "level", 3L, "vip", true),
            Map.of("voice", 1, "chat", 3),
            Map.of("chat", 1),
            Presence.away("lunch"),
            t,
            true,
            2,
            "Lunch",
            t.plusSeconds(5),
            Map.of("Lunch", Duration.ofMillis(1500)));
    assertEquals(
        agent, answer(RoutingWire.AgentView.of(agent), RoutingWire.AgentView.class).toAgent());
    Contact contact =
        Contact.builder("c1", "voice")
            .attributes(Map.of("lang", "es"))
            .requirements(Optional.of("lang == 'es'"))
            .escalationStep(1)
            .priority(5)
            .state(ContactState.ASSIGNED)
            .createdAt(t)
            .agentId(Optional.of("ann"))
            .reservationId(Optional.of("r1"))
            .answeredAt(Optional.of(t.plusSeconds(3)))
            .queue(Optional.of("sales"))
            .build();
    assertEquals(
        contact,
        answer(RoutingWire.ContactView.of(contact), RoutingWire.ContactView.class).toContact());
    Reservation r =
        new Reservation("r1", "c1", "ann", "voice", t, t.plusSeconds(20), ReservationState.PENDING);
    assertEquals(
        r,
        answer(RoutingWire.ReservationView.of(r), RoutingWire.ReservationView.class)
            .toReservation());
    ContactStats some =
        new ContactStats(
            2,
            Duration.ofMillis(900),
            10,
            1,
            0,
            OptionalDouble.of(0.75),
            Optional.of(Duration.ofMillis(1200)),
            OptionalDouble.of(0.1));
    ContactStats none =
        new ContactStats(
            0,
            Duration.ZERO,
            0,
            0,
            0,
            OptionalDouble.empty(),
            Optional.empty(),
            OptionalDouble.empty());
    RoutingStats stats =
        new RoutingStats(
            t,
            some,
            List.of(new GroupStats("voice", Optional.of("lang == 'es'"), none)),
            Map.of(Presence.Kind.AVAILABLE, 1, Presence.Kind.AWAY, 0, Presence.Kind.OFFLINE, 2),
            Map.of("voice", 0.5));
    assertEquals(
        stats, answer(RoutingWire.StatsView.of(stats), RoutingWire.StatsView.class).toStats());
  }

  /** Events are written as the tree writer wrote them: id, type, at, then the change's fields. */
  @Test
  void event_fieldsInTheirOrder_othersLeftOut() {
    Instant t = Instant.parse("2026-11-26T10:00:00Z");
    assertEquals(
        "{\"id\":7,\"type\":\"reservation.cancelled\",\"at\":\"2026-11-26T10:00:00Z\","
            + "\"reservationId\":\"r1\",\"contactId\":\"c1\",\"agentId\":\"ann\",\"reason\":\"gone\"}",
        new String(
            Json.bytes(
                RoutingWire.EventView.of(
                    new RoutingEvent.ReservationCancelled(7, t, "r1", "c1", "ann", "gone"))),
            StandardCharsets.UTF_8));
    assertEquals(
        "{\"id\":8,\"type\":\"agent.presence\",\"at\":\"2026-11-26T10:00:00Z\","
            + "\"agentId\":\"ann\",\"presence\":\"away\",\"reason\":\"lunch\"}",
        new String(
            Json.bytes(
                RoutingWire.EventView.of(
                    new RoutingEvent.AgentPresenceChanged(8, t, "ann", Presence.away("lunch")))),
            StandardCharsets.UTF_8));
  }

  /** A contact PATCH: {@code "attributes": null} clears them, absent keeps them. */
  @Test
  void updateContact_nullAttributesClear_absentKeeps() {
    ContactUpdate clear =
        strict("{\"attributes\": null}", RoutingWire.UpdateContact.class).toUpdate();
    assertEquals(Optional.of(Map.of()), clear.attributes());
    ContactUpdate keep = strict("{\"priority\": 3}", RoutingWire.UpdateContact.class).toUpdate();
    assertEquals(Optional.empty(), keep.attributes());
    assertEquals(OptionalInt.of(3), keep.priority());
    var unknown =
        assertThrows(
            WireFormatException.class,
            () -> strict("{\"prio\": 3}", RoutingWire.UpdateContact.class));
    assertEquals(
        "unknown field 'prio' in request body; known fields: attributes, priority, requirements",
        unknown.getMessage());
  }
}
