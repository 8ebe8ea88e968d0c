package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** The seeds' scenarios and the life of contacts, agents and reservations, on a manual clock. */
class RouterScenarioTest {

  private final ManualClock clock = ManualClock.create();

  private Router router(Router.Builder builder) {
    return builder.clock(clock).build();
  }

  private Router router() {
    return router(Router.builder());
  }

  private static NewAgent agent(String id, Map<String, Object> attributes) {
    return NewAgent.builder(id)
        .attributes(attributes)
        .capacity("voice", 1)
        .presence(Presence.available())
        .build();
  }

  private Contact call(Router router, String id, String requirements) {
    return router.createContact(NewContact.builder(id, "voice").requirements(requirements).build());
  }

  // ---- seed 000 ----------------------------------------------------------------------------

  @Test
  void seed000_spanishMaleCaller_getsEarliestSuchAgentWhoLeavesEveryQueue() {
    Router router = router();
    router.createAgent(agent("christine", Map.of("gender", "F", "languages", List.of("es"))));
    clock.advanceSeconds(1);
    router.createAgent(
        agent("billy", Map.of("gender", "M", "languages", List.of("en", "fr", "es"))));
    clock.advanceSeconds(1);
    router.createAgent(agent("chad", Map.of("gender", "M", "languages", List.of("es", "fr"))));
    clock.advanceSeconds(1);

    Contact spanish = call(router, "caller-1", "languages HAS 'es' AND gender = 'M'");
    Contact french = call(router, "caller-2", "languages HAS 'fr' AND gender = 'M'");

    assertEquals("billy", spanish.agentId().orElseThrow());
    assertEquals(ContactState.OFFERED, spanish.state());
    // billy was in the es, fr and en "queues"; taken from all at once, so caller 2 gets chad.
    assertEquals("chad", french.agentId().orElseThrow());
    assertFalse(router.agent("billy").eligibleFor("voice"));
    assertEquals(
        List.of("christine"),
        router.agents("languages HAS 'es'").stream()
            .filter(a -> a.eligibleFor("voice"))
            .map(Agent::id)
            .toList());
  }

  @Test
  void seed000_parallelCallersWantingSameAgent_onlyOneGetsHim() throws Exception {
    Router router = router();
    router.createAgent(agent("chad", Map.of("gender", "M", "languages", List.of("es", "fr"))));
    Thread[] threads = new Thread[2];
    Contact[] results = new Contact[2];
    String[] requirements = {
      "languages HAS 'es' AND gender = 'M'", "languages HAS 'fr' AND gender = 'M'"
    };
    for (int i = 0; i < 2; i++) {
      int n = i;
      threads[i] =
          Thread.ofPlatform().start(() -> results[n] = call(router, "c" + n, requirements[n]));
    }
    for (Thread t : threads) {
      t.join();
    }
    long offered = List.of(results).stream().filter(c -> c.agentId().isPresent()).count();
    assertEquals(1, offered);
    assertEquals(1, router.waiting().size());
  }

  // ---- seed 004 ----------------------------------------------------------------------------

  @Test
  void seed004_contact_goesToLongestAvailableAgentWithAllSkills() {
    Router router = router();
    router.createAgent(agent("a1", Map.of("skills", List.of("english", "billing"))));
    clock.advanceSeconds(1);
    router.createAgent(agent("a2", Map.of("skills", List.of("english"))));
    clock.advanceSeconds(1);
    router.createAgent(agent("a3", Map.of("skills", List.of("billing", "english", "vip"))));
    clock.advanceSeconds(1);

    Contact c1 = call(router, "c1", "skills HAS ALL ('english', 'billing')");
    Contact c2 = call(router, "c2", "skills HAS ALL ('english', 'billing')");

    assertEquals("a1", c1.agentId().orElseThrow());
    assertEquals("a3", c2.agentId().orElseThrow());
  }

