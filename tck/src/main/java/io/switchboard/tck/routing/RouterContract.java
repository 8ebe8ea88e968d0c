package io.switchboard.tck.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.Agent;
import io.switchboard.routing.Contact;
import io.switchboard.routing.ContactState;
import io.switchboard.routing.ContactUpdate;
import io.switchboard.routing.EventPage;
import io.switchboard.routing.IntervalFigures;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Reservation;
import io.switchboard.routing.ReservationState;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingEvent;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.StatisticsQuery;
import io.switchboard.routing.StatisticsReport;
import io.switchboard.routing.Strategy;
import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.spi.StoredInterval;
import io.switchboard.routing.spi.StoredInterval.Scope;
import io.switchboard.time.ManualClock;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.opentest4j.TestAbortedException;

/**
 * What a router on a journal must do across restarts, whatever the store: come back with every
 * agent, contact (in each state), reservation and waiting place it had, fire its timers after the
 * restart as if it had never stopped, hand out event and reservation ids above the ones it handed
 * out before, and keep its lasting statistics (closed intervals read back from the store, the open
 * one and the cumulative figures loaded, old ones deleted past the retention). A store module's
 * test extends this class and says how to make an empty store ({@link #newStore()}); every test
 * gets its own store and a fresh {@link ManualClock}. Nothing here sleeps: time moves only through
 * the clock.
 *
 * <p>The main test runs seeded random calls (bad ones included) and clock advances through a router
 * that never restarts and through one on the store that is restarted at random points (for a shared
 * store, each restart a handover to another server). Every call must give the same answer or the
 * same error, every step the same events (ids aside), and the whole visible state must agree. Rerun
 * a failure with {@code -Drouting.seed=N}.
 */
public abstract class RouterContract {

  /** A new, empty store. */
  protected abstract JournalStore newStore();

  /** How many random calls each run of the random-restart test makes; 3,000 unless overridden. */
  protected int randomSteps() {
    return 3_000;
  }

  private final ManualClock clock = ManualClock.create();
  private final List<AutoCloseable> opened = new ArrayList<>();

  @AfterEach
  final void closeAll() throws Exception {
    for (AutoCloseable c : opened.reversed()) {
      c.close();
    }
    opened.clear();
  }

  private Running start(Supplier<Router.Builder> settings) {
    return start(clock, settings);
  }

  private Running start(ManualClock on, Supplier<Router.Builder> settings) {
    Running r = new Running(newStore(), on, settings);
    opened.add(r);
    return r;
  }

  // ---- random calls, restarts at random points ----------------------------------------------

  /** Task queues with rules of their own; "q" has none. */
  private static final List<TaskQueue> QUEUES =
      List.of(
          new TaskQueue(
              "lifo",
              Optional.empty(),
              TaskQueue.Order.LIFO,
              Optional.of(Strategy.leastOccupied()),
              Optional.of(1),
              Optional.of(Duration.ofSeconds(5))),
          new TaskQueue(
              "best",
              Optional.empty(),
              TaskQueue.Order.FIFO,
              Optional.of(Strategy.highest("level")),
              Optional.of(2),
              Optional.empty()),
          TaskQueue.named("q"));

  private static final @Nullable String[] REQUIREMENTS = {
    null, "skills HAS 'a'", "skills HAS ALL ('a', 'b')", "lang = 'es'", "level >= 3"
  };

  static Stream<Arguments> configurations() {
    long base = Long.getLong("routing.seed", System.nanoTime());
    return Stream.of(
        Arguments.of(Strategy.longestIdle(), false, 3, false, base),
        Arguments.of(Strategy.leastOccupied(), false, 1, true, base + 1),
        Arguments.of(Strategy.highest("level"), true, 0, true, base + 2),
        Arguments.of(Strategy.highest("level"), true, 0, false, base + 3));
  }

