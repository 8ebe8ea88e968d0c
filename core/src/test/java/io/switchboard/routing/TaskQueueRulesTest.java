package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A task queue's own rules in matching (docs/routing.md, "Task queue rules"): its order among
 * waiting contacts (LIFO), its strategy among agents (least occupied, best skill with ties by
 * longest idle), its cap of contacts per agent, and its live figures with its own service-level
 * threshold; changes apply to waiting contacts, and the rules survive a restart.
 */
class TaskQueueRulesTest {

  private static final List<Activity> CENTRE =
      List.of(new Activity("Ready", true), new Activity("offline", false));

  private final ManualClock clock = ManualClock.create();
  private final WorkspaceStore store = WorkspaceStore.memory();
  private final WorkspaceRouters routers = WorkspaceRouters.memory(clock);
  private Router defaultRouter;
  private Workspaces workspaces;
  private Workspace centre;

  @BeforeEach
  void start() {
    defaultRouter = Router.builder().clock(clock).build();
    workspaces = new Workspaces(defaultRouter, WorkspaceSettings.DEFAULTS, store, routers);
    if (centre == null) {
      centre =
          workspaces.create(
              WorkspaceDefinition.create(
                  "centre", WorkspaceSettings.DEFAULTS.withDefaultActivity("Ready"), CENTRE));
    } else {
      centre = workspaces.get("centre");
    }
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

  private static TaskQueue queue(
      String name, TaskQueue.Order order, Strategy strategy, Integer max, Duration threshold) {
    return new TaskQueue(
        name,
        Optional.empty(),
        order,
        Optional.ofNullable(strategy),
        Optional.ofNullable(max),
        Optional.ofNullable(threshold));
  }

  private void agent(String id, String channel, int capacity, Object level) {
    NewAgent.Builder a = NewAgent.builder(id).capacity(channel, capacity);
    if (level != null) {
      a.attribute("level", level);
    }
    centre.createAgent(a.build(), Optional.of("Ready"));
  }

  private Contact contact(String id, String channel, int priority, String queue) {
    return centre.createContact(
        NewContact.builder(id, channel).priority(priority).build(), Optional.ofNullable(queue));
  }

  private String agentOf(String contactId) {
    return centre.router().contact(contactId).agentId().orElse("-");
  }

  private List<String> waitingIds() {
    return centre.router().waiting().stream().map(Contact::id).toList();
  }

  /** Accepts the contact's offer and completes it at once: its agent is free again. */
  private void serve(String contactId) {
    Router r = centre.router();
    r.accept(r.contact(contactId).reservationId().orElseThrow());
    r.complete(contactId, Duration.ZERO);
  }

  @Test
  void lifoQueue_servesItsNewestFirst_afterFifoContactsOfEqualPriority() {
    centre.putQueue(queue("callbacks", TaskQueue.Order.LIFO, null, null, null));
    centre.createAgent(
        NewAgent.builder("ann").capacity("voice", 1).build(), Optional.of("offline"));
    contact("c1", "voice", 0, "callbacks");
    clock.advanceSeconds(1);
    contact("c2", "voice", 0, "callbacks");
    clock.advanceSeconds(1);
    contact("c3", "voice", 0, "callbacks");
    contact("urgent", "voice", 1, "callbacks");
    contact("plain", "voice", 0, null); // FIFO, arrived after c1..c3

    centre.activity("ann", "Ready");
    assertEquals("ann", agentOf("urgent"), "priority first");
    serve("urgent");
    assertEquals("ann", agentOf("plain"), "a FIFO contact before LIFO ones of its priority");
    serve("plain");
    assertEquals("ann", agentOf("c3"), "newest first");
    serve("c3");
    assertEquals("ann", agentOf("c2"));
    serve("c2");
    assertEquals("ann", agentOf("c1"));
  }

  @Test
  void lifoQueue_takesTheNewestWhenAnAgentFreesUp() {
    centre.putQueue(queue("callbacks", TaskQueue.Order.LIFO, null, null, null));
    agent("ann", "voice", 1, null);
    contact("busy", "voice", 0, null);
    contact("c1", "voice", 0, "callbacks");
    clock.advanceSeconds(1);
    contact("c2", "voice", 0, "callbacks");
    clock.advanceSeconds(1);
    contact("c3", "voice", 0, "callbacks");
    assertEquals(List.of("c3", "c2", "c1"), waitingIds(), "listed in order of service");

    serve("busy");
    assertEquals("ann", agentOf("c3"));
    contact("c4", "voice", 0, "callbacks");
    serve("c3");
    assertEquals("ann", agentOf("c4"), "the newest, though c1 and c2 waited longer");
    serve("c4");
    assertEquals("ann", agentOf("c2"));
  }

  @Test
  void leastOccupiedQueue_spreadsItsContacts_whileTheWorkspaceKeepsLongestIdle() {
    centre.putQueue(queue("chat", TaskQueue.Order.FIFO, Strategy.leastOccupied(), null, null));
    agent("ann", "chat", 4, null); // idle longest
    agent("bob", "chat", 2, null);

    contact("q1", "chat", 0, "chat");
    contact("q2", "chat", 0, "chat");
    contact("q3", "chat", 0, "chat");
    contact("q4", "chat", 0, "chat");
    assertEquals(
        List.of("ann", "bob", "ann", "ann"),
        List.of(agentOf("q1"), agentOf("q2"), agentOf("q3"), agentOf("q4")),
        "0/4 vs 0/2: longest idle; 1/4 < 0/2? no, 0/2 least; 1/4 < 1/2; 2/4 = 1/2: longest idle");
    contact("plain", "chat", 0, null);
    assertEquals("ann", agentOf("plain"), "no queue: the workspace's longest idle, ann at 3/4");
  }

  @Test
  void bestSkillQueue_takesTheHighestValue_tiesByLongestIdle_agentsWithoutOneLast() {
    centre.putQueue(queue("billing", TaskQueue.Order.FIFO, Strategy.highest("level"), null, null));
    agent("ann", "voice", 1, 3); // idle longest
    agent("bob", "voice", 1, 5);
    agent("cid", "voice", 1, 5.0);
    agent("dan", "voice", 1, null);

    contact("plain", "voice", 0, null);
    contact("q1", "voice", 0, "billing");
    contact("q2", "voice", 0, "billing");
    contact("q3", "voice", 0, "billing");
    assertEquals("ann", agentOf("plain"), "no queue: longest idle");
    assertEquals("bob", agentOf("q1"), "level 5, idle longer than cid");
    assertEquals("cid", agentOf("q2"));
    assertEquals("dan", agentOf("q3"), "ann is busy; dan has no level");

    serve("q1");
    serve("q2");
    serve("plain");
    clock.advanceSeconds(1);
    serve("q3");
    contact("q4", "voice", 0, "billing");
    assertEquals("bob", agentOf("q4"), "bob and cid freed in that order");
    contact("q5", "voice", 0, "billing");
    assertEquals("cid", agentOf("q5"));
    contact("q6", "voice", 0, "billing");
    assertEquals("ann", agentOf("q6"), "level 3 before dan, who has none");
  }

  @Test
  void maxReservationsPerAgent_capsTheQueuesContacts_notTheAgentsOthers() {
    centre.putQueue(queue("chat", TaskQueue.Order.FIFO, null, 2, null));
    centre.putQueue(queue("email", TaskQueue.Order.FIFO, null, null, null));
    agent("ann", "chat", 5, null);

    contact("q1", "chat", 0, "chat");
    contact("q2", "chat", 0, "chat");
    contact("q3", "chat", 0, "chat");
    assertEquals(List.of("ann", "ann", "-"), List.of(agentOf("q1"), agentOf("q2"), agentOf("q3")));
    assertEquals(List.of("q3"), waitingIds(), "ann has room, but 2 of the queue already");
    contact("e1", "chat", 0, "email");
    contact("p1", "chat", 0, null);
    assertEquals(List.of("ann", "ann"), List.of(agentOf("e1"), agentOf("p1")));
    assertEquals(4, centre.router().agent("ann").load().get("chat"));

    Router r = centre.router();
    r.accept(r.contact("q1").reservationId().orElseThrow());
    assertEquals(List.of("q3"), waitingIds(), "an accepted contact still counts");
    r.complete("q1", Duration.ZERO);
    assertEquals("ann", agentOf("q3"), "room in the queue's cap again: taken at once");
    r.reject(r.contact("q2").reservationId().orElseThrow());
    assertEquals("-", agentOf("q2"), "a rejected offer frees the cap; q2 rests from ann");
    r.pendingReservations("ann").forEach(res -> r.accept(res.id())); // none of them times out
    clock.advanceSeconds(30);
    assertEquals("ann", agentOf("q2"), "after the rest period; nobody else matches");
  }

  @Test
  void queueServiceLevel_usesTheQueuesOwnThreshold_andCountsOffersAndOutcomes() {
    centre.putQueue(queue("vip", TaskQueue.Order.FIFO, null, null, Duration.ofSeconds(5)));
    centre.putQueue(queue("std", TaskQueue.Order.FIFO, null, null, null));
    Router r = centre.router();
    centre.createAgent(
        NewAgent.builder("ann").capacity("voice", 1).build(), Optional.of("offline"));

    contact("v1", "voice", 0, "vip");
    clock.advanceSeconds(3);
    centre.activity("ann", "Ready");
    serve("v1"); // answered after 3 s: within 5 s

    centre.activity("ann", "offline");
    contact("v2", "voice", 0, "vip");
    contact("s1", "voice", 0, "std");
    contact("v3", "voice", 0, "vip");
    clock.advanceSeconds(10);
    r.abandon("v3");
    centre.activity("ann", "Ready");
    r.reject(r.contact("v2").reservationId().orElseThrow());
    assertEquals("ann", agentOf("s1"), "v2 rests from ann, who takes the next");
    serve("s1"); // answered after 10 s: within the workspace's 20 s
    clock.advanceSeconds(30);
    assertEquals("ann", agentOf("v2"), "nobody else: offered again after the rest period");
    serve("v2"); // answered after 40 s: not within 5 s

    TaskQueueStats vip = centre.queueStats("vip");
    assertEquals("vip", vip.queue());
    assertEquals(Duration.ofSeconds(5), vip.serviceLevelThreshold());
    assertEquals(3, vip.offered());
    assertEquals(2, vip.accepted());
    assertEquals(1, vip.rejected());
    assertEquals(2, vip.answered());
    assertEquals(1, vip.answeredWithinThreshold());
    assertEquals(1, vip.abandoned());
    assertEquals(OptionalDouble.of(1.0 / 3), vip.serviceLevel());
    assertEquals(Optional.of(Duration.ofMillis(21_500)), vip.averageSpeedOfAnswer());
    assertEquals(0, vip.waiting());

    TaskQueueStats std = centre.queueStats("std");
    assertEquals(Duration.ofSeconds(20), std.serviceLevelThreshold(), "the workspace's");
    assertEquals(OptionalDouble.of(1.0), std.serviceLevel());
    assertEquals(1, std.offered());

    centre.activity("ann", "offline");
    contact("v4", "voice", 0, "vip");
    clock.advanceSeconds(7);
    contact("v5", "voice", 0, "vip");
    vip = centre.queueStats("vip");
    assertEquals(2, vip.waiting());
    assertEquals(Duration.ofSeconds(7), vip.longestWait());
    RoutingException e = assertThrows(RoutingException.class, () -> centre.queueStats("nope"));
    assertEquals(RoutingErrorCode.TASK_QUEUE_NOT_FOUND, e.code());
  }

  @Test
  void changedRules_applyToWaitingContacts() {
    centre.putQueue(queue("chat", TaskQueue.Order.FIFO, null, 1, null));
    agent("ann", "chat", 3, null);
    contact("q1", "chat", 0, "chat");
    contact("q2", "chat", 0, "chat");
    clock.advanceSeconds(1);
    contact("q3", "chat", 0, "chat");
    assertEquals(List.of("q2", "q3"), waitingIds());

    centre.putQueue(queue("chat", TaskQueue.Order.LIFO, null, 1, null));
    assertEquals(List.of("q3", "q2"), waitingIds(), "newest first now");
    centre.putQueue(queue("chat", TaskQueue.Order.LIFO, null, 2, null));
    assertEquals("ann", agentOf("q3"), "a raised cap: ann takes the next one at once");
    assertEquals(List.of("q2"), waitingIds());
  }

  @Test
  void restart_givesRecoveredContactsTheirQueuesRules() {
    centre.putQueue(queue("chat", TaskQueue.Order.LIFO, null, 2, null));
    agent("ann", "chat", 5, null);
    contact("q1", "chat", 0, "chat");
    contact("q2", "chat", 0, "chat");
    contact("q3", "chat", 0, "chat");
    clock.advanceSeconds(1);
    contact("q4", "chat", 0, "chat");
    assertEquals(List.of("q4", "q3"), waitingIds());

    restart();

    assertEquals(List.of("q4", "q3"), waitingIds(), "still newest first");
    centre.router().updateCapacity("ann", java.util.Map.of("chat", 6));
    assertEquals(List.of("q4", "q3"), waitingIds(), "ann still holds 2 of the queue's");
    serve("q1");
    assertEquals("ann", agentOf("q4"));
    assertEquals(1, centre.queueStats("chat").offered(), "counted since the restart");
  }

  /**
   * Regression: a router rebuilt from its journal fired its overdue timers before it had its
   * queues' rules, so a missed offer's agent took the oldest contact of a LIFO queue.
   */
  @Test
  void rulesGivenAfterRecovery_applyBeforeOverdueTimersFire() {
    List<TaskQueue> queues = List.of(queue("callbacks", TaskQueue.Order.LIFO, null, null, null));
    io.switchboard.routing.spi.MemoryRouterJournal journal =
        new io.switchboard.routing.spi.MemoryRouterJournal();
    Router r =
        Router.builder().clock(clock).offerTimeout(Duration.ofSeconds(10)).journal(journal).build();
    r.taskQueues(queues);
    r.createAgent(
        NewAgent.builder("ann").capacity("voice", 1).presence(Presence.available()).build());
    for (String id : List.of("c0", "c1", "c2")) {
      clock.advanceSeconds(1);
      r.createContact(NewContact.builder(id, "voice").build().through("callbacks", x -> x));
    }
    assertEquals(Optional.of("ann"), r.contact("c0").agentId());
    r.close();
    clock.advanceSeconds(60); // c0's offer is overdue

    Router again =
        Router.builder().clock(clock).offerTimeout(Duration.ofSeconds(10)).journal(journal).build();
    try {
      again.taskQueues(queues);
      assertEquals(
          Optional.of("ann"), again.contact("c2").agentId(), "newest first, once c0 timed out");
    } finally {
      again.close();
    }

    Router built =
        Router.builder()
            .clock(clock)
            .offerTimeout(Duration.ofSeconds(10))
            .journal(journal)
            .taskQueues(queues)
            .build();
    try {
      assertEquals(
          List.of("c1", "c0"),
          built.waiting().stream().map(Contact::id).toList(),
          "rules from the builder, before recovery: newest first");
    } finally {
      built.close();
    }
  }

  @Test
  void badRules_areRefused_andChangeNothing() {
    centre.putQueue(queue("chat", TaskQueue.Order.FIFO, null, 2, null));
    WorkspaceDefinition before = centre.definition();
    RoutingException e =
        assertThrows(
            RoutingException.class, () -> queue("chat", TaskQueue.Order.FIFO, null, 0, null));
    assertEquals(RoutingErrorCode.INVALID_ARGUMENT, e.code());
    assertEquals(
        "maxReservationsPerAgent of task queue 'chat' must be 1..100, got 0", e.getMessage());
    e = assertThrows(RoutingException.class, () -> Strategy.parse("strategy", "round-robin"));
    assertEquals(RoutingErrorCode.INVALID_ARGUMENT, e.code());
    assertEquals(
        "strategy must be longest-idle, least-occupied or highest:<attribute>, got 'round-robin'",
        e.getMessage());
    e = assertThrows(RoutingException.class, () -> Strategy.parse("strategy", "highest:"));
    assertEquals(RoutingErrorCode.INVALID_ARGUMENT, e.code());
    assertEquals(before, centre.definition());
  }
}
