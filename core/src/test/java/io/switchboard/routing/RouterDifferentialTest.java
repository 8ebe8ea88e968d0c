package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.selector.Selector;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random sequences of arrivals, presence changes, attribute updates, accepts, rejects,
 * completions (with and without wrap-up), abandons, agent removals and clock advances (offer
 * timeouts, escalations, maximum waits, wrap-up ends) run through the router and through {@link
 * ReferenceRouter}; every step must make the same offers, and the states must agree throughout.
 * Contacts are routed through random task queues with random rules (order, strategy, cap per agent,
 * service-level threshold), changed now and then, or through none.
 */
class RouterDifferentialTest {

  private static final int EVENTS = 10_000;
  private static final String[] SKILLS = {"a", "b", "c", "d"};
  private static final String[] LANGS = {"en", "es", "fr"};
  private static final String[] REQUIREMENTS = {
    null,
    "skills HAS 'a'",
    "skills HAS 'b'",
    "skills HAS ALL ('a', 'b')",
    "skills HAS ANY ('c', 'd')",
    "lang = 'es'",
    "lang = 'es' AND level >= 3",
    "level > 3",
    "lang IN ('en', 'fr') AND skills HAS 'c'",
    "skills HAS ALL ('a', 'c', 'd')",
    "lang = 'fr' AND skills HAS ALL ('b', 'c', 'd')",
    "skills HAS 'a' OR lang = 'fr'",
    // exact requirements (the index decides without evaluating), also against string attributes
    "lang HAS 'es'",
    "skills HAS 'a' AND lang HAS 'en'",
    "skills HAS ALL ('a', 'b', 'c', 'd')",
    "skills HAS ANY ('b')",
    // equality is UNKNOWN on a list holding the value, where the agent still holds the term
    "skills = 'a'",
    "lang IN ('es') AND skills HAS 'd'",
  };

  static Stream<Arguments> configurations() {
    long base = Long.getLong("routing.seed", System.nanoTime());
    return Stream.of(
        Arguments.of(ReferenceRouter.Strat.LONGEST_IDLE, false, 3, base),
        Arguments.of(ReferenceRouter.Strat.LEAST_OCCUPIED, false, 2, base + 1),
        Arguments.of(ReferenceRouter.Strat.HIGHEST_LEVEL, false, 0, base + 2),
        Arguments.of(ReferenceRouter.Strat.LONGEST_IDLE, true, 1, base + 3));
  }

  @ParameterizedTest(name = "{0} autoAccept={1} missLimit={2} seed={3}")
  @MethodSource("configurations")
  void randomSequence_sameDecisionsAsReference(
      ReferenceRouter.Strat strat, boolean autoAccept, int missLimit, long seed) {
    try {
      run(strat, autoAccept, missLimit, seed);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError(
          "differential run failed; rerun with -Drouting.seed=" + seed + " (" + strat + ")", e);
    }
  }