  /**
   * Contacts are routed through task queues with rules of their own (LIFO, a cap per agent, a
   * strategy), which both routers get as a workspace gives them: at build, and again after each
   * restart. In the crash variant a restart loses the changes written without waiting (timers that
   * fired since the last call that changed something): the same timers fire again at the first call
   * after the restart, at the same clock time, and the state must come out the same. Event ids
   * after a restart are above every id before it.
   */
  @ParameterizedTest(name = "{0} autoAccept={1} missLimit={2} crash={3} seed={4}")
  @MethodSource("configurations")
  void restartsAtRandomPoints_sameAsRouterThatNeverRestarted(
      Strategy strategy, boolean autoAccept, int missLimit, boolean crash, long seed) {
    try {
      run(newStore(), strategy, autoAccept, missLimit, crash, seed);
    } catch (TestAbortedException e) {
      throw e; // a store that does not simulate a crash
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("restart run failed; rerun with -Drouting.seed=" + seed, e);
    }
  }

  private void run(
      JournalStore store,
      Strategy strategy,
      boolean autoAccept,
      int missLimit,
      boolean crash,
      long seed) {
    Random random = new Random(seed);
    Supplier<Router.Builder> builder =
        () -> {
          Router.Builder b =
              Router.builder()
                  .clock(clock)
                  .strategy(strategy)
                  .offerTimeout(Duration.ofSeconds(10))
                  .missLimit(missLimit)
                  .wrapUp("chat", Duration.ofSeconds(3))
                  .contactHistory(40)
                  .eventHistory(100_000);
          if (autoAccept) {
            b.autoAccept("voice");
          }
          return b;
        };
    Router steady = builder.get().build();
    opened.add(steady);
    Running running = new Running(store, clock, builder);
    opened.add(running);
    Router durable = running.router();
    steady.taskQueues(QUEUES);
    durable.taskQueues(QUEUES);
    int steps = randomSteps();
    long steadyLast = 0;
    long durableLast = 0;
    long highestBeforeRestart = 0;
    int restarts = 0;
    int lost = 0;
    int agents = 0;
    int contacts = 0;
    // about 3 restarts in 100 steps at random, and one forced after a quiet stretch, so that a
    // short
    // run (200 steps on a slow store) still restarts more than steps / 100 times whatever the seed
    int quietLimit = steps / (steps / 100 + 2);
    int lastRestart = 0;
    for (int step = 0; step < steps; step++) {
      boolean drawn = random.nextInt(100) < 3;
      if (drawn || step - lastRestart >= quietLimit) {
        lastRestart = step;
        if (crash) {
          lost += running.crashAndRestart();
        } else {
          running.restart();
        }
        durable = running.router();
        durable.taskQueues(QUEUES); // as the workspace does when it opens its router
        restarts++;
        highestBeforeRestart = durableLast;
        if (crash) {
          // the first call fires again what the crash lost; the states must agree, and the
          // event streams continue from here
          compareStates(steady, durable, contacts, "after a crash at step " + step);
          steadyLast = steady.events(steadyLast, 1).lastId();
          durableLast = durable.events(durableLast, 1).lastId();
        }
      }
      String what = call(random, steady, durable, agents, contacts);
      if (what.startsWith("create agent")) {
        agents++;
      } else if (what.startsWith("create contact")) {
        contacts++;
      }
      EventPage a = steady.events(steadyLast, 10_000);
      EventPage b = durable.events(durableLast, 10_000);
      String context = "step " + step + " (" + what + ")";
      assertEquals(withoutIds(a.events()), withoutIds(b.events()), context);
      for (RoutingEvent e : b.events()) {
        assertTrue(e.id() > highestBeforeRestart, context + ": event id repeated: " + e);
      }
      steadyLast = a.lastId();
      durableLast = b.lastId();
      if (step % 200 == 0 || step % 250 == 0 || step == steps - 1) {
        compareStates(steady, durable, contacts, context);
      }
    }
    assertTrue(restarts > steps / 100, "restarts: " + restarts + " in " + steps + " steps");
    assertTrue(!crash || lost > 0, "the crashes lost nothing");
  }