  @Test
  void seed004_unservableContact_waitsInPlaceAndIsServedWhenMatchingAgentFrees() {
    Router router = router(Router.builder().autoAccept("voice"));
    router.createAgent(agent("en", Map.of("skills", List.of("english"))));
    router.createAgent(agent("es", Map.of("skills", List.of("spanish"))));
    call(router, "busy-es", "skills HAS 'spanish'");
    call(router, "first", "skills HAS 'spanish'");
    clock.advanceSeconds(1);
    call(router, "english-later", "skills HAS 'english'");
    call(router, "second", "skills HAS 'spanish'");

    // The English contact is served although Spanish ones arrived earlier: no head-of-line block.
    assertEquals(ContactState.ASSIGNED, router.contact("english-later").state());
    assertEquals(List.of("first", "second"), router.waiting().stream().map(Contact::id).toList());

    router.complete("busy-es");

    assertEquals("es", router.contact("first").agentId().orElseThrow());
    assertEquals(ContactState.QUEUED, router.contact("second").state());
  }

  // ---- reservations ------------------------------------------------------------------------

  @Test
  void accept_pendingOffer_assignsContact() {
    Router router = router();
    router.createAgent(agent("a", Map.of()));
    Contact offered = router.createContact(NewContact.builder("c", "voice").build());

    Contact assigned = router.accept(offered.reservationId().orElseThrow());

    assertEquals(ContactState.ASSIGNED, assigned.state());
    assertEquals(clock.instant(), assigned.answeredAt().orElseThrow());
    assertEquals(
        ReservationState.ACCEPTED, router.reservation(assigned.reservationId().get()).state());
  }

  @Test
  void reject_offer_contactBackInOriginalPlace_restsFromTheAgent_whichTakesTheNext() {
    Router router = router();
    router.createAgent(agent("a", Map.of()));
    Contact first = router.createContact(NewContact.builder("first", "voice").build());
    clock.advanceSeconds(1);
    router.createContact(NewContact.builder("second", "voice").build());

    Contact back = router.reject(first.reservationId().orElseThrow());

    // Nobody else is eligible, but the first contact is not offered to the agent that refused it
    // for the rest period (30 s by default): it waits, still ahead of the second, which the agent
    // takes meanwhile.
    assertEquals(ContactState.QUEUED, back.state());
    assertEquals("a", router.contact("second").agentId().orElseThrow());
    router.reject(router.contact("second").reservationId().orElseThrow());
    assertEquals(List.of("first", "second"), router.waiting().stream().map(Contact::id).toList());

    clock.advanceSeconds(29);
    assertEquals(ContactState.QUEUED, router.contact("first").state());
    clock.advanceSeconds(1);
    assertEquals("a", router.contact("first").agentId().orElseThrow(), "the rest is over");
  }

  @Test
  void reject_withOtherAgentAvailable_otherAgentGetsContactAndRejecterRests() {
    Router router = router();
    router.createAgent(agent("a", Map.of()));
    clock.advanceSeconds(1);
    router.createAgent(agent("b", Map.of()));
    Contact c = router.createContact(NewContact.builder("c", "voice").build());
    assertEquals("a", c.agentId().orElseThrow());
    clock.advanceSeconds(1);

    Contact back = router.reject(c.reservationId().orElseThrow());

    assertEquals("b", back.agentId().orElseThrow());
    assertTrue(router.agent("a").idleSince().isAfter(router.agent("b").idleSince()));
  }

  @Test
  void offerTimeout_elapsed_contactBackInPlaceBeforeLaterOnes() {
    Router router = router(Router.builder().offerTimeout(Duration.ofSeconds(10)).missLimit(0));
    router.createAgent(agent("a", Map.of()));
    Contact first = router.createContact(NewContact.builder("first", "voice").build());
    router.createContact(NewContact.builder("second", "voice").build());
    router.presence("a", Presence.away("lunch"));
    router.presence("a", Presence.available());
    String reservation = router.contact("first").reservationId().orElseThrow();

    clock.advanceSeconds(10);

    assertEquals(ReservationState.TIMED_OUT, router.reservation(reservation).state());
    Contact again = router.contact("first");
    // back in line ahead of the second, resting from the agent that let it time out
    assertEquals(ContactState.QUEUED, again.state());
    assertEquals(first.createdAt(), again.createdAt());
    assertEquals("a", router.contact("second").agentId().orElseThrow());
    assertEquals(List.of("first"), router.waiting().stream().map(Contact::id).toList());
    RoutingException e = assertThrows(RoutingException.class, () -> router.accept(reservation));
    assertEquals(RoutingErrorCode.RESERVATION_EXPIRED, e.code());
  }

