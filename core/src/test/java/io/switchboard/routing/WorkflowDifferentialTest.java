package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.selector.Selector;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A workspace with activities, task queues (worker expressions and rules) and random workflows (1–3
 * filters over the contact's attributes, 1–3 targets each with extra worker expressions that may
 * refer to the contact's attributes, priorities, timeouts and skip-if-none, a default filter, a
 * preferred agent) runs seeded random steps — agents arrive, change activity or attributes, accept,
 * reject, complete; contacts arrive through workflows, queues or neither, change attributes
 * (re-evaluation) or priority, abandon, are cancelled or transferred; workflows and queue rules are
 * replaced; the clock passes target, offer, wrap-up and maximum-wait times — through the router and
 * through {@link ReferenceRouter}. After every step: the same offers; the reference's invariants
 * (work conservation, no skipping and the current stage's requirement at each offer, target order
 * and timeouts counted from entry, per-queue counts); each waiting contact's state, queue, target
 * and priority as the reference has them; no contact with two live offers. In the restart variant
 * the workspace's router is closed and rebuilt on its journal at random steps.
 *
 * <p>{@code -Drouting.seed=N} reruns a seed; {@code -Drouting.workflowSteps=N} runs longer.
 */
class WorkflowDifferentialTest {

  private static final int STEPS = Integer.getInteger("routing.workflowSteps", 3_000);
  private static final int QUEUES = 3;
  private static final String[] SKILLS = {"a", "b", "c", "d"};
  private static final String[] LANGS = {"en", "es", "fr"};
  private static final String[] TOPICS = {"billing", "sales", "other"};
  private static final String[] WORKERS = {
    null, "skills HAS 'a'", "level >= 2", "lang IN ('en', 'es')", "skills HAS ANY ('b', 'c')"
  };
  private static final String[] FILTERS = {
    "topic = 'billing'",
    "topic IN ('billing', 'sales')",
    "vip = TRUE",
    "level >= 4",
    "lang = 'fr' AND topic <> 'other'",
    "skill IS NOT NULL",
  };

  /** Extra target expressions: the text, and the contact attribute it refers to (or none). */
  private static final String[][] EXTRAS = {
    {null, null},
    {"lang = contact.lang", "lang"},
    {"skills HAS contact.skill", "skill"},
    {"level >= contact.level", "level"},
    {"skills HAS 'b'", null},
    {"lang IN ('es', contact.lang) AND level > 1", "lang"},
  };

  private static final List<Activity> ACTIVITIES =
      List.of(
          new Activity("Ready", true),
          new Activity("Standby", true),
          new Activity("Lunch", false),
          new Activity("offline", false));

  static Stream<Arguments> configurations() {
    long base = Long.getLong("routing.seed", System.nanoTime());
    return Stream.of(
        Arguments.of(ReferenceRouter.Strat.LONGEST_IDLE, false, 3, false, base),
        Arguments.of(ReferenceRouter.Strat.LEAST_OCCUPIED, true, 0, false, base + 1),
        Arguments.of(ReferenceRouter.Strat.HIGHEST_LEVEL, false, 2, true, base + 2));
  }

  @ParameterizedTest(name = "{0} autoAccept={1} missLimit={2} restarts={3} seed={4}")
  @MethodSource("configurations")
  void randomWorkflows_sameDecisionsAsReference(
      ReferenceRouter.Strat strat, boolean autoAccept, int missLimit, boolean restarts, long seed) {
    Run run = new Run(strat, autoAccept, missLimit, restarts, seed);
    try {
      run.run();
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError(
          "workflow differential run failed at "
              + run.context
              + "; rerun with -Drouting.seed="
              + seed
              + " ("
              + strat
              + ")",
          e);
    } finally {
      run.close();
    }
  }

  private static final class Run {
    final ReferenceRouter.Strat strat;
    final boolean autoAccept;
    final int missLimit;
    final boolean restarts;
    final Random random;
    final ManualClock clock = ManualClock.create();
    final long offerTimeout = 10_000;
    final long chatWrapUp = 3_000;
    final WorkspaceStore store = WorkspaceStore.memory();
    final WorkspaceRouters routers;
    final ReferenceRouter ref;
    Router defaultRouter;
    Workspaces workspaces;
    Workspace centre;
    final List<RoutingEvent.ReservationOffered> offered = new ArrayList<>();
    final Map<String, String> liveOffer = new HashMap<>();
    final Map<String, String> reservationIds = new HashMap<>(); // reference's id -> router's
    final List<TaskQueue> queues = new ArrayList<>();
    String context = "setup";
    int restartCount;

