package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.spi.MemoryRouterJournal;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Changes while waiting (priority, attributes, requirements, cancel) and transfers of assigned
 * contacts (to a task queue, to an agent): design.md, "Routing workspaces, task queues and
 * workflows".
 */
class RouterChangesTest {

  private final ManualClock clock = ManualClock.create();
  private final MemoryRouterJournal journal = new MemoryRouterJournal();
  private Router router = build();

  private Router build() {
    return Router.builder()
        .clock(clock)
        .offerTimeout(Duration.ofSeconds(10))
        .missLimit(0)
        .journal(journal)
        .build();
  }

  private void agent(String id, Presence presence, String... skills) {
    router.createAgent(
        NewAgent.builder(id)
            .attribute("skills", List.of(skills))
            .capacity("voice", 1)
            .presence(presence)
            .build());
  }

  private void contact(String id, int priority, String requirements) {
    NewContact.Builder b = NewContact.builder(id, "voice").priority(priority);
    if (requirements != null) {
      b.requirements(requirements);
    }
    router.createContact(b.build());
    clock.advance(Duration.ofSeconds(1));
  }

  private List<String> waitingIds() {
    return router.waiting().stream().map(Contact::id).toList();
  }

  private List<String> eventTypes(long after) {
    return router.events(after, 100).events().stream().map(RoutingEvent::type).toList();
  }

  private String offeredTo(String agentId) {
    return router.pendingReservations(agentId).get(0).contactId();
  }

  @Test
  void priorityChange_reordersTheLine_andTheNextOffer() {
    agent("ann", Presence.offline(), "x");
    contact("c1", 0, null);
    contact("c2", 0, null);
    contact("c3", 0, null);
    Contact before = router.contact("c3");
    long last = router.events(0, 1).lastId();

    Contact raised = router.updateContact("c3", ContactUpdate.none().withPriority(5));

    assertEquals(5, raised.priority());
    assertEquals(before.createdAt(), raised.createdAt(), "arrival time kept");
    assertEquals(List.of("c3", "c1", "c2"), waitingIds());
    assertEquals(List.of("contact.updated"), eventTypes(last));
    router.presence("ann", Presence.available());
    assertEquals("c3", offeredTo("ann"));
  }

  @Test
  void priorityChange_amongEquals_theContactStandsByItsArrival() {
    agent("ann", Presence.offline(), "x");
    contact("early", 0, null);
    contact("high", 5, null);
    contact("late", 0, null);

    router.updateContact("early", ContactUpdate.none().withPriority(5));
    router.updateContact("late", ContactUpdate.none().withPriority(5));

    // all at 5 now: by arrival, not by when their priority changed
    assertEquals(List.of("early", "high", "late"), waitingIds());
    router.updateContact("early", ContactUpdate.none().withPriority(-3));
    assertEquals(List.of("high", "late", "early"), waitingIds());
  }

  @Test
  void priorityChange_ofAnOfferedContact_offerStands_andAppliesWhenItComesBack() {
    agent("ann", Presence.available(), "x");
    contact("c1", 0, null); // offered to ann
    router.presence("ann", Presence.offline()); // back in line
    agent("bob", Presence.offline(), "x");
    contact("c2", 1, null);
    router.presence("ann", Presence.available());
    assertEquals("c2", offeredTo("ann"));

    router.updateContact("c2", ContactUpdate.none().withPriority(-1));

    assertEquals(ContactState.OFFERED, router.contact("c2").state());
    router.reject(router.contact("c2").reservationId().orElseThrow());
    // back with priority -1, behind c1; ann (the only eligible agent) takes c1 first
    assertEquals("c1", offeredTo("ann"));
    assertEquals(List.of("c2"), waitingIds());
  }

  @Test
  void requirementChange_rematches_andKeepsArrival() {
    agent("ann", Presence.available(), "es");
    contact("c1", 0, "skills HAS 'fr'");
    assertEquals(List.of("c1"), waitingIds());
    Contact before = router.contact("c1");

    Contact changed =
        router.updateContact(
            "c1",
            ContactUpdate.none()
                .withRequirements("skills HAS 'es'")
                .withAttributes(Map.of("language", "es")));

    assertEquals(ContactState.OFFERED, changed.state());
    assertEquals(Optional.of("ann"), changed.agentId());
    assertEquals(Map.of("language", "es"), changed.attributes());
    assertEquals(before.createdAt(), changed.createdAt());
    assertEquals(List.of(), waitingIds());
  }

