package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.selector.Selector;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Many threads route contacts through workflows at once (targets in capped task queues, timeouts,
 * skip-if-none, a preferred agent, {@code contact.*} references), change their attributes (the
 * workflow routes them again), move agents between activities, accept, reject and complete, while
 * the clock passes target timeouts. Checked once quiet: nothing lost (every contact created is
 * there, in one state), nothing duplicated (no contact with two live offers; each agent's load is
 * the contacts it holds, per channel, within its capacity; each queue's cap counted from the
 * contacts held), and work conservation (no eligible agent below a queue's cap matches a contact
 * waiting in it).
 */
class WorkflowConcurrencyTest {

  private static final int THREADS = 8;
  private static final int CALLS = 1_000;
  private static final int AGENTS = 16;
  private static final int CAP = 2;

  private final ManualClock clock = ManualClock.create();
  private final Router defaultRouter = Router.builder().clock(clock).build();
  private final Workspaces workspaces =
      new Workspaces(
          defaultRouter,
          WorkspaceSettings.DEFAULTS,
          WorkspaceStore.memory(),
          WorkspaceRouters.memory(
              w -> w.settings().applyTo(Router.builder().clock(clock)).missLimit(0)));

  @AfterEach
  void stop() {
    workspaces.close();
    defaultRouter.close();
  }