    Run(
        ReferenceRouter.Strat strat,
        boolean autoAccept,
        int missLimit,
        boolean restarts,
        long seed) {
      this.strat = strat;
      this.autoAccept = autoAccept;
      this.missLimit = missLimit;
      this.restarts = restarts;
      this.random = new Random(seed);
      this.routers =
          WorkspaceRouters.memory(
              w -> {
                Router.Builder b =
                    w.settings()
                        .applyTo(Router.builder().clock(clock))
                        .missLimit(missLimit)
                        .eventHistory(1_000_000)
                        .contactHistory(1_000_000);
                if (autoAccept) {
                  b.autoAccept("voice").autoAccept("chat");
                }
                return b;
              });
      this.ref = new ReferenceRouter(strat, offerTimeout, missLimit, autoAccept, chatWrapUp);
      ref.now = clock.millis();
    }

    void open() {
      defaultRouter = Router.builder().clock(clock).build();
      workspaces = new Workspaces(defaultRouter, WorkspaceSettings.DEFAULTS, store, routers);
    }

    void close() {
      if (workspaces != null) {
        workspaces.close();
        defaultRouter.close();
      }
    }

    void subscribe() {
      centre.router().onEvent(this::event);
    }

    private void event(RoutingEvent e) {
      switch (e) {
        case RoutingEvent.ReservationOffered o -> {
          offered.add(o);
          String before = liveOffer.put(o.reservation().contactId(), o.reservation().id());
          if (before != null) {
            throw new AssertionError("contact offered twice at once: " + o);
          }
        }
        case RoutingEvent.ReservationAccepted r -> liveOffer.remove(r.contactId());
        case RoutingEvent.ReservationRejected r -> liveOffer.remove(r.contactId());
        case RoutingEvent.ReservationTimedOut r -> liveOffer.remove(r.contactId());
        case RoutingEvent.ReservationCancelled r -> liveOffer.remove(r.contactId());
        default -> {}
      }
    }

