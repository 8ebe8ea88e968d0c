package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.spi.MemoryRouterJournal;
import io.switchboard.routing.spi.RouterRecordCodec;
import io.switchboard.routing.spi.StoredAgent;
import io.switchboard.routing.spi.StoredContact;
import io.switchboard.routing.spi.WorkspaceCodec;
import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Workspaces (docs/routing.md, "Workspaces, queues and workflows"): each with its own settings,
 * activities, task queues, agents and contacts; {@code default} is the router of before;
 * definitions, activities and a contact's queue survive a restart; every refusal has its code and
 * changes nothing.
 */
class WorkspacesTest {

  private static final List<Activity> CENTRE =
      List.of(
          new Activity("Ready", true),
          new Activity("Lunch", false),
          new Activity("Training", false),
          new Activity("offline", false));

  private final ManualClock clock = ManualClock.create();
  private final WorkspaceStore store = WorkspaceStore.memory();
  private final WorkspaceRouters routers = WorkspaceRouters.memory(clock);
  private final MemoryRouterJournal defaultJournal = new MemoryRouterJournal();
  private Router defaultRouter;
  private Workspaces workspaces;

  @BeforeEach
  void start() {
    defaultRouter = Router.builder().clock(clock).journal(defaultJournal).build();
    workspaces = new Workspaces(defaultRouter, WorkspaceSettings.DEFAULTS, store, routers);
  }

  /** Closes everything and builds it again on the same stores, as a server restart does. */
  private void restart() {
    workspaces.close();
    defaultRouter.close();
    start();
  }

  @AfterEach
  void stop() {
    workspaces.close();
    defaultRouter.close();
  }

  private Workspace centre() {
    return workspaces.create(
        WorkspaceDefinition.create(
            "centre", WorkspaceSettings.DEFAULTS.withDefaultActivity("offline"), CENTRE));
  }

  private static NewAgent agent(String id, String... skills) {
    return NewAgent.builder(id).attribute("skills", List.of(skills)).capacity("voice", 1).build();
  }

  @Test
  void defaultWorkspace_isTheRouterOfBefore_withThePresenceValuesAsActivities() {
    Workspace d = workspaces.get("default");
    assertSame(defaultRouter, d.router());
    assertEquals(Activity.DEFAULTS, d.definition().activities());
    assertEquals(List.of("default"), workspaces.list().stream().map(Workspace::name).toList());
    Agent a = d.createAgent(agent("a"), Optional.of("available"));
    assertEquals(Presence.available(), a.presence());
    assertEquals("available", a.activity());
    assertEquals(a, defaultRouter.agent("a"));
  }

  @Test
  void workspaces_keepTheirOwnAgentsAndContacts() {
    Workspace centre = centre();
    centre.createAgent(agent("ann"), Optional.of("Ready"));
    workspaces.get("default").router().createAgent(agent("bob").in(Activity.DEFAULTS.get(0)));
    Contact c = centre.createContact(NewContact.builder("call", "voice").build(), Optional.empty());
    assertEquals(Optional.of("ann"), c.agentId(), "only the centre's agent is offered");
    assertEquals(List.of("ann"), centre.router().agents().stream().map(Agent::id).toList());
    assertEquals(List.of("bob"), defaultRouter.agents().stream().map(Agent::id).toList());
    assertThrows(RoutingException.class, () -> defaultRouter.contact("call"));
  }