  private void run(ReferenceRouter.Strat strat, boolean autoAccept, int missLimit, long seed) {
    Random random = new Random(seed);
    ManualClock clock = ManualClock.create();
    long offerTimeout = 10_000;
    long chatWrapUp = 3_000;
    Router.Builder builder =
        Router.builder()
            .clock(clock)
            .offerTimeout(Duration.ofMillis(offerTimeout))
            .missLimit(missLimit)
            .wrapUp("chat", Duration.ofMillis(chatWrapUp))
            .eventHistory(1_000_000)
            .contactHistory(1_000_000)
            .strategy(
                switch (strat) {
                  case LONGEST_IDLE -> Strategy.longestIdle();
                  case LEAST_OCCUPIED -> Strategy.leastOccupied();
                  case HIGHEST_LEVEL -> Strategy.highest("level");
                });
    if (autoAccept) {
      builder.autoAccept("voice").autoAccept("chat");
    }
    Router router = builder.build();
    ReferenceRouter ref =
        new ReferenceRouter(strat, offerTimeout, missLimit, autoAccept, chatWrapUp);
    ref.now = clock.millis();
    List<TaskQueue> queues = new ArrayList<>();
    for (int i = 0; i < QUEUES; i++) {
      queues.add(randomQueue(random, "q" + i));
    }
    router.taskQueues(queues);
    queues.forEach(q -> define(ref, q));
    long lastEvent = 0;
    int agentIds = 0;
    int contactIds = 0;
    for (int step = 0; step < EVENTS; step++) {
      ref.offers.clear();
      String what = "";
      int dice = random.nextInt(100);
      List<ReferenceRouter.A> agents = new ArrayList<>(ref.agents.values());
      if (dice < 8 && ref.agents.size() < 25 || ref.agents.isEmpty()) {
        String id = "agent-" + ++agentIds;
        Map<String, Object> attrs = attributes(random);
        Map<String, Integer> cap = new LinkedHashMap<>();
        cap.put("voice", random.nextInt(2));
        cap.put("chat", random.nextInt(4));
        Presence p = presence(random);
        what = "create " + id + " " + attrs + " " + cap + " " + p;
        router.createAgent(
            NewAgent.builder(id)
                .attributes(attrs)
                .capacity("voice", cap.get("voice"))
                .capacity("chat", cap.get("chat"))
                .presence(p)
                .build());
        ref.createAgent(id, attrs, cap, p);
      } else if (dice < 22) {
        ReferenceRouter.A a = agents.get(random.nextInt(agents.size()));
        Presence p = presence(random);
        what = "presence " + a.id + " " + p;
        router.presence(a.id, p);
        ref.presence(a.id, p);
      } else if (dice < 25) {
        ReferenceRouter.A a = agents.get(random.nextInt(agents.size()));
        Map<String, Object> attrs = attributes(random);
        what = "update " + a.id + " " + attrs;
        router.updateAttributes(a.id, attrs);
        ref.updateAttributes(a.id, attrs);
      } else if (dice < 26) {
        ReferenceRouter.A a = agents.get(random.nextInt(agents.size()));
        if (a.active == 0) {
          what = "remove " + a.id;
          router.removeAgent(a.id);
          ref.removeAgent(a.id);
        }
      } else if (dice < 48) {
        String id = "contact-" + ++contactIds;
        String channel = random.nextInt(3) == 0 ? "voice" : "chat";
        String req = REQUIREMENTS[random.nextInt(REQUIREMENTS.length)];
        int priority = random.nextInt(10) < 7 ? 0 : random.nextInt(3);
        NewContact.Builder spec = NewContact.builder(id, channel).priority(priority);
        if (req != null) {
          spec.requirements(req);
        }
        List<Long> after = new ArrayList<>();
        List<Selector> reqs = new ArrayList<>();
        if (random.nextInt(4) == 0) {
          long t = 1_000 + random.nextInt(20_000);
          String to = REQUIREMENTS[random.nextInt(REQUIREMENTS.length)];
          after.add(t);
          reqs.add(to == null ? null : Selector.parse(to));
          if (to == null) {
            spec.escalateToAnyAgent(Duration.ofMillis(t));
          } else {
            spec.escalate(Duration.ofMillis(t), to);
          }
        }
        long maxWait = random.nextInt(3) == 0 ? 5_000 + random.nextInt(60_000) : 0;
        if (maxWait > 0) {
          spec.maxWait(Duration.ofMillis(maxWait));
        }
        String queue = random.nextBoolean() ? null : "q" + random.nextInt(QUEUES);
        what = "contact " + id + " " + channel + " [" + req + "] p" + priority + " via " + queue;
        router.createContact(queue == null ? spec.build() : spec.build().through(queue, r -> r));
        ref.createContact(
            id,
            channel,
            req == null ? null : Selector.parse(req),
            priority,
            after,
            reqs,
            maxWait,
            queue);
      } else if (dice < 68) {
        List<ReferenceRouter.R> pending =
            ref.reservations.values().stream()
                .filter(r -> r.state == ReservationState.PENDING)
                .toList();
        if (!pending.isEmpty()) {
          ReferenceRouter.R r = pending.get(random.nextInt(pending.size()));
          if (random.nextInt(4) == 0) {
            what = "reject " + r.id;
            router.reject(r.id);
            ref.reject(r.id);
          } else {
            what = "accept " + r.id;
            router.accept(r.id);
            ref.accept(r.id);
          }
        }
      } else if (dice < 82) {
        List<ReferenceRouter.C> assigned =
            ref.contacts.values().stream().filter(c -> c.state == ContactState.ASSIGNED).toList();
        if (!assigned.isEmpty()) {
          ReferenceRouter.C c = assigned.get(random.nextInt(assigned.size()));
          int kind = random.nextInt(3);
          what = "complete " + c.id + " kind " + kind;
          if (kind == 0) {
            router.complete(c.id);
            ref.complete(c.id, c.channel.equals("chat") ? -1 : 0);
          } else {
            long wrap = kind == 1 ? 0 : 1_000 + random.nextInt(5_000);
            router.complete(c.id, Duration.ofMillis(wrap));
            ref.complete(c.id, wrap);
          }
        }
      } else if (dice < 87) {
        List<ReferenceRouter.C> open =
            ref.contacts.values().stream()
                .filter(c -> c.state == ContactState.QUEUED || c.state == ContactState.OFFERED)
                .toList();
        if (!open.isEmpty()) {
          ReferenceRouter.C c = open.get(random.nextInt(open.size()));
          int kind = dice < 84 ? 0 : random.nextInt(3) + 1;
          if (kind == 0) {
            what = "abandon " + c.id;
            router.abandon(c.id);
            ref.abandon(c.id);
          } else if (kind == 1) {
            int priority = random.nextInt(5) - 2;
            what = "priority " + c.id + " " + priority;
            router.updateContact(c.id, ContactUpdate.none().withPriority(priority));
            ref.change(c.id, priority, false, null);
          } else if (kind == 2) {
            String req = REQUIREMENTS[random.nextInt(REQUIREMENTS.length)];
            int priority = random.nextInt(3);
            what = "change " + c.id + " p" + priority + " [" + req + "]";
            router.updateContact(
                c.id,
                ContactUpdate.none()
                    .withPriority(priority)
                    .withRequirements(req == null ? "" : req));
            ref.change(c.id, priority, true, req == null ? null : Selector.parse(req));
          } else {
            what = "cancel " + c.id;
            router.cancel(c.id, "test");
            ref.cancel(c.id);
          }
        }
      } else if (dice < 88) {
        List<ReferenceRouter.C> assigned =
            ref.contacts.values().stream().filter(c -> c.state == ContactState.ASSIGNED).toList();
        if (!assigned.isEmpty()) {
          ReferenceRouter.C c = assigned.get(random.nextInt(assigned.size()));
          ReferenceRouter.A to = agents.get(random.nextInt(agents.size()));
          if (random.nextBoolean() && to != c.agent && to.eligible(c.channel)) {
            what = "transfer " + c.id + " to agent " + to.id;
            router.transferToAgent(c.id, to.id);
            ref.transferToAgent(c.id, to.id);
          } else {
            String req = REQUIREMENTS[random.nextInt(REQUIREMENTS.length)];
            String queue = "q" + random.nextInt(QUEUES + 1); // q<QUEUES>: a queue without rules
            what = "transfer " + c.id + " to queue " + queue + " [" + req + "]";
            router.transfer(c.id, queue, java.util.Optional.ofNullable(req));
            ref.transfer(c.id, queue, req == null ? null : Selector.parse(req));
          }
        }
      } else if (dice < 89) {
        int i = random.nextInt(QUEUES);
        TaskQueue q = randomQueue(random, "q" + i);
        queues.set(i, q);
        what = "rules " + q;
        router.taskQueues(queues);
        define(ref, q);
      } else {
        long ms = random.nextInt(4) == 0 ? random.nextInt(20_000) : random.nextInt(3_000);
        what = "advance " + ms;
        clock.advanceMillis(ms);
        ref.advanceTo(clock.millis());
      }
      EventPage page = router.events(lastEvent, 10_000);
      lastEvent = page.lastId();
      List<ReferenceRouter.Offer> offers = new ArrayList<>();
      for (RoutingEvent e : page.events()) {
        if (e instanceof RoutingEvent.ReservationOffered o) {
          Reservation r = o.reservation();
          offers.add(new ReferenceRouter.Offer(r.id(), r.contactId(), r.agentId()));
        }
      }
      String context = "step " + step + " (" + what + ")";
      assertEquals(ref.offers, offers, context);
      ref.checkInvariants();
      if (step % 50 == 0 || step == EVENTS - 1) {
        compareStates(router, ref, context);
        compareQueues(router, ref, context);
      }
    }
  }

