package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.spi.MemoryRouterJournal;
import io.switchboard.routing.spi.WorkspaceCodec;
import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A refusal is heard (design.md, "Routing workspaces, task queues and workflows"): after an agent
 * rejects an offer or lets it time out, that contact is not offered to that agent again for the
 * workspace's rest period, so no loop of offers is possible; the workspace names the activity an
 * agent moves to after a reject and after the miss limit, always one of its own; a workspace has
 * its own miss limit, auto-accept channels and statistics window; an offered workflow contact
 * routed again to a queue its agent does not match has its offer withdrawn. All on a manual clock.
 */
class RefusalTest {

  private static final List<Activity> ACTIVITIES =
      List.of(
          new Activity("Ready", true),
          new Activity("Lunch", false),
          new Activity("Offline", false));

  private final ManualClock clock = ManualClock.create();
  private final WorkspaceStore store = WorkspaceStore.memory();
  private final WorkspaceRouters routers = WorkspaceRouters.memory(clock);
  private Router defaultRouter = Router.builder().clock(clock).build();
  private Workspaces workspaces =
      new Workspaces(defaultRouter, WorkspaceSettings.DEFAULTS, store, routers);

  @AfterEach
  void stop() {
    workspaces.close();
    defaultRouter.close();
  }

  private Workspace centre(WorkspaceSettings settings, List<Activity> activities) {
    return workspaces.create(WorkspaceDefinition.create("centre", settings, activities));
  }

  private static WorkspaceSettings settings() {
    return WorkspaceSettings.DEFAULTS.withDefaultActivity("Offline");
  }

  private static NewAgent agent(String id) {
    return NewAgent.builder(id).capacity("voice", 1).capacity("chat", 2).build();
  }

  private static List<String> offersOf(Router router, String contact) {
    List<String> offers = new ArrayList<>();
    for (RoutingEvent e : router.events(0, 10_000).events()) {
      if (e instanceof RoutingEvent.ReservationOffered o
          && o.reservation().contactId().equals(contact)) {
        offers.add(o.reservation().agentId());
      }
    }
    return offers;
  }

  @Test
  void reject_theOnlyAgentIsNotOfferedTheContactAgain_untilTheRestPeriodPassed() {
    Workspace centre = centre(settings().withRestPeriod(Duration.ofSeconds(20)), ACTIVITIES);
    Router r = centre.router();
    centre.createAgent(agent("ann"), Optional.of("Ready"));
    Contact c = centre.createContact(NewContact.builder("c1", "voice").build(), Optional.empty());
    assertEquals("res-1", c.reservationId().orElseThrow());

    r.reject("res-1");
    assertEquals(ContactState.QUEUED, r.contact("c1").state(), "not offered to ann again at once");
    clock.advanceMillis(200);
    assertEquals(ContactState.QUEUED, r.contact("c1").state());
    clock.advanceMillis(19_799);
    assertEquals(ContactState.QUEUED, r.contact("c1").state());
    clock.advanceMillis(1);
    assertEquals("ann", r.contact("c1").agentId().orElseThrow(), "after the rest period");
    assertEquals(List.of("ann", "ann"), offersOf(r, "c1"));
  }

  @Test
  void reject_anotherAgentTakesTheContactAtOnce_andTheRejecterTakesOtherWork() {
    Workspace centre = centre(settings(), ACTIVITIES);
    Router r = centre.router();
    centre.createAgent(agent("ann"), Optional.of("Ready"));
    centre.createContact(NewContact.builder("c1", "voice").build(), Optional.empty());
    centre.createContact(NewContact.builder("c2", "voice").build(), Optional.empty());
    clock.advanceSeconds(1);
    centre.createAgent(agent("bob"), Optional.of("Ready"));
    assertEquals("bob", r.contact("c2").agentId().orElseThrow());
    r.reject(r.contact("c1").reservationId().orElseThrow());
    assertEquals(ContactState.QUEUED, r.contact("c1").state(), "bob is busy, ann refused it");
    r.reject(r.contact("c2").reservationId().orElseThrow());
    // c1 (ahead) goes to bob at once; c2 rests from bob, and ann refused c1 only: ann takes c2
    assertEquals("bob", r.contact("c1").agentId().orElseThrow());
    assertEquals("ann", r.contact("c2").agentId().orElseThrow());
  }

  @Test
  void alwaysRejecting_offersAreBoundedByTheRestPeriod_noStorm() {
    Workspace centre = centre(settings().withRestPeriod(Duration.ofSeconds(10)), ACTIVITIES);
    Router r = centre.router();
    centre.createAgent(agent("ann"), Optional.of("Ready"));
    centre.createAgent(agent("bob"), Optional.of("Ready"));
    centre.createContact(NewContact.builder("c1", "voice").build(), Optional.empty());
    // a callback (or agent) that answers every offer with a reject at once, for ten minutes
    for (int step = 0; step < 6_000; step++) {
      for (String agent : List.of("ann", "bob")) {
        for (Reservation res : r.pendingReservations(agent)) {
          r.reject(res.id());
        }
      }
      clock.advanceMillis(100);
    }
    int offers = offersOf(r, "c1").size();
    // each agent at most once per rest period: 2 * (600 s / 10 s + 1)
    assertTrue(offers <= 122, "offers in 10 minutes: " + offers);
    assertTrue(offers >= 100, "offered again after each rest: " + offers);
  }