  @Test
  void activities_setThePresence_andTimeInEachIsTracked() {
    Workspace centre = centre();
    Agent a = centre.createAgent(agent("ann"), Optional.empty());
    assertEquals("offline", a.activity(), "the default activity");
    assertEquals(Presence.offline(), a.presence());
    clock.advanceSeconds(60);
    a = centre.activity("ann", "ready");
    assertEquals("Ready", a.activity());
    assertEquals(Presence.available(), a.presence());
    clock.advanceSeconds(300);
    a = centre.activity("ann", "Lunch");
    assertEquals(Presence.away("Lunch"), a.presence());
    clock.advanceSeconds(1800);
    a = centre.activity("ann", "Ready");
    clock.advanceSeconds(120);
    a = centre.activity("ann", "Training");
    assertEquals(
        Map.of(
            "offline",
            Duration.ofSeconds(60),
            "Ready",
            Duration.ofSeconds(420),
            "Lunch",
            Duration.ofSeconds(1800)),
        a.activityTime());
    assertEquals(clock.instant(), a.activitySince());
  }

  @Test
  void availableActivity_takesWork_unavailableActivity_withdrawsOffers() {
    Workspace centre = centre();
    centre.createAgent(agent("ann"), Optional.of("Ready"));
    Contact c = centre.createContact(NewContact.builder("call", "voice").build(), Optional.empty());
    assertEquals(ContactState.OFFERED, c.state());
    centre.activity("ann", "Lunch");
    assertEquals(ContactState.QUEUED, centre.router().contact("call").state());
    centre.activity("ann", "Ready");
    assertEquals(ContactState.OFFERED, centre.router().contact("call").state());
  }

  @Test
  void taskQueue_workerExpression_choosesWhoServesIt() {
    Workspace centre = centre();
    centre.putQueue(TaskQueue.named("billing").withWorkerExpression("skills HAS 'billing'"));
    centre.putQueue(TaskQueue.named("general"));
    centre.createAgent(agent("gen", "general"), Optional.of("Ready"));
    Contact bill =
        centre.createContact(NewContact.builder("b1", "voice").build(), Optional.of("billing"));
    assertEquals(ContactState.QUEUED, bill.state(), "no billing agent yet");
    assertEquals(Optional.of("billing"), bill.queue());
    Contact gen =
        centre.createContact(NewContact.builder("g1", "voice").build(), Optional.of("general"));
    assertEquals(Optional.of("gen"), gen.agentId());
    centre.createAgent(agent("biller", "billing"), Optional.of("Ready"));
    assertEquals(Optional.of("biller"), centre.router().contact("b1").agentId());
    assertEquals(1, centre.router().liveContacts("billing"));
  }

  @Test
  void taskQueue_andsTheContactsOwnRequirementsAndEscalations() {
    Workspace centre = centre();
    centre.putQueue(TaskQueue.named("billing").withWorkerExpression("skills HAS 'billing'"));
    Contact c =
        centre.createContact(
            NewContact.builder("b1", "voice")
                .requirements("skills HAS 'es'")
                .escalateToAnyAgent(Duration.ofSeconds(30))
                .build(),
            Optional.of("billing"));
    assertEquals(Optional.of("skills HAS 'billing' AND skills HAS 'es'"), c.requirements());
    centre.createAgent(agent("es", "es"), Optional.of("Ready"));
    clock.advanceSeconds(30);
    Contact escalated = centre.router().contact("b1");
    assertEquals(1, escalated.escalationStep());
    assertEquals(ContactState.QUEUED, escalated.state(), "still only billing agents");
    centre.createAgent(agent("biller", "billing"), Optional.of("Ready"));
    assertEquals(Optional.of("biller"), centre.router().contact("b1").agentId());
  }

