package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.routing.Activity;
import io.switchboard.routing.Agent;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.ContactUpdate;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Reservation;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.Strategy;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.WorkflowFilter;
import io.switchboard.routing.WorkflowTarget;
import io.switchboard.routing.Workspace;
import io.switchboard.routing.WorkspaceDefinition;
import io.switchboard.routing.WorkspaceRouters;
import io.switchboard.routing.WorkspaceSettings;
import io.switchboard.routing.Workspaces;
import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random calls through a workspace with workflows (targets in several task queues with
 * timeouts, priorities, skip-if-none, {@code contact.*} references and a preferred agent) and
 * activities, run on two twins: one in memory that never restarts, one on the real store closed and
 * reopened at random points (about one call in 25), with contacts waiting in several targets and
 * offers pending. After every call both have the same contacts (state, target, queue, priority,
 * agent, arrival), agents (activity, presence, load) and pending offers; so the targets' timers
 * recovered after a restart fire when they would have. (Restarts close the store cleanly, so it
 * writes without fsync.) {@code -Drouting.seed=N} reruns a seed.
 */
class RocksWorkflowRandomRestartTest {

  private static final int CALLS = Integer.getInteger("routing.workflowRestartCalls", 500);
  private static final List<Activity> ACTIVITIES =
      List.of(
          new Activity("Ready", true),
          new Activity("Lunch", false),
          new Activity("offline", false));

  @TempDir Path dir;
  private final ManualClock memoryClock = ManualClock.create();
  private final ManualClock rocksClock = ManualClock.create();
  private final WorkspaceStore memoryStore = WorkspaceStore.memory();
  private final WorkspaceRouters memoryRouters =
      WorkspaceRouters.memory(w -> w.settings().applyTo(Router.builder().clock(memoryClock)));
  private Router memoryDefault;
  private Workspaces memory;
  private RocksRouterJournal journal;
  private Router rocksDefault;
  private Workspaces rocks;
  private int restarts;

  private void openRocks() {
    journal = RocksRouterJournal.open(dir.resolve("routing"), Durability.none());
    rocksDefault = Router.builder().clock(rocksClock).journal(journal).build();
    rocks =
        new Workspaces(
            rocksDefault,
            WorkspaceSettings.DEFAULTS,
            journal.workspaceStore(),
            new RocksWorkspaceRouters(
                dir.resolve("workspaces"),
                Durability.none(),
                d -> d.settings().applyTo(Router.builder().clock(rocksClock))));
  }

  private void closeRocks() {
    rocks.close();
    rocksDefault.close();
    journal.close();
  }

  @AfterEach
  void close() {
    if (rocks != null) {
      closeRocks();
    }
    if (memory != null) {
      memory.close();
      memoryDefault.close();
    }
  }

  @Test
  void randomCalls_restartedTwinOnRocksDb_sameAsNeverRestarted() {
    long seed = Long.getLong("routing.seed", System.nanoTime());
    try {
      run(new Random(seed));
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("rerun with -Drouting.seed=" + seed, e);
    }
  }