    void run() {
      open();
      Strategy strategy =
          switch (strat) {
            case LONGEST_IDLE -> Strategy.longestIdle();
            case LEAST_OCCUPIED -> Strategy.leastOccupied();
            case HIGHEST_LEVEL -> Strategy.highest("level");
          };
      centre =
          workspaces.create(
              WorkspaceDefinition.create(
                  "centre",
                  new WorkspaceSettings(
                      strategy,
                      Duration.ofMillis(offerTimeout),
                      Map.of("chat", Duration.ofMillis(chatWrapUp)),
                      Duration.ofSeconds(20),
                      "offline"),
                  ACTIVITIES));
      subscribe();
      for (int i = 0; i < QUEUES; i++) {
        putQueue(randomQueue("q" + i, WORKERS[random.nextInt(WORKERS.length)]));
      }
      putWorkflow("w0");
      putWorkflow("w1");
      int agentIds = 0;
      int contactIds = 0;
      for (int step = 0; step < STEPS; step++) {
        ref.offers.clear();
        offered.clear();
        String what = "";
        int dice = random.nextInt(100);
        List<ReferenceRouter.A> agents = new ArrayList<>(ref.agents.values());
        if (dice < 7 && ref.agents.size() < 20 || ref.agents.isEmpty()) {
          String id = "agent-" + ++agentIds;
          Map<String, Object> attrs = agentAttributes();
          int voice = random.nextInt(2);
          int chat = 1 + random.nextInt(3);
          Activity activity = ACTIVITIES.get(random.nextInt(ACTIVITIES.size()));
          what =
              "create " + id + " " + attrs + " voice " + voice + " chat " + chat + " " + activity;
          centre.createAgent(
              NewAgent.builder(id)
                  .attributes(attrs)
                  .capacity("voice", voice)
                  .capacity("chat", chat)
                  .build(),
              Optional.of(activity.name()));
          Map<String, Integer> cap = new LinkedHashMap<>();
          cap.put("voice", voice);
          cap.put("chat", chat);
          ref.createAgent(id, attrs, cap, activity.presence(), activity.name());
        } else if (dice < 20) {
          ReferenceRouter.A a = agents.get(random.nextInt(agents.size()));
          Activity activity =
              ACTIVITIES.get(random.nextInt(3) == 0 ? 2 + random.nextInt(2) : random.nextInt(2));
          what = "activity " + a.id + " " + activity;
          centre.activity(a.id, activity.name());
          ref.activity(a.id, activity.name(), activity.presence());
        } else if (dice < 22) {
          ReferenceRouter.A a = agents.get(random.nextInt(agents.size()));
          Map<String, Object> attrs = agentAttributes();
          what = "update " + a.id + " " + attrs;
          centre.router().updateAttributes(a.id, attrs);
          ref.updateAttributes(a.id, attrs);
        } else if (dice < 23) {
          ReferenceRouter.A a = agents.get(random.nextInt(agents.size()));
          if (a.active == 0) {
            what = "remove " + a.id;
            centre.router().removeAgent(a.id);
            ref.removeAgent(a.id);
          }
        } else if (dice < 45) {
          String id = "contact-" + ++contactIds;
          String channel = random.nextInt(3) == 0 ? "voice" : "chat";
          int priority = random.nextInt(10) < 7 ? 0 : random.nextInt(3);
          long maxWait = random.nextBoolean() ? 5_000 + random.nextInt(40_000) : 0;
          int how = random.nextInt(10);
          if (how < 7) {
            Map<String, Object> attrs = contactAttributes(agentIds);
            String workflow = "w" + random.nextInt(2);
            what =
                "contact " + id + " " + channel + " p" + priority + " " + attrs + " by " + workflow;
            NewContact.Builder spec =
                NewContact.builder(id, channel).attributes(attrs).priority(priority);
            if (maxWait > 0) {
              spec.maxWait(Duration.ofMillis(maxWait));
            }
            centre.createContact(spec.build(), Optional.empty(), Optional.of(workflow));
            ref.createRouted(id, channel, attrs, priority, maxWait, workflow);
          } else {
            String queue = how < 9 ? "q" + random.nextInt(QUEUES) : null;
            String req = WORKERS[random.nextInt(WORKERS.length)];
            what =
                "contact " + id + " " + channel + " p" + priority + " [" + req + "] via " + queue;
            NewContact.Builder spec = NewContact.builder(id, channel).priority(priority);
            if (req != null) {
              spec.requirements(req);
            }
            if (maxWait > 0) {
              spec.maxWait(Duration.ofMillis(maxWait));
            }
            centre.createContact(spec.build(), Optional.ofNullable(queue));
            String both = combine(queue == null ? null : ref.workerExpressions.get(queue), req);
            ref.createContact(
                id,
                channel,
                both == null ? null : Selector.parse(both),
                priority,
                List.of(),
                List.of(),
                maxWait,
                queue);
          }
        } else if (dice < 63) {
          List<ReferenceRouter.R> pending =
              ref.reservations.values().stream()
                  .filter(r -> r.state == ReservationState.PENDING)
                  .toList();
          if (!pending.isEmpty()) {
            ReferenceRouter.R r = pending.get(random.nextInt(pending.size()));
            String rid = reservationIds.get(r.id);
            if (random.nextInt(4) == 0) {
              what = "reject " + r.id;
              centre.router().reject(rid);
              ref.reject(r.id);
            } else {
              what = "accept " + r.id;
              centre.router().accept(rid);
              ref.accept(r.id);
            }
          }
        } else if (dice < 75) {
          List<ReferenceRouter.C> assigned =
              ref.contacts.values().stream().filter(c -> c.state == ContactState.ASSIGNED).toList();
          if (!assigned.isEmpty()) {
            ReferenceRouter.C c = assigned.get(random.nextInt(assigned.size()));
            int kind = random.nextInt(3);
            what = "complete " + c.id + " kind " + kind;
            if (kind == 0) {
              centre.router().complete(c.id);
              ref.complete(c.id, c.channel.equals("chat") ? -1 : 0);
            } else {
              long wrap = kind == 1 ? 0 : 1_000 + random.nextInt(5_000);
              centre.router().complete(c.id, Duration.ofMillis(wrap));
              ref.complete(c.id, wrap);
            }
          }
        } else if (dice < 84) {
          List<ReferenceRouter.C> open =
              ref.contacts.values().stream()
                  .filter(c -> c.state == ContactState.QUEUED || c.state == ContactState.OFFERED)
                  .toList();
          if (!open.isEmpty()) {
            ReferenceRouter.C c = open.get(random.nextInt(open.size()));
            int kind = random.nextInt(6);
            if (kind == 0) {
              what = "abandon " + c.id;
              centre.router().abandon(c.id);
              ref.abandon(c.id);
            } else if (kind == 1) {
              what = "cancel " + c.id;
              centre.router().cancel(c.id, "test");
              ref.cancel(c.id);
            } else if (kind == 2 || c.workflow == null) {
              int priority = random.nextInt(5) - 2;
              what = "priority " + c.id + " " + priority;
              centre.updateContact(c.id, ContactUpdate.none().withPriority(priority));
              ref.change(c.id, priority, false, null);
            } else {
              Map<String, Object> attrs = contactAttributes(agentIds);
              ContactUpdate u = ContactUpdate.none().withAttributes(attrs);
              int priority = c.priority;
              if (random.nextBoolean()) {
                priority = random.nextInt(3);
                u = u.withPriority(priority);
              }
              what = "reroute " + c.id + " p" + priority + " " + attrs;
              centre.updateContact(c.id, u);
              ref.reroute(c.id, attrs, priority);
            }
          }
        } else if (dice < 86) {
          List<ReferenceRouter.C> assigned =
              ref.contacts.values().stream().filter(c -> c.state == ContactState.ASSIGNED).toList();
          if (!assigned.isEmpty()) {
            ReferenceRouter.C c = assigned.get(random.nextInt(assigned.size()));
            ReferenceRouter.A to = agents.get(random.nextInt(agents.size()));
            if (random.nextBoolean() && to != c.agent && to.eligible(c.channel)) {
              what = "transfer " + c.id + " to agent " + to.id;
              centre.router().transferToAgent(c.id, to.id);
              ref.transferToAgent(c.id, to.id);
            } else {
              String queue = "q" + random.nextInt(QUEUES);
              String req = WORKERS[random.nextInt(WORKERS.length)];
              what = "transfer " + c.id + " to queue " + queue + " [" + req + "]";
              centre.transfer(c.id, queue, Optional.ofNullable(req));
              String both = combine(ref.workerExpressions.get(queue), req);
              ref.transfer(c.id, queue, both == null ? null : Selector.parse(both));
            }
          }
        } else if (dice < 87) {
          int i = random.nextInt(QUEUES);
          String expression =
              random.nextBoolean()
                  ? queues.get(i).workerExpression().orElse(null)
                  : WORKERS[random.nextInt(WORKERS.length)];
          TaskQueue q = randomQueue("q" + i, expression);
          what = "rules " + q;
          putQueue(q);
        } else if (dice < 88) {
          String name = "w" + random.nextInt(2);
          what = "workflow " + name;
          putWorkflow(name);
        } else {
          long ms = random.nextInt(4) == 0 ? random.nextInt(20_000) : random.nextInt(3_000);
          what = "advance " + ms;
          clock.advanceMillis(ms);
          ref.advanceTo(clock.millis());
        }
        context = "step " + step + " (" + what + ")";
        compareOffers();
        ref.checkInvariants();
        compareWaiting();
        if (step % 50 == 0 || step == STEPS - 1) {
          compareStates();
        }
        if (restarts && random.nextInt(40) == 0) {
          restart();
        }
      }
    }