  @Test
  void restart_keepsWorkspacesActivitiesQueuesAgentTimesAndContactQueues() {
    Workspace centre = centre();
    centre.putActivity(new Activity("Outbound", true));
    centre.putQueue(
        new TaskQueue(
            "billing",
            Optional.of("skills HAS 'billing'"),
            TaskQueue.Order.LIFO,
            Optional.of(Strategy.highest("level")),
            Optional.of(2),
            Optional.of(Duration.ofSeconds(45))));
    workspaces.get("default").putQueue(TaskQueue.named("sales"));
    centre.createAgent(agent("ann"), Optional.of("Ready"));
    clock.advanceSeconds(10);
    centre.activity("ann", "Lunch");
    centre.createContact(NewContact.builder("b1", "voice").build(), Optional.of("billing"));
    WorkspaceDefinition before = centre.definition();

    restart();

    Workspace again = workspaces.get("centre");
    assertEquals(before, again.definition());
    assertEquals(
        List.of(TaskQueue.named("sales")), workspaces.get("default").definition().queues());
    Agent ann = again.router().agent("ann");
    assertEquals("Lunch", ann.activity());
    assertEquals(Map.of("Ready", Duration.ofSeconds(10)), ann.activityTime());
    assertEquals(Optional.of("billing"), again.router().contact("b1").queue());
    refused(RoutingErrorCode.TASK_QUEUE_IN_USE, again, () -> again.removeQueue("billing"));
  }

  @Test
  void configure_rebuildsTheRouter_keepingAgentsAndContacts() {
    Workspace centre = centre();
    centre.createAgent(agent("ann"), Optional.of("Ready"));
    centre.createContact(NewContact.builder("c1", "voice").build(), Optional.empty());
    WorkspaceDefinition d =
        centre.configure(centre.definition().settings().withOfferTimeout(Duration.ofSeconds(5)));
    assertEquals(Duration.ofSeconds(5), d.settings().offerTimeout());
    assertEquals(ContactState.OFFERED, centre.router().contact("c1").state());
    centre.router().reject(centre.router().contact("c1").reservationId().orElseThrow());
    clock.advanceSeconds(30); // the rest period after the reject
    String again = centre.router().contact("c1").reservationId().orElseThrow();
    clock.advanceSeconds(5);
    assertEquals(
        ReservationState.TIMED_OUT,
        centre.router().reservation(again).state(),
        "the new offer has the new timeout");
  }

  @Test
  void delete_forgetsTheWorkspaceAndItsAgents() {
    Workspace centre = centre();
    centre.createAgent(agent("ann"), Optional.of("Ready"));
    workspaces.delete("centre");
    assertEquals(
        RoutingErrorCode.WORKSPACE_NOT_FOUND,
        assertThrows(RoutingException.class, () -> workspaces.get("centre")).code());
    Workspace fresh = centre();
    assertTrue(fresh.router().agents().isEmpty(), "a new workspace of the same name is empty");
    restart();
    assertTrue(workspaces.get("centre").router().agents().isEmpty());
  }

  @Test
  void workspaceDefinition_roundTripsThroughTheCodec() {
    WorkspaceDefinition d =
        WorkspaceDefinition.create(
                "w-1",
                new WorkspaceSettings(
                    Strategy.leastOccupied(),
                    Duration.ofSeconds(12),
                    Map.of("chat", Duration.ofSeconds(30)),
                    Duration.ofSeconds(25),
                    "offline"),
                List.of())
            .withQueue(TaskQueue.named("q").withWorkerExpression("level > 3"));
    assertEquals(d, WorkspaceCodec.decode(WorkspaceCodec.encode(d)));
  }

  @Test
  void recordsWrittenBeforeWorkspaces_readWithTheirDefaults() {
    StoredAgent old =
        new StoredAgent("a", 1, Map.of(), Map.of("voice", 1), Presence.away("x"), 50, 2, 0);
    byte[] bytes = RouterRecordCodec.encode(old);
    // without the activity (null string: 4 bytes), its start (8) and an empty time map (4)
    StoredAgent read = RouterRecordCodec.agent(java.util.Arrays.copyOf(bytes, bytes.length - 16));
    assertEquals(old, read);
    assertEquals(null, read.activity());
    assertEquals(50, read.activitySince());
    StoredContact contact = StoredContact.builder("c", "voice").seq(1).timerSeq(1).build();
    byte[] c = RouterRecordCodec.encode(contact);
    assertEquals(
        contact, RouterRecordCodec.contact(java.util.Arrays.copyOf(c, c.length - 4)), "no queue");
  }