  private static final int QUEUES = 3;

  private static TaskQueue randomQueue(Random random, String name) {
    int s = random.nextInt(4);
    return new TaskQueue(
        name,
        java.util.Optional.empty(),
        random.nextBoolean() ? TaskQueue.Order.FIFO : TaskQueue.Order.LIFO,
        switch (s) {
          case 0 -> java.util.Optional.empty();
          case 1 -> java.util.Optional.of(Strategy.longestIdle());
          case 2 -> java.util.Optional.of(Strategy.leastOccupied());
          default -> java.util.Optional.of(Strategy.highest("level"));
        },
        random.nextBoolean()
            ? java.util.Optional.empty()
            : java.util.Optional.of(1 + random.nextInt(3)),
        random.nextBoolean()
            ? java.util.Optional.empty()
            : java.util.Optional.of(Duration.ofSeconds(1 + random.nextInt(30))));
  }

  private static void define(ReferenceRouter ref, TaskQueue q) {
    ReferenceRouter.Strat strat =
        q.strategy()
            .map(
                s ->
                    switch (s) {
                      case Strategy.LongestIdle l -> ReferenceRouter.Strat.LONGEST_IDLE;
                      case Strategy.LeastOccupied l -> ReferenceRouter.Strat.LEAST_OCCUPIED;
                      case Strategy.HighestAttribute h -> ReferenceRouter.Strat.HIGHEST_LEVEL;
                    })
            .orElse(null);
    ref.queue(
        q.name(),
        q.order() == TaskQueue.Order.LIFO,
        strat,
        q.maxReservationsPerAgent().orElse(0),
        q.serviceLevelThreshold().orElse(Duration.ofSeconds(20)).toMillis());
  }