  @Test
  void offerTimeout_missLimitReached_agentSetAwayAndContactWaits() {
    Router router =
        router(
            Router.builder()
                .offerTimeout(Duration.ofSeconds(5))
                .restPeriod(Duration.ofSeconds(1))
                .missLimit(2));
    router.createAgent(agent("a", Map.of()));
    router.createContact(NewContact.builder("c", "voice").build());

    clock.advanceSeconds(5);
    assertEquals(1, router.agent("a").consecutiveMisses());
    clock.advanceSeconds(1); // the rest after the miss: offered again
    assertEquals(ContactState.OFFERED, router.contact("c").state());
    clock.advanceSeconds(5);

    Agent a = router.agent("a");
    assertEquals(Presence.Kind.AWAY, a.presence().kind());
    assertTrue(a.presence().reason().contains("missed 2"));
    assertEquals(ContactState.QUEUED, router.contact("c").state());
    router.presence("a", Presence.available());
    assertEquals(0, router.agent("a").consecutiveMisses());
    assertEquals(ContactState.QUEUED, router.contact("c").state(), "resting from a");
    clock.advanceSeconds(1);
    assertEquals(ContactState.OFFERED, router.contact("c").state());
  }

  @Test
  void autoAccept_channel_contactAssignedWithoutAccept() {
    Router router = router(Router.builder().autoAccept("chat"));
    router.createAgent(
        NewAgent.builder("a").capacity("chat", 2).presence(Presence.available()).build());

    Contact c1 = router.createContact(NewContact.builder("c1", "chat").build());
    Contact c2 = router.createContact(NewContact.builder("c2", "chat").build());
    Contact c3 = router.createContact(NewContact.builder("c3", "chat").build());

    assertEquals(ContactState.ASSIGNED, c1.state());
    assertEquals(ContactState.ASSIGNED, c2.state());
    assertEquals(ContactState.QUEUED, c3.state());
    assertEquals(Map.of("chat", 2), router.agent("a").load());
  }

  // ---- contacts ----------------------------------------------------------------------------

  @Test
  void escalation_afterDelay_requirementsWidenAndContactIsServed() {
    Router router = router();
    router.createAgent(agent("generalist", Map.of("skills", List.of("general"))));
    router.createContact(
        NewContact.builder("c", "voice")
            .requirements("skills HAS 'expert'")
            .escalate(Duration.ofSeconds(30), "skills HAS ANY ('expert', 'general')")
            .build());
    clock.advanceSeconds(29);
    assertEquals(ContactState.QUEUED, router.contact("c").state());

    clock.advanceSeconds(1);

    Contact c = router.contact("c");
    assertEquals(ContactState.OFFERED, c.state());
    assertEquals(1, c.escalationStep());
    assertEquals("skills HAS ANY ('expert', 'general')", c.requirements().orElseThrow());
  }

  @Test
  void maxWait_elapsedWhileQueued_timedOut() {
    Router router = router();
    router.createContact(NewContact.builder("c", "voice").maxWait(Duration.ofMinutes(2)).build());

    clock.advanceSeconds(120);

    assertEquals(ContactState.TIMED_OUT, router.contact("c").state());
    assertEquals(1, router.stats().overall().timedOut());
  }