  /** One random call on both routers; returns what it was. */
  private String call(Random random, Router steady, Router durable, int agents, int contacts) {
    int dice = random.nextInt(100);
    String agent = "agent-" + random.nextInt(agents + 1);
    String contact = "contact-" + random.nextInt(contacts + 1);
    String reservation = "res-" + random.nextInt(Math.max(1, 2 * contacts));
    if (dice < 8) {
      NewAgent spec =
          NewAgent.builder("agent-" + (agents + 1))
              .attributes(attributes(random))
              .capacity("voice", random.nextInt(2))
              .capacity("chat", random.nextInt(3))
              .presence(presence(random))
              .build();
      same(steady, durable, r -> r.createAgent(spec));
      return "create agent " + spec;
    } else if (dice < 20) {
      Presence p = presence(random);
      same(steady, durable, r -> r.presence(agent, p));
      return "presence " + agent + " " + p;
    } else if (dice < 23) {
      Map<String, Object> attrs = attributes(random);
      same(steady, durable, r -> r.updateAttributes(agent, attrs));
      return "update " + agent + " " + attrs;
    } else if (dice < 25) {
      Map<String, Integer> cap = Map.of("voice", random.nextInt(2), "chat", random.nextInt(3));
      same(steady, durable, r -> r.updateCapacity(agent, cap));
      return "capacity " + agent + " " + cap;
    } else if (dice < 26) {
      same(
          steady,
          durable,
          r -> {
            r.removeAgent(agent);
            return "removed";
          });
      return "remove " + agent;
    } else if (dice < 46) {
      String req = REQUIREMENTS[random.nextInt(REQUIREMENTS.length)];
      NewContact.Builder spec =
          NewContact.builder("contact-" + (contacts + 1), random.nextInt(3) == 0 ? "voice" : "chat")
              .priority(random.nextInt(10) < 7 ? 0 : random.nextInt(3));
      if (req != null) {
        spec.requirements(req);
      }
      if (random.nextInt(3) == 0) {
        long first = 1_000 + random.nextInt(10_000);
        spec.escalate(Duration.ofMillis(first), "lang IN ('es', 'en')");
        spec.escalateToAnyAgent(Duration.ofMillis(first + 1 + random.nextInt(10_000)));
      }
      if (random.nextInt(3) == 0) {
        spec.maxWait(Duration.ofMillis(5_000 + random.nextInt(40_000)));
      }
      int q = random.nextInt(QUEUES.size() + 1);
      NewContact built =
          q == QUEUES.size() ? spec.build() : throughQueue(spec.build(), QUEUES.get(q).name());
      same(steady, durable, r -> r.createContact(built));
      return "create contact " + built;
    } else if (dice < 66) {
      boolean accept = random.nextInt(4) != 0;
      same(steady, durable, r -> accept ? r.accept(reservation) : r.reject(reservation));
      return (accept ? "accept " : "reject ") + reservation;
    } else if (dice < 80) {
      int kind = random.nextInt(3);
      Duration wrap = Duration.ofMillis(kind == 1 ? 0 : 1_000 + random.nextInt(5_000));
      same(steady, durable, r -> kind == 0 ? r.complete(contact) : r.complete(contact, wrap));
      return "complete " + contact + " kind " + kind;
    } else if (dice < 82) {
      same(steady, durable, r -> r.abandon(contact));
      return "abandon " + contact;
    } else if (dice < 84) {
      // changes while waiting: priority (out of range now and then), requirements, cancel
      int kind = random.nextInt(4);
      int priority = random.nextInt(10) == 0 ? 1001 : random.nextInt(5) - 2;
      String req = REQUIREMENTS[random.nextInt(REQUIREMENTS.length)];
      ContactUpdate update =
          kind == 0
              ? ContactUpdate.none().withPriority(priority)
              : ContactUpdate.none().withRequirements(req == null ? "" : req);
      same(
          steady,
          durable,
          r -> kind == 3 ? r.cancel(contact, "supervisor") : r.updateContact(contact, update));
      return (kind == 3 ? "cancel " : "update ") + contact + " " + update;
    } else if (dice < 85) {
      boolean toAgent = random.nextBoolean();
      String req = REQUIREMENTS[random.nextInt(REQUIREMENTS.length)];
      String queue = QUEUES.get(random.nextInt(QUEUES.size())).name();
      same(
          steady,
          durable,
          r ->
              toAgent
                  ? r.transferToAgent(contact, agent)
                  : r.transfer(contact, queue, Optional.ofNullable(req)));
      return "transfer " + contact + (toAgent ? " to " + agent : " to " + queue + " " + req);
    } else {
      long ms = random.nextInt(4) == 0 ? random.nextInt(20_000) : random.nextInt(3_000);
      clock.advanceMillis(ms);
      return "advance " + ms;
    }
  }