  @Test
  void timedOutOffer_restsToo_andTheMissLimitMovesTheAgentToTheDefaultUnavailableActivity() {
    Workspace centre =
        centre(
            settings().withMissLimit(Optional.of(1)).withOfferTimeout(Duration.ofSeconds(5)),
            List.of(
                new Activity("Ready", true),
                new Activity("Away", true),
                new Activity("Lunch", false),
                new Activity("Offline", false)));
    Router r = centre.router();
    centre.createAgent(agent("ann"), Optional.of("Ready"));
    centre.createContact(NewContact.builder("c1", "voice").build(), Optional.empty());
    clock.advanceSeconds(5);
    Agent ann = r.agent("ann");
    assertEquals("Offline", ann.activity(), "the default activity, which is unavailable");
    assertEquals(Presence.offline(), ann.presence());
    assertTrue(
        centre.definition().activity(ann.activity()).isPresent(), "an activity of the workspace");
    clock.advanceSeconds(1);
    centre.activity("ann", "Away"); // an available activity named Away: takes work
    assertEquals(ContactState.QUEUED, r.contact("c1").state(), "c1 rests from ann");
    clock.advanceSeconds(30);
    assertEquals("ann", r.contact("c1").agentId().orElseThrow());
    assertEquals("Away", r.agent("ann").activity());
    assertEquals(
        Set.of("Ready", "Offline"),
        r.agent("ann").activityTime().keySet(),
        "no 'away' beside 'Away'");
  }

  @Test
  void timeoutActivity_named_isWhereTheMissLimitMovesAgents_andMustBeAnUnavailableOwnActivity() {
    Workspace centre =
        centre(
            settings().withMissLimit(Optional.of(2)).withTimeoutActivity(Optional.of("Lunch")),
            ACTIVITIES);
    centre.createAgent(agent("ann"), Optional.of("Ready"));
    centre.createAgent(agent("bob"), Optional.of("Ready"));
    centre.createContact(NewContact.builder("c1", "voice").build(), Optional.empty());
    clock.advanceSeconds(30); // ann misses c1; bob has it now
    clock.advanceSeconds(30); // bob misses c1; ann (rest over) has it again
    clock.advanceSeconds(30); // ann's second miss
    assertEquals("Lunch", centre.router().agent("ann").activity());
    assertEquals(Presence.away("Lunch"), centre.router().agent("ann").presence());

    WorkspaceDefinition before = centre.definition();
    RoutingException available =
        assertThrows(
            RoutingException.class,
            () -> centre.configure(before.settings().withTimeoutActivity(Optional.of("Ready"))));
    assertEquals(RoutingErrorCode.INVALID_ARGUMENT, available.code());
    assertTrue(available.getMessage().contains("available=false"), available.getMessage());
    RoutingException missing =
        assertThrows(
            RoutingException.class,
            () -> centre.configure(before.settings().withTimeoutActivity(Optional.of("away"))));
    assertEquals(RoutingErrorCode.ACTIVITY_NOT_FOUND, missing.code());
    assertTrue(missing.getMessage().contains("Ready, Lunch, Offline"), missing.getMessage());
    RoutingException reject =
        assertThrows(
            RoutingException.class,
            () -> centre.configure(before.settings().withRejectActivity(Optional.of("Nap"))));
    assertEquals(RoutingErrorCode.ACTIVITY_NOT_FOUND, reject.code());
    assertEquals(before, centre.definition(), "nothing changed");
    RoutingException inUse =
        assertThrows(RoutingException.class, () -> centre.removeActivity("Lunch"));
    assertEquals(RoutingErrorCode.ACTIVITY_IN_USE, inUse.code());
    RoutingException madeAvailable =
        assertThrows(RoutingException.class, () -> centre.putActivity(new Activity("Lunch", true)));
    assertEquals(RoutingErrorCode.ACTIVITY_IN_USE, madeAvailable.code());
    assertEquals(before, centre.definition(), "nothing changed");
  }

  @Test
  void rejectActivity_movesTheRejectingAgent_andWithdrawsItsOtherOffers() {
    Workspace centre = centre(settings().withRejectActivity(Optional.of("Lunch")), ACTIVITIES);
    Router r = centre.router();
    centre.createAgent(agent("ann"), Optional.of("Ready"));
    centre.createContact(NewContact.builder("c1", "chat").build(), Optional.empty());
    centre.createContact(NewContact.builder("c2", "chat").build(), Optional.empty());
    assertEquals(2, r.pendingReservations("ann").size());
    r.reject(r.contact("c1").reservationId().orElseThrow());
    assertEquals("Lunch", r.agent("ann").activity());
    assertEquals(List.of(), r.pendingReservations("ann"), "the other offer withdrawn");
    assertEquals(ContactState.QUEUED, r.contact("c2").state());
  }

