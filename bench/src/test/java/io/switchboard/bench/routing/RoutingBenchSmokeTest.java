package io.switchboard.bench.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.ReportFiles;
import io.switchboard.bench.report.RunInfo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the routing benchmark on a tiny contact center so it cannot rot, and checks what its figures
 * rest on: every decision is valid, and Switchboard and the linear scan decide the same.
 */
class RoutingBenchSmokeTest {

  private static final Simulation.Options TINY = new Simulation.Options(60, 400, 100, 400, 7, 100);

  @TempDir Path out;

  @Test
  @Timeout(120)
  void everyTargetRuns_andWritesTheTableCsvAndPng_redisSkippedWithoutAServer() throws Exception {
    boolean redis = RedisServer.executable().isPresent();
    List<String> targets =
        redis ? List.of("switchboard", "linear", "redis") : List.of("switchboard", "linear");
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(printed, true, StandardCharsets.UTF_8);
    RoutingBench.Options o =
        new RoutingBench.Options(60, 400, 400, 100, 50, 10, targets, "noop", 7, out, print);

    if (!redis) {
      System.err.println(
          "RoutingBenchSmokeTest: no redis-server on the PATH, the redis-seed004 target is left"
              + " out (apt-get install -y redis-server to run it)");
    }
    RoutingBench.Run run = RoutingBench.run(o, Machine.LOCAL);
    RoutingBench.report(o, run).write(out, RunInfo.capture("smoke").ended(), print);

    assertEquals(targets.size(), run.results().size());
    for (Simulation.Result r : run.results()) {
      int cycles = r.target().equals("redis-seed004") ? 50 : 400;
      assertEquals(cycles, r.cycles(), r.target());
      // every agent is busy after the load, so each completion frees one agent that takes a contact
      assertEquals(cycles, r.decisions(), r.target());
      assertEquals(400, r.waitingAfterLoad(), r.target());
      assertEquals(400, r.waitingAtEnd(), r.target());
      assertTrue(r.decisionsChecked() >= 60 + cycles, r.target() + " " + r.decisionsChecked());
      assertTrue(r.decisionLatency().getValueAtPercentile(99) > 0, r.target());
      assertTrue(r.decisionsPerSecond() > 0, r.target());
    }
    String header =
        "target,cycles,decisions,decisions/s,events/s,p50 µs,p90 µs,p99 µs,p99.9 µs,max µs,"
            + "event p99 µs,checked,load s,load average at end,× redis-seed004";
    List<String> rows = ReportFiles.check(out, "routing", header, targets.size());
    for (String row : rows) {
      // the load average comes from this machine's /proc, which may not show it: "not measured"
      String load = ReportFiles.cells(row)[13];
      assertTrue(
          load.matches("[0-9.]+( [0-9.]+ [0-9.]+)?")
              || load.isEmpty()
                  && Files.readString(out.resolve("routing.csv"))
                      .contains("# note: not measured: load average at end: "),
          row);
    }
    assertTrue(rows.get(0).startsWith("switchboard,400,400,"), rows.get(0));
    assertTrue(rows.get(1).startsWith("linear-scan,400,400,"), rows.get(1));
    String csv = Files.readString(out.resolve("routing.csv"));
    assertTrue(csv.contains("# load_average_end: "), csv);
    assertTrue(csv.contains("# note: switchboard p99 decision latency"), csv);
    assertTrue(csv.contains("journal: every change batched"), csv);
    assertEquals(redis, csv.contains("switchboard / redis-seed004 decisions/s"), csv);
    assertTrue(printed.toString(StandardCharsets.UTF_8).contains("wrote "), printed.toString());
  }

  @Test
  @Timeout(60)
  void switchboardAndTheLinearScanMakeTheSameDecisions() {
    Simulation.Result switchboard =
        Simulation.run(
            "switchboard", TINY, true, (max, d) -> new SwitchboardRouting(max, d, "noop"));
    Simulation.Result stored =
        Simulation.run(
            "switchboard", TINY, true, (max, d) -> new SwitchboardRouting(max, d, "memory"));
    Simulation.Result unjournaled =
        Simulation.run(
            "switchboard", TINY, true, (max, d) -> new SwitchboardRouting(max, d, "none"));
    Simulation.Result linear = Simulation.run("linear-scan", TINY, true, LinearScanRouting::new);

    assertEquals(60 + 100 + 400, switchboard.log().size());
    for (Simulation.Result other : List.of(stored, unjournaled, linear)) {
      assertEquals(switchboard.log().size(), other.log().size());
      for (int i = 0; i < switchboard.log().size(); i++) {
        long[] s = switchboard.log().get(i);
        long[] l = other.log().get(i);
        assertEquals(
            s[0] + "->" + s[1], l[0] + "->" + l[1], "decision " + i + " (contact->agent) differs");
      }
    }
  }

  @Test
  @Timeout(120)
  void redisSeed004RunsWhenARedisServerIsOnThePath() throws Exception {
    assumeTrue(RedisServer.executable().isPresent(), "no redis-server on the PATH");
    try (RedisServer server = RedisServer.start()) {
      Simulation.Result r =
          Simulation.run(
              "redis-seed004",
              new Simulation.Options(60, 400, 10, 50, 7, 100),
              false,
              (max, d) -> new RedisSeed004Routing("127.0.0.1", server.port(), max, d));
      assertEquals(50, r.decisions());
      assertEquals(400, r.waitingAtEnd());
      assertTrue(r.decisionsChecked() >= 60 + 50, "checked " + r.decisionsChecked());
      assertTrue(r.notes().contains("Redis commands"), r.notes());
    }
  }

  @Test
  void theGuardStopsARunOnADecisionForAnAgentWithoutTheSkills() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> Simulation.run("wrong", TINY, false, (max, d) -> new AlwaysAgentZero(d)));
    assertTrue(e.getMessage().startsWith("invalid decision: agent 0"), e.getMessage());
  }

  @Test
  void badOptionsAreRefusedNamingTheOption() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RoutingBench.Options.parse(new String[] {"--targets", "switchboard,kafka"}));
    assertEquals("unknown target 'kafka'; allowed: switchboard, linear, redis", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RoutingBench.Options.parse(new String[] {"--agents", "0"}));
    assertEquals("--agents must be positive, got 0", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RoutingBench.Options.parse(new String[] {"--journal", "disk"}));
    assertEquals("--journal must be one of [noop, memory, none], got 'disk'", e.getMessage());
  }

  /** Offers every contact to agent 0 without looking: the guard must catch it. */
  private record AlwaysAgentZero(RoutingTarget.Decisions decisions) implements RoutingTarget {
    @Override
    public void addAgent(int agent, long skills) {}

    @Override
    public void arrive(int contact, long requirement) {
      decisions.decided(contact, 0);
    }

    @Override
    public void complete(int contact) {}

    @Override
    public void accept(int contact) {}

    @Override
    public void advanceMillis(long millis) {}

    @Override
    public void close() {}
  }
}