  private void run(Random random) {
    memoryDefault = Router.builder().clock(memoryClock).build();
    memory = new Workspaces(memoryDefault, WorkspaceSettings.DEFAULTS, memoryStore, memoryRouters);
    openRocks();
    both(w -> w.create(definition()));
    both(
        w -> {
          Workspace c = w.get("centre");
          c.putQueue(
              new TaskQueue(
                  "billing",
                  Optional.of("skills HAS 'billing'"),
                  TaskQueue.Order.FIFO,
                  Optional.empty(),
                  Optional.of(1),
                  Optional.empty()));
          c.putQueue(
              new TaskQueue(
                  "general",
                  Optional.empty(),
                  TaskQueue.Order.FIFO,
                  Optional.of(Strategy.leastOccupied()),
                  Optional.empty(),
                  Optional.empty()));
          c.putQueue(
              new TaskQueue(
                  "callbacks",
                  Optional.empty(),
                  TaskQueue.Order.LIFO,
                  Optional.empty(),
                  Optional.of(1),
                  Optional.empty()));
          return c.putWorkflow(workflow());
        });
    List<String> contacts = new ArrayList<>();
    int agents = 0;
    for (int call = 0; call < CALLS; call++) {
      int dice = random.nextInt(100);
      String what;
      Workspace m = memory.get("centre");
      if (dice < 8 && agents < 12 || agents == 0) {
        String id = "agent-" + ++agents;
        NewAgent agent =
            NewAgent.builder(id)
                .attribute("skills", random.nextBoolean() ? List.of("billing") : List.of("sales"))
                .attribute("lang", random.nextBoolean() ? "es" : "en")
                .capacity("voice", 1)
                .capacity("chat", 1 + random.nextInt(2))
                .build();
        String activity = ACTIVITIES.get(random.nextInt(3) == 0 ? 1 : 0).name();
        what = "agent " + id + " " + activity;
        both(w -> w.get("centre").createAgent(agent, Optional.of(activity)));
      } else if (dice < 20) {
        String id = "agent-" + (1 + random.nextInt(agents));
        String activity = ACTIVITIES.get(random.nextInt(4) == 0 ? 1 + random.nextInt(2) : 0).name();
        what = "activity " + id + " " + activity;
        both(w -> w.get("centre").activity(id, activity));
      } else if (dice < 45) {
        String id = "c" + contacts.size();
        contacts.add(id);
        NewContact contact =
            NewContact.builder(id, random.nextBoolean() ? "voice" : "chat")
                .attributes(attributes(random, agents))
                .build();
        what = "contact " + contact;
        both(w -> w.get("centre").createContact(contact, Optional.empty(), Optional.of("support")));
      } else if (dice < 52 && !contacts.isEmpty()) {
        String id = contacts.get(random.nextInt(contacts.size()));
        Map<String, Object> attrs = attributes(random, agents);
        what = "reroute " + id + " " + attrs;
        both(w -> w.get("centre").updateContact(id, ContactUpdate.none().withAttributes(attrs)));
      } else if (dice < 75) {
        String agent = "agent-" + (1 + random.nextInt(agents));
        List<Reservation> pending = m.router().pendingReservations(agent);
        boolean reject = random.nextInt(4) == 0;
        what = (reject ? "reject " : "accept ") + agent;
        if (!pending.isEmpty()) {
          String rid = pending.get(0).id();
          String cid = pending.get(0).contactId();
          both(
              w -> {
                Router r = w.get("centre").router();
                return reject ? r.reject(idOf(r, cid)) : r.accept(idOf(r, cid));
              });
          what += " " + rid;
        }
      } else if (dice < 85 && !contacts.isEmpty()) {
        String id = contacts.get(random.nextInt(contacts.size()));
        what = "complete " + id;
        both(w -> w.get("centre").router().complete(id));
      } else {
        long ms = random.nextInt(3) == 0 ? random.nextInt(25_000) : random.nextInt(4_000);
        what = "advance " + ms;
        memoryClock.advanceMillis(ms);
        rocksClock.advanceMillis(ms);
      }
      compare(contacts, agents, "call " + call + " (" + what + ") after " + restarts + " restarts");
      if (random.nextInt(25) == 0) {
        closeRocks();
        openRocks();
        restarts++;
        compare(contacts, agents, "restart " + restarts + " after call " + call);
      }
    }
    assertEquals(true, restarts > 0, "the run restarted");
  }

  /** The reservation through which contact {@code cid} is offered now, in this twin. */
  private static String idOf(Router router, String cid) {
    return router.contact(cid).reservationId().orElseThrow();
  }

  /** Runs {@code call} on both twins: the same answer or the same refusal. */
  private void both(Function<Workspaces, Object> call) {
    String expected = outcome(call, memory);
    String actual = outcome(call, rocks);
    assertEquals(expected, actual);
  }