  /** The call gives the same answer on both routers, or fails with the same code on both. */
  private static void same(Router steady, Router durable, Function<Router, Object> call) {
    assertEquals(outcome(steady, call), outcome(durable, call));
  }

  private static Object outcome(Router router, Function<Router, Object> call) {
    try {
      return call.apply(router);
    } catch (RoutingException e) {
      return e.code();
    }
  }

  private static void compareStates(Router steady, Router durable, int contacts, String context) {
    assertEquals(steady.agents(), durable.agents(), context);
    assertEquals(steady.waiting(), durable.waiting(), context);
    for (Agent a : steady.agents()) {
      assertEquals(
          steady.pendingReservations(a.id()), durable.pendingReservations(a.id()), context);
    }
    for (int i = 1; i <= contacts; i++) {
      String id = "contact-" + i;
      assertEquals(
          outcome(steady, r -> r.contact(id)), outcome(durable, r -> r.contact(id)), context);
    }
    for (int i = 1; i <= 2 * contacts; i++) {
      String id = "res-" + i;
      assertEquals(
          outcome(steady, r -> r.reservation(id)),
          outcome(durable, r -> r.reservation(id)),
          context);
    }
  }

  /** Each event as its kind and every component but the id. */
  private static List<List<Object>> withoutIds(List<RoutingEvent> events) {
    List<List<Object>> all = new ArrayList<>();
    for (RoutingEvent e : events) {
      List<Object> parts = new ArrayList<>();
      parts.add(e.type());
      for (RecordComponent c : e.getClass().getRecordComponents()) {
        if (!c.getName().equals("id")) {
          try {
            parts.add(c.getAccessor().invoke(e));
          } catch (ReflectiveOperationException x) {
            throw new IllegalStateException(x);
          }
        }
      }
      all.add(parts);
    }
    return all;
  }

  private static Map<String, Object> attributes(Random random) {
    List<String> skills = new ArrayList<>();
    for (String s : new String[] {"a", "b", "c"}) {
      if (random.nextBoolean()) {
        skills.add(s);
      }
    }
    return Map.of(
        "skills", skills, "lang", random.nextBoolean() ? "es" : "en", "level", random.nextInt(5));
  }

  private static Presence presence(Random random) {
    int p = random.nextInt(10);
    return p < 6 ? Presence.available() : p < 8 ? Presence.away("break") : Presence.offline();
  }

  // ---- scenarios -------------------------------------------------------------------------

  /** The settings of the scenario tests: 30 s to answer an offer, away after one miss. */
  private Supplier<Router.Builder> scenarioSettings() {
    return () -> Router.builder().clock(clock).offerTimeout(Duration.ofSeconds(30)).missLimit(1);
  }

  @Test
  void changesWhileWaiting_cancelsAndTransfers_surviveARestart() {
    Running running = start(scenarioSettings());
    Router router = running.router();
    router.createAgent(
        NewAgent.builder("ann")
            .attribute("skills", List.of("billing"))
            .capacity("voice", 1)
            .presence(Presence.available())
            .build());
    router.createContact(NewContact.builder("t1", "voice").build());
    router.accept(router.contact("t1").reservationId().orElseThrow());
    for (String id : List.of("c1", "c2", "c3")) {
      clock.advance(Duration.ofSeconds(1));
      router.createContact(NewContact.builder(id, "voice").requirements("lang = 'fr'").build());
    }
    router.updateContact("c3", ContactUpdate.none().withPriority(4));
    router.updateContact("c2", ContactUpdate.none().withAttributes(Map.of("vip", true)));
    router.cancel("c1", "called back");
    router.transfer("t1", "general", Optional.of("lang = 'fr'"));
    List<Contact> waiting = router.waiting();

    router = running.restart();

    assertEquals(waiting, router.waiting());
    assertEquals(List.of("c3", "t1", "c2"), router.waiting().stream().map(Contact::id).toList());
    assertEquals(ContactState.CANCELLED, router.contact("c1").state());
    assertEquals(Map.of("vip", true), router.contact("c2").attributes());
    assertEquals(Optional.of("general"), router.contact("t1").queue());
    assertTrue(router.contact("t1").answeredAt().isPresent(), "the first answer is kept");
    assertEquals(Map.of(), router.agent("ann").load(), "ann's slot was freed by the transfer");
  }