    private void restart() {
      close();
      open();
      centre = workspaces.get("centre");
      subscribe();
      restartCount++;
      compareWaiting();
      compareStates();
    }

    private void compareOffers() {
      List<List<String>> actual = new ArrayList<>();
      for (RoutingEvent.ReservationOffered o : offered) {
        actual.add(List.of(o.reservation().contactId(), o.reservation().agentId()));
      }
      List<List<String>> expected = new ArrayList<>();
      for (ReferenceRouter.Offer o : ref.offers) {
        expected.add(List.of(o.contactId(), o.agentId()));
      }
      assertEquals(expected, actual, context);
      for (int i = 0; i < offered.size(); i++) {
        reservationIds.put(ref.offers.get(i).reservationId(), offered.get(i).reservation().id());
      }
    }

    /** Each waiting contact: state, queue, target (escalation step) and priority. */
    private void compareWaiting() {
      for (ReferenceRouter.C c : ref.contacts.values()) {
        if (c.state != ContactState.QUEUED && c.state != ContactState.OFFERED) {
          continue;
        }
        Contact actual = centre.router().contact(c.id);
        String where = context + " contact " + c.id;
        assertEquals(c.state, actual.state(), where);
        assertEquals(Optional.ofNullable(c.queue), actual.queue(), where);
        assertEquals(c.priority, actual.priority(), where);
        if (c.stages != null) {
          assertEquals(
              c.step,
              actual.escalationStep(),
              where
                  + " entered "
                  + c.entry
                  + " now "
                  + ref.now
                  + " after "
                  + restartCount
                  + " restarts, stages "
                  + c.stages);
        }
        assertEquals(
            Optional.ofNullable(c.agent).map(a -> a.id), actual.agentId(), where + " agent");
      }
    }

