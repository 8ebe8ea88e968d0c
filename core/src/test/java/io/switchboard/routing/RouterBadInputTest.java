package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Every refused call says what was wrong, with a stable code, and changes nothing. */
class RouterBadInputTest {

  private final ManualClock clock = ManualClock.create();
  private Router router;

  @BeforeEach
  void setUp() {
    router = Router.builder().clock(clock).offerTimeout(Duration.ofSeconds(5)).missLimit(0).build();
    router.createAgent(
        NewAgent.builder("a")
            .attribute("skills", List.of("x"))
            .capacity("voice", 1)
            .presence(Presence.available())
            .build());
    router.createContact(NewContact.builder("c", "voice").build());
    router.createContact(NewContact.builder("waiting", "voice").build());
  }

  private RoutingException refused(RoutingErrorCode code, Executable call) {
    long lastEvent = router.events(0, 1).lastId();
    List<Agent> agents = router.agents();
    List<Contact> waiting = router.waiting();
    RoutingException e = assertThrows(RoutingException.class, call);
    assertEquals(code, e.code(), e.getMessage());
    assertEquals(lastEvent, router.events(0, 1).lastId(), "no event");
    assertEquals(agents, router.agents());
    assertEquals(waiting, router.waiting());
    return e;
  }

  @Test
  void presence_unknownAgent_agentNotFound() {
    RoutingException e =
        refused(
            RoutingErrorCode.AGENT_NOT_FOUND, () -> router.presence("ghost", Presence.available()));
    assertEquals("agent 'ghost' does not exist", e.getMessage());
  }

  @Test
  void createContact_invalidRequirement_invalidSelectorWithColumn() {
    RoutingException e =
        refused(
            RoutingErrorCode.INVALID_SELECTOR,
            () ->
                router.createContact(
                    NewContact.builder("bad", "voice").requirements("skills HAS 'x' AND").build()));
    assertTrue(
        e.getMessage().startsWith("requirements: selector error at column 19"), e.getMessage());
  }

  @Test
  void createContact_invalidEscalationRequirement_refusedNamingTheStep() {
    RoutingException e =
        refused(
            RoutingErrorCode.INVALID_SELECTOR,
            () ->
                router.createContact(
                    NewContact.builder("bad", "voice")
                        .escalate(Duration.ofSeconds(10), "skills HAS")
                        .build()));
    assertTrue(e.getMessage().startsWith("escalations[0].requirements:"), e.getMessage());
  }

  @Test
  void accept_expiredReservation_reservationExpired() {
    String reservation = router.contact("c").reservationId().orElseThrow();
    clock.advanceSeconds(5);
    // c rests from the agent that let it time out; the agent has the next contact now
    String now = router.contact("waiting").reservationId().orElseThrow();

    RoutingException e =
        refused(RoutingErrorCode.RESERVATION_EXPIRED, () -> router.accept(reservation));

    assertTrue(e.getMessage().contains("timed out"), e.getMessage());
    assertEquals(now, router.contact("waiting").reservationId().orElseThrow());
  }

  @Test
  void accept_twice_invalidState() {
    String reservation = router.contact("c").reservationId().orElseThrow();
    router.accept(reservation);
    refused(RoutingErrorCode.INVALID_STATE, () -> router.accept(reservation));
    refused(RoutingErrorCode.INVALID_STATE, () -> router.reject(reservation));
  }

  @Test
  void createAgent_negativeCapacity_invalidArgumentNamingRangeAndValue() {
    RoutingException e =
        refused(
            RoutingErrorCode.INVALID_ARGUMENT,
            () -> router.createAgent(NewAgent.builder("b").capacity("voice", -1).build()));
    assertEquals("capacity of channel 'voice' must be 0..100, got -1", e.getMessage());
  }

  @Test
  void createAgent_duplicateId_alreadyExists() {
    refused(
        RoutingErrorCode.AGENT_ALREADY_EXISTS,
        () -> router.createAgent(NewAgent.builder("a").build()));
  }

  @Test
  void createContact_outOfRangeFields_invalidArgument() {
    refused(
        RoutingErrorCode.INVALID_ARGUMENT,
        () -> router.createContact(NewContact.builder("p", "voice").priority(5000).build()));
    refused(
        RoutingErrorCode.INVALID_ARGUMENT,
        () -> router.createContact(NewContact.builder("bad id!", "voice").build()));
    refused(
        RoutingErrorCode.INVALID_ARGUMENT,
        () ->
            router.createContact(
                NewContact.builder("w", "voice").maxWait(Duration.ofDays(30)).build()));
    refused(
        RoutingErrorCode.CONTACT_ALREADY_EXISTS,
        () -> router.createContact(NewContact.builder("c", "voice").build()));
  }

  @Test
  void complete_queuedContact_invalidState() {
    RoutingException e = refused(RoutingErrorCode.INVALID_STATE, () -> router.complete("waiting"));
    assertEquals(
        "contact 'waiting' is queued; only an assigned contact can be completed", e.getMessage());
  }

  @Test
  void removeAgent_withAssignedContact_invalidState() {
    router.accept(router.contact("c").reservationId().orElseThrow());
    refused(RoutingErrorCode.INVALID_STATE, () -> router.removeAgent("a"));
  }

  @Test
  void attributes_unsupportedValue_invalidArgument() {
    RoutingException e =
        assertThrows(
            RoutingException.class,
            () -> router.updateAttributes("a", Map.of("when", java.time.Instant.EPOCH)));
    assertEquals(RoutingErrorCode.INVALID_ARGUMENT, e.code());
    assertEquals(List.of("x"), router.agent("a").attributes().get("skills"));
  }

  @Test
  void builder_outOfRangeSetting_invalidArgument() {
    RoutingException e =
        assertThrows(
            RoutingException.class,
            () -> Router.builder().clock(clock).offerTimeout(Duration.ofMillis(10)).build());
    assertEquals("offerTimeout must be 1 s..1 h, got 10 ms", e.getMessage());
  }
}