  @Test
  void requirementChange_toAnyAgent_withAnEmptyText() {
    agent("ann", Presence.available(), "es");
    contact("c1", 0, "skills HAS 'fr'");

    Contact changed = router.updateContact("c1", ContactUpdate.none().withRequirements(""));

    assertEquals(Optional.empty(), changed.requirements());
    assertEquals(ContactState.OFFERED, changed.state());
  }

  @Test
  void cancel_queued_removesIt_andEmitsAnEvent() {
    contact("c1", 0, null);
    long last = router.events(0, 1).lastId();

    Contact cancelled = router.cancel("c1", "caller called back");

    assertEquals(ContactState.CANCELLED, cancelled.state());
    assertTrue(cancelled.endedAt().isPresent());
    assertEquals(List.of(), waitingIds());
    RoutingEvent e = router.events(last, 10).events().get(0);
    assertEquals(new RoutingEvent.ContactCancelled(e.id(), e.at(), "c1", "caller called back"), e);
    ContactStats overall = router.stats().overall();
    assertEquals(0, overall.abandoned(), "a cancel is not an abandon");
    assertEquals(0, overall.answered());
  }

  @Test
  void cancel_offered_cancelsTheOffer_andTheAgentTakesTheNext() {
    agent("ann", Presence.available(), "x");
    contact("c1", 0, null);
    contact("c2", 0, null);
    String offer = router.contact("c1").reservationId().orElseThrow();

    router.cancel("c1", "duplicate");

    assertEquals(ReservationState.CANCELLED, router.reservation(offer).state());
    assertEquals("c2", offeredTo("ann"));
  }

  @Test
  void transferToQueue_freesTheAgent_keepsArrival_andGoesToTheNewQueue() {
    agent("ann", Presence.available(), "billing");
    agent("bob", Presence.offline(), "general");
    contact("c1", 0, "skills HAS 'billing'");
    router.accept(router.contact("c1").reservationId().orElseThrow());
    contact("c2", 0, "skills HAS 'general'"); // arrives after c1
    router.presence("bob", Presence.available());
    router.accept(router.contact("c2").reservationId().orElseThrow());
    contact("c3", 0, "skills HAS 'general'");
    Contact before = router.contact("c1");
    long last = router.events(0, 1).lastId();

    Contact moved = router.transfer("c1", "general", Optional.of("skills HAS 'general'"));

    assertEquals(ContactState.QUEUED, moved.state());
    assertEquals(Optional.of("general"), moved.queue());
    assertEquals(before.createdAt(), moved.createdAt());
    assertEquals(before.answeredAt(), moved.answeredAt(), "the first answer stands");
    assertEquals(List.of("c1", "c3"), waitingIds(), "c1 ahead of c3: it arrived first");
    assertEquals(List.of("contact.transferred"), eventTypes(last));
    assertEquals(List.of(), router.pendingReservations("ann"), "ann matches neither");
    router.complete("c2");
    assertEquals("c1", offeredTo("bob"));
    router.accept(router.contact("c1").reservationId().orElseThrow());
    assertEquals(2, router.stats().overall().answered(), "c1 and c2, each once");
  }

  @Test
  void transferToQueue_theTransferringAgentTakesWaitingWorkAtOnce() {
    agent("ann", Presence.available(), "billing");
    contact("c1", 0, null);
    router.accept(router.contact("c1").reservationId().orElseThrow());
    contact("c2", 0, "skills HAS 'billing'");

    router.transfer("c1", "general", Optional.of("skills HAS 'general'"));

    assertEquals("c2", offeredTo("ann"));
  }

  @Test
  void transferToAgent_offersToThatAgent_andARejectLeavesItWaiting() {
    agent("ann", Presence.available(), "billing");
    agent("bob", Presence.offline(), "general");
    contact("c1", 0, "skills HAS 'billing'");
    router.accept(router.contact("c1").reservationId().orElseThrow());
    router.presence("bob", Presence.available());
    long last = router.events(0, 1).lastId();

    Contact moved = router.transferToAgent("c1", "bob");

    assertEquals(ContactState.OFFERED, moved.state());
    assertEquals(Optional.of("bob"), moved.agentId());
    assertEquals(
        List.of("contact.transferred", "reservation.offered"), eventTypes(last).subList(0, 2));
    assertEquals(List.of(), router.pendingReservations("ann"));
    assertEquals(List.of(), router.agent("ann").load().keySet().stream().toList());

    router.reject(moved.reservationId().orElseThrow());
    // back in line under its own requirement: ann (billing) matches it and takes it
    assertEquals("c1", offeredTo("ann"));
  }