  @Test
  void abandon_offeredContact_offerCancelledAndAgentTakesNext() {
    Router router = router();
    router.createAgent(agent("a", Map.of()));
    Contact c1 = router.createContact(NewContact.builder("c1", "voice").build());
    router.createContact(NewContact.builder("c2", "voice").build());

    Contact gone = router.abandon("c1");

    assertEquals(ContactState.ABANDONED, gone.state());
    assertEquals(
        ReservationState.CANCELLED, router.reservation(c1.reservationId().orElseThrow()).state());
    assertEquals("a", router.contact("c2").agentId().orElseThrow());
    assertEquals(OptionalDouble.of(1.0), router.stats().overall().abandonmentRate());
  }

  @Test
  void complete_withWrapUp_agentIneligibleUntilWrapUpEnds() {
    Router router = router(Router.builder().autoAccept("voice"));
    router.createAgent(agent("a", Map.of()));
    router.createContact(NewContact.builder("c1", "voice").build());
    router.createContact(NewContact.builder("c2", "voice").build());

    Contact c1 = router.complete("c1", Duration.ofSeconds(15));

    assertEquals(ContactState.WRAP_UP, c1.state());
    assertTrue(router.agent("a").inWrapUp());
    assertEquals(ContactState.QUEUED, router.contact("c2").state());
    clock.advanceSeconds(15);
    assertEquals(ContactState.COMPLETED, router.contact("c1").state());
    assertEquals(ContactState.ASSIGNED, router.contact("c2").state());
  }

  @Test
  void complete_defaultWrapUpOfChannel_applied() {
    Router router =
        router(Router.builder().autoAccept("voice").wrapUp("voice", Duration.ofSeconds(5)));
    router.createAgent(agent("a", Map.of()));
    router.createContact(NewContact.builder("c1", "voice").build());

    assertEquals(ContactState.WRAP_UP, router.complete("c1").state());
    clock.advanceSeconds(5);
    assertEquals(ContactState.COMPLETED, router.contact("c1").state());
    assertFalse(router.agent("a").inWrapUp());
  }

  // ---- strategies --------------------------------------------------------------------------

  @Test
  void highestStrategy_proficiency_mostProficientAgentWinsAndTiesGoToLongestIdle() {
    Router router = router(Router.builder().strategy(Strategy.highest("proficiency")));
    router.createAgent(agent("low", Map.of("proficiency", 2)));
    router.createAgent(agent("high-old", Map.of("proficiency", 5)));
    clock.advanceSeconds(1);
    router.createAgent(agent("high-new", Map.of("proficiency", 5.0)));
    router.createAgent(agent("none", Map.of()));

    assertEquals("high-old", call(router, "c1", "proficiency > 0").agentId().orElseThrow());
    assertEquals("high-new", call(router, "c2", "proficiency > 0").agentId().orElseThrow());
    assertEquals("low", call(router, "c3", "proficiency > 0").agentId().orElseThrow());
    assertEquals(
        "none", router.createContact(NewContact.builder("c4", "voice").build()).agentId().get());
  }

  @Test
  void leastOccupiedStrategy_chat_spreadsLoad() {
    Router router = router(Router.builder().strategy(Strategy.leastOccupied()).autoAccept("chat"));
    for (String id : List.of("a", "b")) {
      router.createAgent(
          NewAgent.builder(id).capacity("chat", 3).presence(Presence.available()).build());
    }
    for (int i = 0; i < 4; i++) {
      router.createContact(NewContact.builder("c" + i, "chat").build());
    }
    assertEquals(Map.of("chat", 2), router.agent("a").load());
    assertEquals(Map.of("chat", 2), router.agent("b").load());
  }

  @Test
  void longestIdleStrategy_agentBackFromBreak_goesToBackOfLine() {
    Router router = router();
    router.createAgent(agent("a", Map.of()));
    clock.advanceSeconds(1);
    router.createAgent(agent("b", Map.of()));
    router.presence("a", Presence.away("break"));
    router.presence("a", Presence.available());

    assertEquals(
        "b", router.createContact(NewContact.builder("c", "voice").build()).agentId().get());
  }
}
