package io.switchboard.bench.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * Runs the routing-at-scale workload ({@code --workload workspace}) on a tiny center so it cannot
 * rot: task queues, 3-target workflows, every decision checked against the agent's skills at the
 * contact's workflow target, the table, CSV and PNG; seed 004 only when a {@code redis-server} is
 * on the PATH (skipped with a message otherwise). No timing is asserted.
 */
class ScaleBenchSmokeTest {

  private static final int AGENTS = 200;
  private static final int CONTACTS = 2_000;
  private static final int CYCLES = 1_000;

  @TempDir Path out;

  @Test
  @Timeout(180)
  void workspaceWorkloadRuns_everyDecisionValid_andWritesTheTable() throws Exception {
    boolean redis = RedisServer.executable().isPresent();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(printed, true, StandardCharsets.UTF_8);
    ScaleBench.Options o =
        new ScaleBench.Options(
            new ScaleSimulation.Options(48, AGENTS, CONTACTS, 200, CYCLES, 7, 100),
            new ScaleSimulation.Options(48, AGENTS, CONTACTS, 2, 10, 7, 100),
            List.of("switchboard", "redis"),
            out,
            print);

    ScaleBench.Run run = ScaleBench.run(o, Machine.LOCAL);
    ScaleBench.report(o, run).write(out, RunInfo.capture("smoke").ended(), print);

    assertEquals(redis ? 2 : 1, run.results().size());
    if (!redis) {
      assertTrue(
          printed
              .toString(StandardCharsets.UTF_8)
              .contains("redis-seed004 skipped: no" + " redis-server on the PATH"),
          printed.toString(StandardCharsets.UTF_8));
    }
    ScaleSimulation.Result sb = run.results().get(0);
    assertEquals(ScaleBench.SWITCHBOARD, sb.target());
    // every agent takes a contact when it becomes available: 2,000 - 200 are left waiting
    assertEquals(AGENTS, sb.decisions()[ScaleSimulation.READY]);
    assertEquals(CONTACTS - AGENTS, sb.waitingAfterStart());
    assertTrue(sb.decisions()[ScaleSimulation.COMPLETE] > CYCLES / 2, sb.toString());
    assertTrue(sb.checked() >= AGENTS + sb.steadyDecisions(), sb.toString());
    assertTrue(sb.steady().getTotalCount() > 0 && sb.decisionsPerSecond() > 0);
    assertTrue(sb.bytesPerAgent() > 0 && sb.bytesPerContact() > 0, sb.toString());
    if (redis) {
      ScaleSimulation.Result r = run.results().get(1);
      assertEquals(ScaleBench.REDIS, r.target());
      assertTrue(r.steadyDecisions() > 0 && r.bytesPerContact() > 0, r.toString());
    }

    String header =
        "target,decided when,agents,waiting,decisions,decisions/s,p50 µs,p90 µs,p99 µs,p99.9 µs,"
            + "max µs,bytes/agent,bytes/waiting contact,load average at end";
    List<String> rows = ReportFiles.check(out, ScaleBench.ENTRY, header, 5 * run.results().size());
    assertTrue(rows.get(4).startsWith("switchboard-workspace,steady stream"), rows.get(4));
    String csv = Files.readString(out.resolve(ScaleBench.ENTRY + ".csv"));
    assertTrue(csv.contains("# note: switchboard-workspace p99 decision latency"), csv);
  }

  @Test
  void theWorkloadOptionChoosesTheScaleBench_andBadSizesAreRefused() {
    ScaleBench.Options o =
        ScaleBench.Options.parse(new String[] {"--queues", "48", "--agents", "300"});
    assertEquals(48, o.sim().queues());
    assertEquals(30, o.redis().agents(), "seed 004 runs at a tenth unless told otherwise");
    assertEquals(100_000, o.redis().contacts());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ScaleBench.Options.parse(new String[] {"--queues", "50"}));
    assertTrue(e.getMessage().contains("multiple of 8"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RoutingBench.main(new String[] {"--workload", "nope"}));
    assertTrue(e.getMessage().contains("got 'nope'"), e.getMessage());
  }
}
