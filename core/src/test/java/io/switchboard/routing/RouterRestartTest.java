package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.spi.MemoryRouterJournal;
import io.switchboard.time.ManualClock;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random sequences of calls (including bad ones) and clock advances run through a router
 * that never restarts and through a router on a {@link MemoryRouterJournal} that is closed and
 * rebuilt from its journal at random points. Every call must give the same answer (or the same
 * error), every step the same events (ids aside), and the whole visible state must agree: agents,
 * contacts live and finished, reservations, the waiting line. Event ids after a restart are above
 * every id before it. Contacts are routed through task queues with rules of their own (LIFO, a cap
 * per agent, a strategy), which both routers get as a workspace gives them: at build, and again
 * after each restart.
 *
 * <p>In the crash variant the restart loses the changes written without waiting (timers that fired
 * since the last call that changed something): the same timers fire again at the first call after
 * the restart, at the same clock time, and the state must come out the same.
 */
class RouterRestartTest {

  private static final int STEPS = 3_000;

  /** Task queues with rules of their own; "q" has none. */
  private static final List<TaskQueue> QUEUES =
      List.of(
          new TaskQueue(
              "lifo",
              java.util.Optional.empty(),
              TaskQueue.Order.LIFO,
              java.util.Optional.of(Strategy.leastOccupied()),
              java.util.Optional.of(1),
              java.util.Optional.of(Duration.ofSeconds(5))),
          new TaskQueue(
              "best",
              java.util.Optional.empty(),
              TaskQueue.Order.FIFO,
              java.util.Optional.of(Strategy.highest("level")),
              java.util.Optional.of(2),
              java.util.Optional.empty()),
          TaskQueue.named("q"));

  private static final String[] REQUIREMENTS = {
    null, "skills HAS 'a'", "skills HAS ALL ('a', 'b')", "lang = 'es'", "level >= 3"
  };

  static Stream<Arguments> configurations() {
    long base = Long.getLong("routing.seed", System.nanoTime());
    return Stream.of(
        Arguments.of(Strategy.longestIdle(), false, 3, false, base),
        Arguments.of(Strategy.leastOccupied(), false, 1, true, base + 1),
        Arguments.of(Strategy.highest("level"), true, 0, true, base + 2));
  }

  @ParameterizedTest(name = "{0} autoAccept={1} missLimit={2} crash={3} seed={4}")
  @MethodSource("configurations")
  void restartsAtRandomPoints_sameAsRouterThatNeverRestarted(
      Strategy strategy, boolean autoAccept, int missLimit, boolean crash, long seed) {
    try {
      run(strategy, autoAccept, missLimit, crash, seed);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("restart run failed; rerun with -Drouting.seed=" + seed, e);
    }
  }

  private void run(Strategy strategy, boolean autoAccept, int missLimit, boolean crash, long seed) {
    Random random = new Random(seed);
    ManualClock clock = ManualClock.create();
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
    CrashingJournal journal = new CrashingJournal(clock);
    Router steady = builder.get().build();
    Router durable = builder.get().journal(journal).build();
    steady.taskQueues(QUEUES);
    durable.taskQueues(QUEUES);
    long steadyLast = 0;
    long durableLast = 0;
    long highestBeforeRestart = 0;
    int restarts = 0;
    int agents = 0;
    int contacts = 0;
    for (int step = 0; step < STEPS; step++) {
      if (random.nextInt(100) < 3) {
        durable.close();
        if (crash) {
          journal.crash();
        } else {
          journal.close();
        }
        durable = builder.get().journal(journal).build();
        durable.taskQueues(QUEUES); // as the workspace does when it opens its router
        restarts++;
        highestBeforeRestart = durableLast;
        if (crash) {
          // the first call fires again what the crash lost; the states must agree, and the
          // event streams continue from here
          compareStates(steady, durable, agents, contacts, "after a crash at step " + step);
          steadyLast = steady.events(steadyLast, 1).lastId();
          durableLast = durable.events(durableLast, 1).lastId();
        }
      }
      String what = call(random, steady, durable, clock, agents, contacts);
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
      if (step % 250 == 0 || step == STEPS - 1) {
        compareStates(steady, durable, agents, contacts, context);
      }
    }
    assertTrue(restarts > 30, "restarts: " + restarts);
    assertTrue(!crash || journal.lost > 0, "the crashes lost nothing");
  }

  /** One random call on both routers; returns what it was. */
  private static String call(
      Random random, Router steady, Router durable, ManualClock clock, int agents, int contacts) {
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
            return null;
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
          q == QUEUES.size() ? spec.build() : spec.build().through(QUEUES.get(q).name(), r -> r);
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
                  : r.transfer(contact, queue, java.util.Optional.ofNullable(req)));
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

  private static void compareStates(
      Router steady, Router durable, int agents, int contacts, String context) {
    assertEquals(steady.agents(), durable.agents(), context);
    assertEquals(steady.waiting(), durable.waiting(), context);
    for (Agent a : steady.agents()) {
      assertEquals(
          steady.pendingReservations(a.id()), durable.pendingReservations(a.id()), context);
    }
    for (int i = 1; i <= contacts; i++) {
      String id = "contact-" + i;
      assertEquals(outcome(steady, r -> r.contact(id)), outcome(durable, r -> r.contact(id)));
    }
    for (int i = 1; i <= 2 * contacts; i++) {
      String id = "res-" + i;
      assertEquals(
          outcome(steady, r -> r.reservation(id)), outcome(durable, r -> r.reservation(id)));
    }
  }

  /** Each event as its kind and every component but the id. */
  static List<List<Object>> withoutIds(List<RoutingEvent> events) {
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

  /**
   * A {@link MemoryRouterJournal} behind a buffer: appends that nobody waits for stay in the buffer
   * until the next durable append, as in a store's write queue, and a crash loses those made at the
   * current clock time (a real store syncs them within a short interval; those made earlier count
   * as synced). Timers fired again after the crash then fire at the time they first did.
   */
  private static final class CrashingJournal implements io.switchboard.routing.spi.RouterJournal {
    private final MemoryRouterJournal stored = new MemoryRouterJournal();
    private final List<List<io.switchboard.routing.spi.RouterEntry>> buffered = new ArrayList<>();
    private final List<Long> bufferedAt = new ArrayList<>();
    private final ManualClock clock;
    private int lost;

    CrashingJournal(ManualClock clock) {
      this.clock = clock;
    }

    @Override
    public io.switchboard.routing.spi.RouterSnapshot load() {
      return stored.load();
    }

    @Override
    public synchronized void append(List<io.switchboard.routing.spi.RouterEntry> entries) {
      buffered.add(entries);
      bufferedAt.add(clock.millis());
    }

    @Override
    public synchronized Ticket appendDurable(List<io.switchboard.routing.spi.RouterEntry> entries) {
      close();
      stored.append(entries);
      return DONE;
    }

    synchronized void crash() {
      for (int i = 0; i < buffered.size(); i++) {
        if (bufferedAt.get(i) < clock.millis()) {
          stored.append(buffered.get(i));
        } else {
          lost++;
        }
      }
      buffered.clear();
      bufferedAt.clear();
    }

    @Override
    public synchronized void close() {
      buffered.forEach(stored::append);
      buffered.clear();
      bufferedAt.clear();
    }
  }
}