  @Test
  void removeQueue_neverLeavesALiveContactInAQueueThatIsGone_underConcurrentCreates()
      throws Exception {
    Workspace centre = centre();
    centre.putQueue(TaskQueue.named("q"));
    java.util.Queue<RoutingErrorCode> unexpected =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    java.util.concurrent.atomic.AtomicInteger created =
        new java.util.concurrent.atomic.AtomicInteger();
    List<Thread> threads = new java.util.ArrayList<>();
    for (int t = 0; t < 3; t++) {
      int id = t;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int i = 0; i < 300; i++) {
                      try {
                        centre.createContact(
                            NewContact.builder("c" + id + "-" + i, "voice").build(),
                            Optional.of("q"));
                        created.incrementAndGet();
                      } catch (RoutingException e) {
                        if (e.code() != RoutingErrorCode.TASK_QUEUE_NOT_FOUND) {
                          unexpected.add(e.code());
                        }
                      }
                    }
                  }));
    }
    int removed = 0;
    int createdBefore = 0;
    boolean last = false;
    while (!last) {
      // each removal waits for a create since the last one: on a loaded machine the removals
      // could otherwise win every race and the run would test no create at all
      while (created.get() == createdBefore && threads.stream().anyMatch(Thread::isAlive)) {
        Thread.onSpinWait();
      }
      createdBefore = created.get();
      last = threads.stream().noneMatch(Thread::isAlive);
      for (Contact c : centre.router().waiting()) {
        try {
          centre.router().abandon(c.id());
        } catch (RoutingException gone) {
          // abandoned meanwhile: nothing to do
        }
      }
      try {
        centre.removeQueue("q");
      } catch (RoutingException inUse) {
        assertEquals(RoutingErrorCode.TASK_QUEUE_IN_USE, inUse.code());
        continue;
      }
      assertEquals(0, centre.router().liveContacts("q"), "nothing routed into a removed queue");
      removed++;
      centre.putQueue(TaskQueue.named("q"));
    }
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(unexpected.isEmpty(), "creates refused otherwise: " + unexpected);
    assertTrue(removed > 0 && created.get() > 0, removed + " removals, " + created + " contacts");
  }

  // ---- bad input ------------------------------------------------------------------------

  /** {@code call} is refused with {@code code} and changes neither definitions nor the router. */
  private RoutingException refused(RoutingErrorCode code, Workspace w, Executable call) {
    List<WorkspaceDefinition> stored = store.load();
    WorkspaceDefinition before = w.definition();
    List<Agent> agents = w.router().agents();
    List<Contact> waiting = w.router().waiting();
    long lastEvent = w.router().events(0, 1).lastId();
    RoutingException e = assertThrows(RoutingException.class, call);
    assertEquals(code, e.code(), e.getMessage());
    assertEquals(stored, store.load());
    assertEquals(before, w.definition());
    assertEquals(agents, w.router().agents());
    assertEquals(waiting, w.router().waiting());
    assertEquals(lastEvent, w.router().events(0, 1).lastId(), "no event");
    return e;
  }

  @Test
  void badWorkerExpression_invalidSelector() {
    Workspace centre = centre();
    RoutingException e =
        refused(
            RoutingErrorCode.INVALID_SELECTOR,
            centre,
            () -> centre.putQueue(TaskQueue.named("q").withWorkerExpression("skills HAS")));
    assertTrue(e.getMessage().startsWith("worker expression of task queue 'q': "), e.getMessage());
  }

  @Test
  void unknownActivity_activityNotFound_namingTheActivities() {
    Workspace centre = centre();
    centre.createAgent(agent("ann"), Optional.empty());
    RoutingException e =
        refused(RoutingErrorCode.ACTIVITY_NOT_FOUND, centre, () -> centre.activity("ann", "Nap"));
    assertEquals(
        "activity 'Nap' does not exist in workspace 'centre' (its activities: Ready, Lunch,"
            + " Training, offline)",
        e.getMessage());
    refused(
        RoutingErrorCode.ACTIVITY_NOT_FOUND,
        centre,
        () -> centre.createAgent(agent("bob"), Optional.of("Nap")));
  }

  @Test
  void unknownQueue_taskQueueNotFound() {
    Workspace centre = centre();
    refused(
        RoutingErrorCode.TASK_QUEUE_NOT_FOUND,
        centre,
        () -> centre.createContact(NewContact.builder("c", "voice").build(), Optional.of("nope")));
    refused(RoutingErrorCode.TASK_QUEUE_NOT_FOUND, centre, () -> centre.removeQueue("nope"));
  }

  @Test
  void deleteQueueInUse_refused_untilItsContactsFinish() {
    Workspace centre = centre();
    centre.putQueue(TaskQueue.named("billing"));
    centre.createContact(NewContact.builder("c", "voice").build(), Optional.of("billing"));
    RoutingException e =
        refused(RoutingErrorCode.TASK_QUEUE_IN_USE, centre, () -> centre.removeQueue("billing"));
    assertTrue(e.getMessage().contains("1 live contact "), e.getMessage());
    centre.router().abandon("c");
    centre.removeQueue("billing");
    assertTrue(centre.definition().queues().isEmpty());
  }

  @Test
  void activityInUse_refused() {
    Workspace centre = centre();
    centre.createAgent(agent("ann"), Optional.of("Lunch"));
    refused(RoutingErrorCode.ACTIVITY_IN_USE, centre, () -> centre.removeActivity("Lunch"));
    refused(
        RoutingErrorCode.ACTIVITY_IN_USE,
        centre,
        () -> centre.putActivity(new Activity("lunch", true)));
    refused(RoutingErrorCode.ACTIVITY_IN_USE, centre, () -> centre.removeActivity("offline"));
    centre.activity("ann", "Ready");
    centre.removeActivity("Lunch");
    assertFalse(centre.definition().activity("Lunch").isPresent());
  }

  @Test
  void badWorkspaces_refused() {
    centre();
    assertEquals(
        RoutingErrorCode.WORKSPACE_ALREADY_EXISTS,
        assertThrows(RoutingException.class, this::centre).code());
    assertEquals(
        RoutingErrorCode.INVALID_ARGUMENT,
        assertThrows(
                RoutingException.class,
                () -> WorkspaceDefinition.create("Bad Name", WorkspaceSettings.DEFAULTS, List.of()))
            .code());
    assertEquals(
        RoutingErrorCode.INVALID_ARGUMENT,
        assertThrows(
                RoutingException.class,
                () ->
                    WorkspaceDefinition.create(
                        "w", WorkspaceSettings.DEFAULTS, List.of(new Activity("offline", false))))
            .code(),
        "no available activity");
    assertEquals(
        RoutingErrorCode.ACTIVITY_NOT_FOUND,
        assertThrows(
                RoutingException.class,
                () ->
                    WorkspaceDefinition.create(
                        "w", WorkspaceSettings.DEFAULTS, List.of(new Activity("Ready", true))))
            .code(),
        "the default activity must be one of them");
    Workspace d = workspaces.get("default");
    refused(RoutingErrorCode.INVALID_STATE, d, () -> workspaces.delete("default"));
    refused(RoutingErrorCode.INVALID_STATE, d, () -> d.configure(WorkspaceSettings.DEFAULTS));
    refused(RoutingErrorCode.INVALID_STATE, d, () -> d.putActivity(new Activity("Lunch", false)));
    assertEquals(
        RoutingErrorCode.WORKSPACE_NOT_FOUND,
        assertThrows(RoutingException.class, () -> workspaces.delete("ghost")).code());
    assertEquals(
        List.of("centre", "default"), workspaces.list().stream().map(Workspace::name).toList());
  }
}