  /**
   * The contact routed through task queue {@code queue}, as a workspace routes it (to a queue that
   * adds no requirements of its own).
   */
  private static NewContact throughQueue(NewContact c, String queue) {
    return new NewContact(
        c.id(),
        c.channel(),
        c.attributes(),
        c.requirements(),
        c.priority(),
        c.escalations(),
        c.maxWait(),
        Optional.of(queue),
        c.workflow(),
        c.skipIfNoneAvailable());
  }

  @Test
  void taskQueueRules_applyToRecoveredContacts_andHeldContactsStillCountTowardsTheCap() {
    List<TaskQueue> queues =
        List.of(
            new TaskQueue(
                "chat",
                Optional.empty(),
                TaskQueue.Order.LIFO,
                Optional.empty(),
                Optional.of(2),
                Optional.empty()));
    Running running = start(scenarioSettings());
    Router router = running.router();
    router.taskQueues(queues);
    router.createAgent(
        NewAgent.builder("ann").capacity("chat", 5).presence(Presence.available()).build());
    for (String id : List.of("q1", "q2", "q3", "q4")) {
      clock.advance(Duration.ofSeconds(1));
      router.createContact(throughQueue(NewContact.builder(id, "chat").build(), "chat"));
    }
    router.accept(router.contact("q1").reservationId().orElseThrow());
    assertEquals(List.of("q4", "q3"), router.waiting().stream().map(Contact::id).toList());

    router = running.restart();
    router.taskQueues(queues); // as the workspace does when it opens its router

    assertEquals(List.of("q4", "q3"), router.waiting().stream().map(Contact::id).toList());
    router.updateCapacity("ann", Map.of("chat", 6));
    assertEquals(2, router.waiting().size(), "ann still holds 2 of the queue's contacts");
    router.complete("q1", Duration.ZERO);
    assertEquals(ContactState.OFFERED, router.contact("q4").state(), "newest first");
    assertEquals(1, router.taskQueueStats("chat").offered(), "counted since the restart");
  }