  @Test
  void manyThreads_workflowsAndActivities_nothingLostOrDuplicated_workConserved() throws Exception {
    Workspace centre =
        workspaces.create(
            WorkspaceDefinition.create(
                "centre",
                WorkspaceSettings.DEFAULTS.withOfferTimeout(Duration.ofSeconds(5)),
                List.of(
                    new Activity("Ready", true),
                    new Activity("Lunch", false),
                    new Activity("offline", false))));
    centre.putQueue(
        new TaskQueue(
            "specialists",
            Optional.of("skills HAS 'billing'"),
            TaskQueue.Order.FIFO,
            Optional.empty(),
            Optional.of(CAP),
            Optional.empty()));
    centre.putQueue(TaskQueue.named("general"));
    centre.putQueue(
        new TaskQueue(
            "callbacks",
            Optional.empty(),
            TaskQueue.Order.LIFO,
            Optional.of(Strategy.leastOccupied()),
            Optional.of(1),
            Optional.empty()));
    centre.putWorkflow(
        new Workflow(
            "support",
            List.of(
                new WorkflowFilter(
                    "billing",
                    "topic = 'billing'",
                    List.of(
                        WorkflowTarget.queue("specialists")
                            .withExpression("lang = contact.lang")
                            .withTimeout(Duration.ofSeconds(2)),
                        WorkflowTarget.queue("specialists")
                            .withTimeout(Duration.ofSeconds(2))
                            .skippingIfNoneAvailable(),
                        WorkflowTarget.queue("general").withPriority(1))),
                new WorkflowFilter(
                    "callback", "topic = 'callback'", List.of(WorkflowTarget.queue("callbacks")))),
            List.of(
                WorkflowTarget.queue("general")
                    .withExpression("lang = contact.lang")
                    .withTimeout(Duration.ofSeconds(3)),
                WorkflowTarget.queue("general")),
            Optional.of(new Workflow.PreferredAgent("lastAgent", Duration.ofSeconds(2)))));
    for (int i = 0; i < AGENTS; i++) {
      centre.createAgent(
          NewAgent.builder("a" + i)
              .attribute("skills", i % 2 == 0 ? List.of("billing") : List.of("sales"))
              .attribute("lang", i % 3 == 0 ? "es" : "en")
              .capacity("voice", 1)
              .capacity("chat", 3)
              .build(),
          Optional.of("Ready"));
    }
    ConcurrentLinkedQueue<RoutingEvent> events = new ConcurrentLinkedQueue<>();
    centre.router().onEvent(events::add);
    ConcurrentLinkedQueue<String> created = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int n = t;
      workers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      start.await();
                      work(centre, n, created);
                    } catch (Throwable e) {
                      failures.add(e);
                    }
                  }));
    }
    start.countDown();
    for (Thread w : workers) {
      w.join();
    }
    assertTrue(failures.isEmpty(), () -> failures.peek().toString());

    Router router = centre.router();
    Map<String, String> liveOffer = new HashMap<>();
    Map<String, java.time.Instant> refused = new HashMap<>(); // contact + agent: last refusal
    for (RoutingEvent e : events) {
      switch (e) {
        case RoutingEvent.ReservationOffered o -> {
          String before = liveOffer.put(o.reservation().contactId(), o.reservation().id());
          assertEquals(null, before, "contact offered twice at once: " + o);
        }
        case RoutingEvent.ReservationAccepted r -> liveOffer.remove(r.contactId());
        case RoutingEvent.ReservationRejected r -> {
          liveOffer.remove(r.contactId());
          refused.merge(r.contactId() + " " + r.agentId(), r.at(), (a, b) -> a.isAfter(b) ? a : b);
        }
        case RoutingEvent.ReservationTimedOut r -> {
          liveOffer.remove(r.contactId());
          refused.merge(r.contactId() + " " + r.agentId(), r.at(), (a, b) -> a.isAfter(b) ? a : b);
        }
        case RoutingEvent.ReservationCancelled r -> liveOffer.remove(r.contactId());
        default -> {}
      }
    }
    // nothing lost: every contact created is there; held ones counted once, by their agent
    List<Contact> contacts = new ArrayList<>();
    for (String id : created) {
      contacts.add(router.contact(id));
    }
    assertEquals(created.size(), contacts.stream().map(Contact::id).distinct().count());
    Map<String, Map<String, Integer>> load = new HashMap<>();
    Map<String, Map<String, Integer>> perQueue = new HashMap<>();
    for (Contact c : contacts) {
      boolean held =
          c.state() == ContactState.OFFERED
              || c.state() == ContactState.ASSIGNED
              || c.state() == ContactState.WRAP_UP;
      assertTrue(
          held
              ? c.agentId().isPresent()
              : c.state() != ContactState.QUEUED || c.agentId().isEmpty(),
          c.toString());
      if (held) {
        String agent = c.agentId().orElseThrow();
        load.computeIfAbsent(agent, x -> new HashMap<>()).merge(c.channel(), 1, Integer::sum);
        perQueue
            .computeIfAbsent(agent, x -> new HashMap<>())
            .merge(c.queue().orElseThrow(), 1, Integer::sum);
      }
    }
    for (Agent agent : router.agents()) {
      assertEquals(load.getOrDefault(agent.id(), Map.of()), agent.load(), agent.id());
      agent
          .load()
          .forEach(
              (channel, n) ->
                  assertTrue(n <= agent.capacity().getOrDefault(channel, 0), agent.toString()));
    }
    // work conservation once quiet, with the caps counted from the contacts held
    Map<String, Integer> caps = Map.of("specialists", CAP, "callbacks", 1);
    for (Contact waiting : router.waiting()) {
      if (waiting.state() != ContactState.QUEUED) {
        continue;
      }
      Selector requirement = waiting.requirements().map(Selector::parse).orElse(null);
      String queue = waiting.queue().orElseThrow();
      for (Agent agent : router.agents()) {
        int held = perQueue.getOrDefault(agent.id(), Map.of()).getOrDefault(queue, 0);
        boolean belowCap = held < caps.getOrDefault(queue, Integer.MAX_VALUE);
        boolean matches =
            requirement == null
                || requirement.matches(
                    name -> name.equals("sys.agentId") ? agent.id() : agent.attributes().get(name));
        java.time.Instant last = refused.get(waiting.id() + " " + agent.id());
        boolean resting =
            last != null && last.plus(Router.DEFAULT_REST_PERIOD).isAfter(clock.instant());
        assertTrue(
            !agent.eligibleFor(waiting.channel()) || !belowCap || !matches || resting,
            agent.id() + " idle while " + waiting.id() + " waits in " + queue);
      }
    }
  }

  private void work(Workspace centre, int thread, ConcurrentLinkedQueue<String> created) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    Router router = centre.router();
    for (int i = 0; i < CALLS; i++) {
      int dice = random.nextInt(100);
      String agent = "a" + random.nextInt(AGENTS);
      try {
        if (dice < 15) {
          centre.activity(agent, random.nextInt(4) == 0 ? "Lunch" : "Ready");
        } else if (dice < 45) {
          String id = "t" + thread + "-" + i;
          centre.createContact(
              NewContact.builder(id, random.nextBoolean() ? "voice" : "chat")
                  .attributes(attributes(random))
                  .build(),
              Optional.empty(),
              Optional.of("support"));
          created.add(id);
        } else if (dice < 55) {
          List<Contact> waiting = router.waiting();
          if (!waiting.isEmpty()) {
            Contact c = waiting.get(random.nextInt(waiting.size()));
            centre.updateContact(c.id(), ContactUpdate.none().withAttributes(attributes(random)));
          }
        } else if (dice < 85) {
          for (Reservation r : router.pendingReservations(agent)) {
            if (random.nextInt(4) == 0) {
              router.reject(r.id());
            } else {
              router.complete(router.accept(r.id()).id());
            }
          }
        } else if (dice < 92) {
          List<Contact> waiting = router.waiting();
          if (!waiting.isEmpty()) {
            router.abandon(waiting.get(random.nextInt(waiting.size())).id());
          }
        } else if (thread == 0) {
          clock.advanceMillis(random.nextInt(1_500));
        }
      } catch (RoutingException raced) {
        // another thread got there first (the offer expired, the contact left): expected
        if (raced.code() == RoutingErrorCode.INVALID_ARGUMENT) {
          throw raced;
        }
      }
    }
  }

  private static Map<String, Object> attributes(ThreadLocalRandom random) {
    Map<String, Object> attrs = new HashMap<>();
    attrs.put("topic", List.of("billing", "sales", "callback").get(random.nextInt(3)));
    if (random.nextInt(4) > 0) {
      attrs.put("lang", random.nextBoolean() ? "es" : "en");
    }
    if (random.nextInt(3) == 0) {
      attrs.put("lastAgent", "a" + random.nextInt(AGENTS));
    }
    return attrs;
  }
}