  @Test
  void workspaceSettings_ownMissLimitAutoAcceptAndWindow_overTheServersDefaults() {
    Workspace centre =
        centre(
            settings()
                .withMissLimit(Optional.of(1))
                .withAutoAccept(Optional.of(Set.of("chat")))
                .withStatsWindow(Optional.of(Duration.ofMinutes(5))),
            ACTIVITIES);
    Router r = centre.router();
    centre.createAgent(agent("ann"), Optional.of("Ready"));
    assertEquals(
        ContactState.ASSIGNED,
        centre.createContact(NewContact.builder("c1", "chat").build(), Optional.empty()).state(),
        "auto-accepted on chat");
    centre.createContact(NewContact.builder("v1", "voice").build(), Optional.empty());
    clock.advanceSeconds(30);
    assertEquals("Offline", r.agent("ann").activity(), "one miss is the limit");
  }

  @Test
  void settings_roundTripThroughTheCodec_andSurviveARestart() {
    WorkspaceSettings s =
        settings()
            .withMissLimit(Optional.of(4))
            .withAutoAccept(Optional.of(Set.of("chat", "sms")))
            .withStatsWindow(Optional.of(Duration.ofMinutes(30)))
            .withRestPeriod(Duration.ofSeconds(45))
            .withRejectActivity(Optional.of("Lunch"))
            .withTimeoutActivity(Optional.of("Lunch"));
    Workspace centre = centre(s, ACTIVITIES);
    WorkspaceDefinition d = centre.definition();
    assertEquals(d, WorkspaceCodec.decode(WorkspaceCodec.encode(d)));
    workspaces.close();
    defaultRouter.close();
    defaultRouter = Router.builder().clock(clock).build();
    workspaces = new Workspaces(defaultRouter, WorkspaceSettings.DEFAULTS, store, routers);
    assertEquals(s, workspaces.get("centre").definition().settings());
  }

  @Test
  void aRestSurvivesARestart() {
    MemoryRouterJournal journal = new MemoryRouterJournal();
    Router r = Router.builder().clock(clock).journal(journal).build();
    r.createAgent(agent("ann").in(new Activity("available", true)));
    r.createContact(NewContact.builder("c1", "voice").build());
    r.reject("res-1");
    r.close();
    clock.advanceSeconds(10);
    Router again = Router.builder().clock(clock).journal(journal).build();
    try {
      assertEquals(ContactState.QUEUED, again.contact("c1").state(), "still resting");
      clock.advanceSeconds(20);
      assertEquals("ann", again.contact("c1").agentId().orElseThrow());
    } finally {
      again.close();
    }
  }

  @Test
  void offeredWorkflowContact_routedToAQueueItsAgentDoesNotMatch_hasItsOfferWithdrawn() {
    Workspace centre = centre(settings(), ACTIVITIES);
    Router r = centre.router();
    centre.putQueue(TaskQueue.named("billing").withWorkerExpression("skills HAS 'billing'"));
    centre.putQueue(TaskQueue.named("sales").withWorkerExpression("skills HAS 'sales'"));
    centre.putWorkflow(
        new Workflow(
            "support",
            List.of(
                new WorkflowFilter(
                    "sales", "topic = 'sales'", List.of(WorkflowTarget.queue("sales")))),
            List.of(WorkflowTarget.queue("billing")),
            Optional.empty()));
    centre.createAgent(
        NewAgent.builder("ann")
            .attribute("skills", List.of("billing"))
            .capacity("voice", 1)
            .build(),
        Optional.of("Ready"));
    centre.createAgent(
        NewAgent.builder("sam").attribute("skills", List.of("sales")).capacity("voice", 1).build(),
        Optional.of("Offline"));
    Contact c =
        centre.createContact(
            NewContact.builder("c1", "voice").attribute("topic", "billing").build(),
            Optional.empty(),
            Optional.of("support"));
    String offered = c.reservationId().orElseThrow();
    assertEquals("ann", c.agentId().orElseThrow());

    Contact moved =
        centre.updateContact("c1", ContactUpdate.none().withAttributes(Map.of("topic", "sales")));

    assertEquals("sales", moved.queue().orElseThrow());
    assertEquals(ContactState.QUEUED, moved.state(), "ann does not match sales: offer withdrawn");
    assertEquals(ReservationState.CANCELLED, r.reservation(offered).state());
    assertEquals(List.of(), r.pendingReservations("ann"));
    assertTrue(
        r.events(0, 1000).events().stream()
            .anyMatch(
                e ->
                    e instanceof RoutingEvent.ReservationCancelled x
                        && x.reservationId().equals(offered)),
        "reservation.cancelled emitted");
    centre.activity("sam", "Ready");
    assertEquals("sam", r.contact("c1").agentId().orElseThrow());
  }
}