    private void compareStates() {
      Router router = centre.router();
      for (ReferenceRouter.C c : ref.contacts.values()) {
        assertEquals(c.state, router.contact(c.id).state(), context + " contact " + c.id);
      }
      assertEquals(ref.agents.size(), router.agents().size(), context);
      for (ReferenceRouter.A a : ref.agents.values()) {
        Agent agent = router.agent(a.id);
        String where = context + " agent " + a.id;
        assertEquals(a.presence.kind(), agent.presence().kind(), where);
        assertEquals(a.activity, agent.activity(), where);
        Map<String, Integer> load = new LinkedHashMap<>(a.load);
        load.values().removeIf(v -> v == 0);
        assertEquals(load, agent.load(), where);
        assertEquals(a.idleSince, agent.idleSince().toEpochMilli(), where);
        assertEquals(a.wrapUps > 0, agent.inWrapUp(), where);
      }
      for (ReferenceRouter.Q q : ref.queues.values()) {
        TaskQueueStats s = router.taskQueueStats(q.name);
        long waiting =
            ref.contacts.values().stream()
                .filter(c -> c.state == ContactState.QUEUED && q.name.equals(c.queue))
                .count();
        assertEquals(waiting, s.waiting(), context + " queue " + q.name);
        if (restartCount == 0) { // the counters live since the router started
          assertEquals(
              List.of(q.offered, q.accepted, q.rejected, q.answered, q.abandoned, q.timedOut),
              List.of(
                  s.offered(),
                  s.accepted(),
                  s.rejected(),
                  s.answered(),
                  s.abandoned(),
                  s.timedOut()),
              context + " queue " + q.name);
        }
      }
    }

    private void putQueue(TaskQueue q) {
      int i = Integer.parseInt(q.name().substring(1));
      if (i < queues.size()) {
        queues.set(i, q);
      } else {
        queues.add(q);
      }
      centre.putQueue(q);
      ref.workerExpressions.put(q.name(), q.workerExpression().orElse(null));
      ReferenceRouter.Strat s =
          q.strategy()
              .map(
                  x ->
                      switch (x) {
                        case Strategy.LongestIdle l -> ReferenceRouter.Strat.LONGEST_IDLE;
                        case Strategy.LeastOccupied l -> ReferenceRouter.Strat.LEAST_OCCUPIED;
                        case Strategy.HighestAttribute h -> ReferenceRouter.Strat.HIGHEST_LEVEL;
                      })
              .orElse(null);
      ref.queue(
          q.name(),
          q.order() == TaskQueue.Order.LIFO,
          s,
          q.maxReservationsPerAgent().orElse(0),
          q.serviceLevelThreshold().orElse(Duration.ofSeconds(20)).toMillis());
    }

    private TaskQueue randomQueue(String name, String expression) {
      int s = random.nextInt(4);
      return new TaskQueue(
          name,
          Optional.ofNullable(expression),
          random.nextInt(4) == 0 ? TaskQueue.Order.LIFO : TaskQueue.Order.FIFO,
          switch (s) {
            case 0 -> Optional.empty();
            case 1 -> Optional.of(Strategy.longestIdle());
            case 2 -> Optional.of(Strategy.leastOccupied());
            default -> Optional.of(Strategy.highest("level"));
          },
          random.nextBoolean() ? Optional.empty() : Optional.of(1 + random.nextInt(2)),
          Optional.empty());
    }

