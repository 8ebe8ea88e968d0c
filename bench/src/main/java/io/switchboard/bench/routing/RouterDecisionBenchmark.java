package io.switchboard.bench.routing;

import io.switchboard.routing.Contact;
import io.switchboard.routing.NewAgent;
import io.switchboard.routing.NewContact;
import io.switchboard.routing.Presence;
import io.switchboard.routing.Reservation;
import io.switchboard.routing.Router;
import io.switchboard.time.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One routing decision in a loaded contact center, in process, on a virtual clock: 10,000 agents
 * with 3 to 8 of 40 skills (popular skills more common), 100,000 contacts waiting with requirements
 * of 1 to 3 skills. The measured call is {@code complete}: the agent frees up and the router picks
 * the best waiting contact among every requirement group the agent matches and offers it. Before
 * each call (not measured) the agent accepts its offer and a new contact arrives, so the line stays
 * at 100,000. Sample-time mode gives the latency percentiles (p50, p99).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar RouterDecisionBenchmark}
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class RouterDecisionBenchmark {

  static final int AGENTS = 10_000;
  static final int SKILLS = 40;
  static final int WAITING = 100_000;

  /** The loaded router. */
  @State(Scope.Benchmark)
  public static class Center {
    Router router;
    final Random random = new Random(42);
    int nextAgent;
    int nextContact;
    String assigned;

    @Setup(Level.Trial)
    public void setUp() {
      router = Router.builder().clock(ManualClock.create()).missLimit(0).build();
      for (int i = 0; i < AGENTS; i++) {
        router.createAgent(
            NewAgent.builder("agent-" + i)
                .attribute("skills", skills(3 + random.nextInt(6)))
                .capacity("voice", 1)
                .presence(Presence.offline())
                .build());
      }
      for (int i = 0; i < WAITING; i++) {
        arrive();
      }
      for (int i = 0; i < AGENTS; i++) {
        router.presence("agent-" + i, Presence.available());
      }
    }

    /** {@code n} distinct skills, the low-numbered ones more popular. */
    List<String> skills(int n) {
      TreeSet<String> chosen = new TreeSet<>();
      while (chosen.size() < n) {
        double r = random.nextDouble();
        chosen.add("s" + (int) (SKILLS * r * r));
      }
      return new ArrayList<>(chosen);
    }

    void arrive() {
      List<String> wanted = skills(1 + random.nextInt(3));
      StringBuilder selector = new StringBuilder("skills HAS ALL (");
      for (int i = 0; i < wanted.size(); i++) {
        selector.append(i == 0 ? "'" : ", '").append(wanted.get(i)).append('\'');
      }
      selector.append(')');
      router.createContact(
          NewContact.builder("c-" + nextContact++, "voice")
              .requirements(selector.toString())
              .build());
    }

    /** Not measured: an agent with an offer accepts it, and a contact arrives. */
    @Setup(Level.Invocation)
    public void nextDecision() {
      String found = null;
      for (int tries = 0; found == null; tries++) {
        if (tries > AGENTS) {
          throw new IllegalStateException("no agent has an offer");
        }
        String agent = "agent-" + (nextAgent++ % AGENTS);
        List<Reservation> offers = router.pendingReservations(agent);
        if (!offers.isEmpty()) {
          found = router.accept(offers.get(0).id()).id();
        }
      }
      assigned = found;
      arrive();
    }
  }

  /** The agent completes its contact; the router makes the next offer to it, if any matches. */
  @Benchmark
  public Contact decision(Center center) {
    return center.router.complete(center.assigned);
  }
}
