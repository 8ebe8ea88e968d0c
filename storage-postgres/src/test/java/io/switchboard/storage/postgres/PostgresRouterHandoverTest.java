package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.Agent;
import io.switchboard.routing.EventPage;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Router;
import io.switchboard.routing.RoutingEvent;
import io.switchboard.routing.RoutingException;
import io.switchboard.routing.Strategy;
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
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The idea of core's {@code RouterRestartTest} on the PostgreSQL store, with every restart a
 * handover between two servers: seeded random calls (bad ones included) and clock advances run
 * through a router that never restarts and through a router on a {@link PostgresRouterJournal}
 * whose leadership passes to the other server at random points (router and journal closed, the
 * lease taken at a new epoch, a new journal loaded). Every call must give the same answer or the
 * same error, every step the same events (ids aside), and the whole visible state must agree; event
 * ids after a handover are above every id before it. Rerun a failure with {@code -Drouting.seed=N}.
 */
class PostgresRouterHandoverTest {

  private static final int STEPS = 1_200;
  private static final String[] REQUIREMENTS = {
    null, "skills HAS 'a'", "skills HAS ALL ('a', 'b')", "lang = 'es'", "level >= 3"
  };

  static Stream<Arguments> configurations() {
    long base = Long.getLong("routing.seed", System.nanoTime());
    return Stream.of(
        Arguments.of(Strategy.longestIdle(), false, 3, base),
        Arguments.of(Strategy.highest("level"), true, 0, base + 1));
  }

  @ParameterizedTest(name = "{0} autoAccept={1} missLimit={2} seed={3}")
  @MethodSource("configurations")
  void handoversAtRandomPoints_sameAsRouterThatNeverMoved(
      Strategy strategy, boolean autoAccept, int missLimit, long seed) {
    try {
      run(strategy, autoAccept, missLimit, seed);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("handover run failed; rerun with -Drouting.seed=" + seed, e);
    }
  }

  private void run(Strategy strategy, boolean autoAccept, int missLimit, long seed) {
    DataSource ds = RouterTables.fresh();
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
    Router steady = builder.get().build();
    PostgresRouterJournal journal =
        PostgresRouterJournal.open(ds, RouterTables.takeLease(ds, "server-0"));
    Router durable = builder.get().journal(journal).build();
    long steadyLast = 0;
    long durableLast = 0;
    long highestBeforeHandover = 0;
    int handovers = 0;
    int agents = 0;
    int contacts = 0;
    for (int step = 0; step < STEPS; step++) {
      if (random.nextInt(100) < 3) {
        durable.close();
        journal.close();
        handovers++;
        long epoch = RouterTables.takeLease(ds, "server-" + (handovers % 2));
        journal = PostgresRouterJournal.open(ds, epoch);
        durable = builder.get().journal(journal).build();
        highestBeforeHandover = durableLast;
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
        assertTrue(e.id() > highestBeforeHandover, context + ": event id repeated: " + e);
      }
      steadyLast = a.lastId();
      durableLast = b.lastId();
      if (step % 200 == 0 || step == STEPS - 1) {
        compareStates(steady, durable, contacts, context);
      }
    }
    durable.close();
    journal.close();
    steady.close();
    assertTrue(handovers > 10, "handovers: " + handovers);
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
      NewContact built = contact(random, contacts + 1);
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
    } else if (dice < 85) {
      same(steady, durable, r -> r.abandon(contact));
      return "abandon " + contact;
    } else {
      long ms = random.nextInt(4) == 0 ? random.nextInt(20_000) : random.nextInt(3_000);
      clock.advanceMillis(ms);
      return "advance " + ms;
    }
  }

  private static NewContact contact(Random random, int n) {
    String req = REQUIREMENTS[random.nextInt(REQUIREMENTS.length)];
    NewContact.Builder spec =
        NewContact.builder("contact-" + n, random.nextInt(3) == 0 ? "voice" : "chat")
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
    return spec.build();
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
}