    /** A random workflow, to the workspace and to the reference. */
    private void putWorkflow(String name) {
      List<WorkflowFilter> filters = new ArrayList<>();
      List<ReferenceRouter.WFilter> refFilters = new ArrayList<>();
      int n = 1 + random.nextInt(3);
      for (int i = 0; i < n; i++) {
        String expression = FILTERS[random.nextInt(FILTERS.length)];
        List<ReferenceRouter.WTarget> targets = randomTargets();
        filters.add(new WorkflowFilter("f" + i, expression, targets(targets)));
        refFilters.add(new ReferenceRouter.WFilter(expression, targets));
      }
      List<ReferenceRouter.WTarget> defaults = randomTargets();
      boolean preferred = random.nextInt(3) > 0;
      long preferredTimeout = 1_000 + random.nextInt(15_000);
      Workflow w =
          new Workflow(
              name,
              filters,
              targets(defaults),
              preferred
                  ? Optional.of(
                      new Workflow.PreferredAgent("pref", Duration.ofMillis(preferredTimeout)))
                  : Optional.empty());
      centre.putWorkflow(w);
      ref.workflows.put(
          name,
          new ReferenceRouter.WFlow(
              name, refFilters, defaults, preferred ? "pref" : null, preferredTimeout));
    }

    private List<ReferenceRouter.WTarget> randomTargets() {
      int n = 1 + random.nextInt(3);
      List<ReferenceRouter.WTarget> targets = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        boolean last = i == n - 1;
        String[] extra = EXTRAS[random.nextInt(EXTRAS.length)];
        targets.add(
            new ReferenceRouter.WTarget(
                "q" + random.nextInt(QUEUES),
                extra[0],
                extra[1],
                random.nextInt(3) == 0 ? random.nextInt(4) - 1 : null,
                last ? 0 : 1_000 + random.nextInt(20_000),
                !last && random.nextInt(3) == 0));
      }
      return targets;
    }

    private static List<WorkflowTarget> targets(List<ReferenceRouter.WTarget> targets) {
      List<WorkflowTarget> out = new ArrayList<>();
      for (int i = 0; i < targets.size(); i++) {
        ReferenceRouter.WTarget t = targets.get(i);
        boolean last = i == targets.size() - 1;
        out.add(
            new WorkflowTarget(
                t.queue(),
                Optional.ofNullable(t.extra()),
                Optional.ofNullable(t.priority()),
                last ? Optional.empty() : Optional.of(Duration.ofMillis(t.timeout())),
                t.skip()));
      }
      return out;
    }

    private Map<String, Object> agentAttributes() {
      List<String> skills = new ArrayList<>();
      for (String s : SKILLS) {
        if (random.nextBoolean()) {
          skills.add(s);
        }
      }
      Map<String, Object> attrs = new LinkedHashMap<>();
      attrs.put("skills", skills);
      String lang = LANGS[random.nextInt(LANGS.length)];
      attrs.put("lang", random.nextInt(6) == 0 ? List.of(lang, "de") : lang);
      attrs.put("level", 1 + random.nextInt(5));
      return attrs;
    }

    /** Contact attributes; sometimes without the ones target expressions refer to. */
    private Map<String, Object> contactAttributes(int agentIds) {
      Map<String, Object> attrs = new LinkedHashMap<>();
      attrs.put("topic", TOPICS[random.nextInt(TOPICS.length)]);
      if (random.nextInt(5) > 0) {
        attrs.put("lang", LANGS[random.nextInt(LANGS.length)]);
      }
      if (random.nextInt(3) > 0) {
        attrs.put("skill", SKILLS[random.nextInt(SKILLS.length)]);
      }
      if (random.nextInt(3) > 0) {
        attrs.put("level", 1 + random.nextInt(5));
      }
      attrs.put("vip", random.nextInt(4) == 0);
      if (random.nextInt(3) == 0) {
        attrs.put("pref", "agent-" + (1 + random.nextInt(agentIds + 2)));
      }
      return attrs;
    }

    private static String combine(String worker, String own) {
      if (worker == null) {
        return own;
      }
      return own == null ? worker : "(" + worker + ") AND (" + own + ")";
    }
  }
}