  private static String outcome(Function<Workspaces, Object> call, Workspaces w) {
    try {
      Object answer = call.apply(w);
      return answer instanceof Contact c
          ? "contact " + c.id() + " " + c.state() + " " + c.queue() + " " + c.escalationStep()
          : "ok";
    } catch (RoutingException e) {
      return e.code().name();
    }
  }

  private void compare(List<String> contacts, int agents, String context) {
    Router m = memory.get("centre").router();
    Router r = rocks.get("centre").router();
    for (String id : contacts) {
      Contact a = m.contact(id);
      Contact b = r.contact(id);
      String where = context + " contact " + id;
      assertEquals(
          List.of(
              a.state(),
              a.queue(),
              a.escalationStep(),
              a.priority(),
              a.agentId(),
              a.createdAt(),
              a.requirements()),
          List.of(
              b.state(),
              b.queue(),
              b.escalationStep(),
              b.priority(),
              b.agentId(),
              b.createdAt(),
              b.requirements()),
          where);
    }
    for (int i = 1; i <= agents; i++) {
      Agent a = m.agent("agent-" + i);
      Agent b = r.agent("agent-" + i);
      String where = context + " agent-" + i;
      assertEquals(
          List.of(a.activity(), a.presence(), a.load(), a.idleSince()),
          List.of(b.activity(), b.presence(), b.load(), b.idleSince()),
          where);
      assertEquals(
          m.pendingReservations(a.id()).stream().map(Reservation::contactId).toList(),
          r.pendingReservations(b.id()).stream().map(Reservation::contactId).toList(),
          where);
    }
    long waiting = m.waiting().stream().filter(c -> c.state() == ContactState.QUEUED).count();
    assertEquals(
        waiting,
        r.waiting().stream().filter(c -> c.state() == ContactState.QUEUED).count(),
        context);
  }

  private static WorkspaceDefinition definition() {
    return WorkspaceDefinition.create(
        "centre", WorkspaceSettings.DEFAULTS.withOfferTimeout(Duration.ofSeconds(8)), ACTIVITIES);
  }

  /**
   * Billing contacts: a billing specialist speaking their language for 10 s, any specialist for 10
   * s (skipped when none is free), then anyone at priority 2; callbacks in a LIFO queue; the rest
   * to a speaker of their language for 15 s, then anyone. A preferred agent first, for 5 s.
   */
  private static Workflow workflow() {
    return new Workflow(
        "support",
        List.of(
            new WorkflowFilter(
                "billing",
                "topic = 'billing'",
                List.of(
                    WorkflowTarget.queue("billing")
                        .withExpression("lang = contact.lang")
                        .withTimeout(Duration.ofSeconds(10)),
                    WorkflowTarget.queue("billing")
                        .withTimeout(Duration.ofSeconds(10))
                        .skippingIfNoneAvailable(),
                    WorkflowTarget.queue("general").withPriority(2))),
            new WorkflowFilter(
                "callback",
                "topic = 'callback'",
                List.of(
                    WorkflowTarget.queue("callbacks")
                        .withTimeout(Duration.ofSeconds(20))
                        .withPriority(-1),
                    WorkflowTarget.queue("general")))),
        List.of(
            WorkflowTarget.queue("general")
                .withExpression("lang = contact.lang")
                .withTimeout(Duration.ofSeconds(15)),
            WorkflowTarget.queue("general")),
        Optional.of(new Workflow.PreferredAgent("lastAgent", Duration.ofSeconds(5))));
  }

  private static Map<String, Object> attributes(Random random, int agents) {
    Map<String, Object> attrs = new LinkedHashMap<>();
    attrs.put("topic", List.of("billing", "callback", "sales").get(random.nextInt(3)));
    if (random.nextInt(4) > 0) {
      attrs.put("lang", random.nextBoolean() ? "es" : "en");
    }
    if (random.nextInt(3) == 0) {
      attrs.put("lastAgent", "agent-" + (1 + random.nextInt(agents + 1)));
    }
    return attrs;
  }
}