  @Test
  void everyStateSurvivesARestart_andTimersFireAfterIt() {
    Running running = start(scenarioSettings());
    Router router = running.router();
    Map<String, Object> attrs =
        Map.of(
            "skills",
            List.of("billing", "sales"),
            "lang",
            "es",
            "level",
            4,
            "big",
            12345678901L,
            "score",
            0.75,
            "exact",
            new BigDecimal("1.50"),
            "senior",
            true);
    router.createAgent(
        NewAgent.builder("ana")
            .attributes(attrs)
            .capacity("voice", 1)
            .capacity("chat", 2)
            .presence(Presence.available())
            .build());
    router.createAgent(
        NewAgent.builder("bob")
            .attribute("skills", List.of("sales"))
            .capacity("voice", 1)
            .presence(Presence.away("lunch"))
            .build());
    // ana: c6 completed, c1 assigned (voice), c2 in wrap-up (chat), c3 offered (chat); c4 and
    // c7 (with an escalation step) queued; c5 abandoned; c8 timed out.
    router.createContact(NewContact.builder("c6", "voice").build());
    router.accept(router.contact("c6").reservationId().orElseThrow());
    router.complete("c6");
    router.createContact(NewContact.builder("c1", "voice").requirements("lang = 'es'").build());
    router.accept(router.contact("c1").reservationId().orElseThrow());
    router.createContact(NewContact.builder("c2", "chat").build());
    router.accept(router.contact("c2").reservationId().orElseThrow());
    router.createContact(NewContact.builder("c3", "chat").build());
    router.complete("c2", Duration.ofSeconds(60));
    router.createContact(
        NewContact.builder("c4", "voice").requirements("skills HAS 'sales'").priority(2).build());
    router.createContact(NewContact.builder("c5", "voice").build());
    router.abandon("c5");
    router.createContact(
        NewContact.builder("c7", "voice")
            .requirements("lang = 'fr'")
            .escalate(Duration.ofSeconds(45), "skills HAS 'sales'")
            .build());
    router.createContact(
        NewContact.builder("c8", "voice")
            .requirements("lang = 'de'")
            .maxWait(Duration.ofSeconds(5))
            .build());
    clock.advanceMillis(5_000);
    assertEquals(ContactState.TIMED_OUT, router.contact("c8").state());
    String offer = router.contact("c3").reservationId().orElseThrow();

    List<Agent> agentsBefore = router.agents();
    List<Contact> contactsBefore = contacts(router);
    List<Contact> waitingBefore = router.waiting();
    Reservation pendingBefore = router.reservation(offer);
    long lastIdBefore = router.events(0, 10).lastId();

    router = running.restart();

    assertEquals(agentsBefore, router.agents());
    assertEquals(contactsBefore, contacts(router));
    assertEquals(waitingBefore, router.waiting());
    assertEquals(pendingBefore, router.reservation(offer));
    assertEquals(attrs, router.agent("ana").attributes());
    assertEquals(List.of(pendingBefore), router.pendingReservations("ana"));

    // A reconnecting client is told it missed events, and new ids are above every earlier one.
    EventPage resumed = router.events(lastIdBefore, 100);
    assertTrue(resumed.missed());
    router.presence("bob", Presence.available());
    List<RoutingEvent> after = router.events(lastIdBefore, 100).events();
    assertTrue(!after.isEmpty() && after.get(0).id() > lastIdBefore, after.toString());
    // bob took the priority-2 sales contact c4 at once.
    assertEquals(ContactState.OFFERED, router.contact("c4").state());
    assertEquals("bob", router.contact("c4").agentId().orElseThrow());

    // The offer to ana (made at 0 s, 30 s timeout) times out after the restart: c3 back in line,
    // and ana (miss limit 1) set away.
    clock.advanceMillis(25_000);
    assertEquals(ReservationState.TIMED_OUT, router.reservation(offer).state());
    assertEquals(Presence.Kind.AWAY, router.agent("ana").presence().kind());
    assertEquals(ContactState.QUEUED, router.contact("c3").state());
    Router expiredOn = router;
    RoutingException expired = assertThrows(RoutingException.class, () -> expiredOn.accept(offer));
    assertEquals(RoutingErrorCode.RESERVATION_EXPIRED, expired.code());

    router = running.restart();
    // 45 s: c7 escalates to sales; at 60 s c2's wrap-up ends.
    clock.advanceMillis(15_000);
    assertEquals(1, router.contact("c7").escalationStep());
    assertEquals(ContactState.WRAP_UP, router.contact("c2").state());
    router = running.restart();
    clock.advanceMillis(15_000);
    assertEquals(ContactState.COMPLETED, router.contact("c2").state());
    router.complete("c1");
    assertEquals(ContactState.COMPLETED, router.contact("c1").state());
    assertEquals(0, router.agent("ana").load().size());
  }

  private static List<Contact> contacts(Router router) {
    return List.of("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8").stream()
        .map(router::contact)
        .toList();
  }

  /**
   * A router closed in good order leaves the next one (on another server, for a shared store) to
   * continue the reservation ids where it stopped, without a gap.
   */
  @Test
  void closedInGoodOrder_nextRouterContinuesTheReservationIdsWithoutAGap() {
    Running running =
        start(
            () ->
                Router.builder()
                    .clock(clock)
                    .offerTimeout(Duration.ofSeconds(10))
                    .wrapUp("chat", Duration.ofSeconds(5))
                    .contactHistory(3));
    Router a = running.router();
    a.createAgent(
        NewAgent.builder("ana").capacity("voice", 1).presence(Presence.available()).build());
    a.createContact(NewContact.builder("c1", "voice").requirements("level IS NULL").build());

    Router b = running.restart();
    b.createAgent(
        NewAgent.builder("bo").capacity("voice", 1).presence(Presence.available()).build());
    assertEquals("res-2", b.reject("res-1").reservationId().get()); // to bo: c1 rests from ana
  }

  // ---- lasting statistics ----------------------------------------------------------------

  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