  /** Each queue's counters against the reference's. */
  private static void compareQueues(Router router, ReferenceRouter ref, String context) {
    for (ReferenceRouter.Q q : ref.queues.values()) {
      TaskQueueStats s = router.taskQueueStats(q.name);
      String where = context + " queue " + q.name;
      assertEquals(
          List.of(
              q.offered,
              q.accepted,
              q.rejected,
              q.offersTimedOut,
              q.answered,
              q.within,
              q.abandoned,
              q.timedOut),
          List.of(
              s.offered(),
              s.accepted(),
              s.rejected(),
              s.offersTimedOut(),
              s.answered(),
              s.answeredWithinThreshold(),
              s.abandoned(),
              s.timedOut()),
          where);
      long waiting =
          ref.contacts.values().stream()
              .filter(c -> c.state == ContactState.QUEUED && q.name.equals(c.queue))
              .count();
      assertEquals(waiting, s.waiting(), where);
    }
  }

  private static void compareStates(Router router, ReferenceRouter ref, String context) {
    for (ReferenceRouter.C c : ref.contacts.values()) {
      assertEquals(c.state, router.contact(c.id).state(), context + " contact " + c.id);
    }
    assertEquals(ref.agents.size(), router.agents().size(), context);
    for (ReferenceRouter.A a : ref.agents.values()) {
      Agent agent = router.agent(a.id);
      assertEquals(a.presence.kind(), agent.presence().kind(), context + " agent " + a.id);
      Map<String, Integer> load = new LinkedHashMap<>(a.load);
      load.values().removeIf(v -> v == 0);
      assertEquals(load, agent.load(), context + " agent " + a.id);
      assertEquals(a.idleSince, agent.idleSince().toEpochMilli(), context + " agent " + a.id);
      assertEquals(a.wrapUps > 0, agent.inWrapUp(), context + " agent " + a.id);
    }
  }

  /**
   * Skills are mostly a list and languages mostly one string, but now and then the other way round,
   * so that requirements meet both shapes of the same attribute.
   */
  private static Map<String, Object> attributes(Random random) {
    List<String> skills = new ArrayList<>();
    for (String s : SKILLS) {
      if (random.nextBoolean()) {
        skills.add(s);
      }
    }
    Map<String, Object> attrs = new LinkedHashMap<>();
    boolean oneSkill = skills.size() == 1 && random.nextBoolean();
    attrs.put("skills", oneSkill ? skills.get(0) : skills);
    String lang = LANGS[random.nextInt(LANGS.length)];
    attrs.put("lang", random.nextInt(5) == 0 ? List.of(lang, "de") : lang);
    attrs.put("level", 1 + random.nextInt(5));
    return attrs;
  }

  private static Presence presence(Random random) {
    int p = random.nextInt(10);
    return p < 6 ? Presence.available() : p < 8 ? Presence.away("break") : Presence.offline();
  }
}