  @Test
  void transferToAgent_thatCannotTakeIt_refused_nothingChanged() {
    agent("ann", Presence.available(), "billing");
    agent("bob", Presence.away("lunch"), "general");
    contact("c1", 0, null);
    router.accept(router.contact("c1").reservationId().orElseThrow());

    RoutingException e =
        refused(RoutingErrorCode.INVALID_STATE, () -> router.transferToAgent("c1", "bob"));
    assertTrue(
        e.getMessage().startsWith("agent 'bob' cannot take a voice contact now"), e.getMessage());
    refused(RoutingErrorCode.INVALID_ARGUMENT, () -> router.transferToAgent("c1", "ann"));
    refused(RoutingErrorCode.AGENT_NOT_FOUND, () -> router.transferToAgent("c1", "ghost"));
    assertEquals(ContactState.ASSIGNED, router.contact("c1").state());
  }

  @Test
  void badInput_clearCodes_nothingChanged() {
    agent("ann", Presence.available(), "x");
    contact("assigned", 0, null);
    router.accept(router.contact("assigned").reservationId().orElseThrow());
    contact("waiting", 0, null);

    RoutingException unknown =
        refused(
            RoutingErrorCode.CONTACT_NOT_FOUND,
            () -> router.updateContact("ghost", ContactUpdate.none().withPriority(1)));
    assertEquals("contact 'ghost' does not exist", unknown.getMessage());
    RoutingException notWaiting =
        refused(
            RoutingErrorCode.INVALID_STATE,
            () -> router.updateContact("assigned", ContactUpdate.none().withPriority(1)));
    assertEquals(
        "contact 'assigned' is assigned; only a queued or offered contact can be changed",
        notWaiting.getMessage());
    RoutingException range =
        refused(
            RoutingErrorCode.INVALID_ARGUMENT,
            () -> router.updateContact("waiting", ContactUpdate.none().withPriority(-1001)));
    assertTrue(range.getMessage().contains("-1001"), range.getMessage());
    refused(
        RoutingErrorCode.INVALID_SELECTOR,
        () -> router.updateContact("waiting", ContactUpdate.none().withRequirements("skills HAS")));
    refused(
        RoutingErrorCode.INVALID_ARGUMENT,
        () -> router.updateContact("waiting", ContactUpdate.none()));
    refused(RoutingErrorCode.INVALID_STATE, () -> router.cancel("assigned", "x"));
    refused(RoutingErrorCode.CONTACT_NOT_FOUND, () -> router.cancel("ghost", "x"));
    refused(
        RoutingErrorCode.INVALID_STATE,
        () -> router.transfer("waiting", "general", Optional.empty()));
    refused(RoutingErrorCode.INVALID_STATE, () -> router.transferToAgent("waiting", "ann"));
    refused(
        RoutingErrorCode.INVALID_ARGUMENT,
        () -> router.transfer("assigned", "no spaces allowed", Optional.empty()));
    router.cancel("waiting", "x");
    refused(
        RoutingErrorCode.INVALID_STATE,
        () -> router.updateContact("waiting", ContactUpdate.none().withPriority(1)));
  }

  @Test
  void restart_keepsChangesCancelsAndTransfers() {
    agent("ann", Presence.available(), "billing");
    agent("bob", Presence.offline(), "general");
    contact("t1", 0, "skills HAS 'billing'");
    router.accept(router.contact("t1").reservationId().orElseThrow());
    contact("c1", 0, "skills HAS 'general'");
    contact("c2", 0, "skills HAS 'general'");
    contact("c3", 0, "skills HAS 'general'");
    router.updateContact("c3", ContactUpdate.none().withPriority(7));
    router.updateContact("c2", ContactUpdate.none().withAttributes(Map.of("vip", true)));
    router.cancel("c1", "gone");
    router.transfer("t1", "general", Optional.of("skills HAS 'general'"));
    List<Contact> waiting = router.waiting();
    Contact t1 = router.contact("t1");
    Contact c1 = router.contact("c1");

    router.close();
    router = build();

    assertEquals(waiting, router.waiting());
    assertEquals(List.of("c3", "t1", "c2"), waitingIds());
    assertEquals(t1, router.contact("t1"));
    assertEquals(c1, router.contact("c1"));
    assertEquals(Map.of("vip", true), router.contact("c2").attributes());
    router.presence("bob", Presence.available());
    assertEquals("c3", offeredTo("bob"));
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
}