  /** A router on a fresh store whose clock starts at {@link #T0}, keeping {@code retention}. */
  private Running startAtT0(ManualClock at, Duration retention) {
    return start(at, () -> Router.builder().clock(at).statsRetention(retention));
  }

  private static StatisticsReport threeDays(Router router) {
    return router.statistics(StatisticsQuery.between(T0, T0.plus(Duration.ofDays(3))));
  }

  @Test
  void statistics_restartKeepsIntervalsCumulativeAndActivityTime() {
    ManualClock at = ManualClock.at(T0);
    Running running = startAtT0(at, Duration.ofDays(35));
    Router router = running.router();
    router.createAgent(
        NewAgent.builder("a1").capacity("voice", 1).presence(Presence.available()).build());
    router.createContact(NewContact.builder("c1", "voice").build());
    at.advanceSeconds(10);
    router.accept(router.pendingReservations("a1").get(0).id());
    at.advance(Duration.ofMinutes(20));
    router.complete("c1"); // in the second interval, the open one
    router.presence("a1", Presence.away("break"));
    StatisticsReport before = threeDays(router);

    router = running.restart();

    StatisticsReport after = threeDays(router);
    assertEquals(before, after);
    assertEquals(2, after.intervals().size());
    IntervalFigures open = after.intervals().get(1).figures();
    assertEquals(1, open.handled());
    assertEquals(Duration.ofMinutes(20).toMillis(), open.handleMillis());
    assertEquals(1, after.cumulative().answered());
    assertEquals(
        Duration.ofMinutes(20).plusSeconds(10).toMillis(),
        after.cumulative().activityMillis().get("available"));
  }

  @Test
  void statistics_retentionDeletesOldIntervalsFromTheStore() {
    ManualClock at = ManualClock.at(T0);
    Running running = startAtT0(at, Duration.ofDays(1));
    Router router = running.router();
    router.createContact(NewContact.builder("c1", "voice").build());
    at.advance(Duration.ofDays(2));
    router.createContact(NewContact.builder("c2", "voice").build());

    router = running.restart();

    long from = T0.toEpochMilli();
    long to = T0.plus(Duration.ofDays(3)).toEpochMilli();
    assertEquals(
        0,
        running.journal().intervals(from, to, Scope.WORKSPACE, "").stream()
            .filter(i -> i.start() == from)
            .count(),
        "the first interval is deleted from the store");
    StatisticsReport r = threeDays(router);
    assertEquals(1, r.totals().arrived());
    assertEquals(2, r.cumulative().arrived());
  }

  @Test
  void statistics_afterRestart_pastIntervalsComeFromTheStore_notFromMemory() {
    ManualClock at = ManualClock.at(T0);
    Running running = startAtT0(at, Duration.ofDays(7));
    Router router = running.router();
    router.createAgent(
        NewAgent.builder("a1").capacity("voice", 1).presence(Presence.available()).build());
    for (int q = 0; q < 6; q++) {
      router.createContact(NewContact.builder("c" + q, "voice").build());
      router.abandon("c" + q);
      at.advance(Duration.ofMinutes(15));
    }
    at.advance(Duration.ofMinutes(1));
    router.stats(); // in the seventh interval: the sixth closes
    StatisticsReport before = threeDays(router);
    assertEquals(7, before.intervals().size(), "six closed, one open with activity time");

    router = running.restart();

    // the store loads the open interval and the cumulative figures only
    long latest = T0.plus(Duration.ofMinutes(90)).toEpochMilli();
    for (StoredInterval i : running.journal().load().intervals()) {
      assertTrue(i.start() == StoredInterval.TOTAL || i.start() == latest, "loaded " + i.start());
    }
    StatisticsReport after = threeDays(router);
    assertEquals(before, after);
    assertEquals(
        6,
        running.journal().intervals(T0.toEpochMilli(), latest, Scope.WORKSPACE, "").size(),
        "the closed workspace intervals are read by range");
    StatisticsReport agent =
        router.statistics(StatisticsQuery.between(T0, T0.plus(Duration.ofDays(1))).forAgent("a1"));
    assertEquals(7, agent.intervals().size());
    assertEquals(
        Duration.ofMinutes(91).toMillis(), agent.totals().activityMillis().get("available"));
  }
}
