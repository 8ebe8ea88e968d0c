package io.switchboard.bench.routing;

import io.switchboard.bench.report.ChartSpec;
import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * Routing at scale (docs/bench-history/routing.md): a workspace of 1,000 task queues, 100,000
 * agents and 1,000,000 waiting contacts routed by workflows of 3 targets ({@link ScaleCenter},
 * driven by {@link ScaleSimulation}); decision latency by what caused the decision, decisions/s,
 * memory per agent and per waiting contact; and seed 004's Redis design on the closest workload it
 * can express. {@code bench/run.sh routing --workload workspace} runs it.
 *
 * <pre>
 * java -Xms12g -Xmx12g -cp bench/target/benchmarks.jar io.switchboard.bench.routing.RoutingBench \
 *     --workload workspace [--queues 1000] [--agents 100000] [--contacts 1000000] [--targets ...]
 * </pre>
 *
 * Options: {@code --queues N} (1,000; a multiple of 8), {@code --agents N} (100,000), {@code
 * --contacts N} waiting (1,000,000), {@code --cycles N} measured (50,000) after {@code --warmup N}
 * (20,000), {@code --redis-agents N} and {@code --redis-contacts N} (a tenth of Switchboard's,
 * {@link #REDIS_SHARE}), {@code --redis-cycles N} (100) after {@code --redis-warmup N} (10), {@code
 * --targets switchboard,redis} (Redis is left out, with a message, when no {@code redis-server} is
 * on the PATH), {@code --seed N} (42), {@code --out DIR} ({@code bench/results/routing-workspace}).
 */
public final class ScaleBench {

  static final String ENTRY = "routing-workspace";
  static final List<String> TARGETS = List.of("switchboard", "redis");
  static final String SWITCHBOARD = "switchboard-workspace";
  static final String REDIS = "redis-seed004";

  /**
   * Seed 004 runs at this fraction of the size unless told otherwise: at the full size its
   * dispatcher's start-up alone takes about an hour on a 2-vCPU machine ({@code ZINTER} over sets
   * of tens of thousands of available agents, 27 ms each), before the first measured decision.
   */
  static final int REDIS_SHARE = 10;

  /** The run's settings. */
  record Options(
      ScaleSimulation.Options sim,
      ScaleSimulation.Options redis,
      List<String> targets,
      Path out,
      PrintStream print) {

    static Options parse(String[] args) {
      ReportArgs ra = ReportArgs.parse(ENTRY, args);
      int queues = 1_000;
      int agents = 100_000;
      int contacts = 1_000_000;
      int cycles = 50_000;
      int warmup = 20_000;
      Integer redisAgents = null;
      Integer redisContacts = null;
      int redisCycles = 100;
      int redisWarmup = 10;
      List<String> targets = TARGETS;
      long seed = 42;
      String[] a = ra.rest();
      for (int i = 0; i < a.length; i++) {
        String flag = a[i];
        if (i + 1 >= a.length) {
          throw new IllegalArgumentException("missing value after " + flag);
        }
        String v = a[++i];
        switch (flag) {
          case "--queues" -> queues = number(flag, v, 24);
          case "--agents" -> agents = number(flag, v, 1);
          case "--contacts" -> contacts = number(flag, v, 1);
          case "--cycles" -> cycles = number(flag, v, 1);
          case "--warmup" -> warmup = number(flag, v, 0);
          case "--redis-agents" -> redisAgents = number(flag, v, 1);
          case "--redis-contacts" -> redisContacts = number(flag, v, 1);
          case "--redis-cycles" -> redisCycles = number(flag, v, 1);
          case "--redis-warmup" -> redisWarmup = number(flag, v, 0);
          case "--targets" -> targets = targets(v);
          case "--seed" -> seed = Long.parseLong(v);
          default ->
              throw new IllegalArgumentException(
                  "unknown option "
                      + flag
                      + " of --workload workspace; allowed: --queues --agents --contacts --cycles"
                      + " --warmup --redis-agents --redis-contacts --redis-cycles --redis-warmup"
                      + " --targets --seed --out");
        }
      }
      ScaleSimulation.Options sim =
          new ScaleSimulation.Options(queues, agents, contacts, warmup, cycles, seed, 100);
      ScaleSimulation.Options redis =
          new ScaleSimulation.Options(
              queues,
              redisAgents == null ? Math.max(1, agents / REDIS_SHARE) : redisAgents,
              redisContacts == null ? Math.max(1, contacts / REDIS_SHARE) : redisContacts,
              redisWarmup,
              redisCycles,
              seed,
              100);
      new ScaleCenter(queues, 1, seed); // checks --queues before anything runs
      return new Options(sim, redis, targets, ra.out(), System.out);
    }

    private static int number(String flag, String v, int min) {
      int n = Integer.parseInt(v.replace("_", "").replace(",", ""));
      if (n < min) {
        throw new IllegalArgumentException(flag + " must be " + min + " or more, got " + v);
      }
      return n;
    }

    private static List<String> targets(String v) {
      List<String> list = Arrays.asList(v.split(","));
      for (String t : list) {
        if (!TARGETS.contains(t)) {
          throw new IllegalArgumentException(
              "unknown target '" + t + "' of --workload workspace; allowed: switchboard, redis");
        }
      }
      return list;
    }
  }

  /** What one run measured; load averages by target, when each ended. */
  record Run(
      List<ScaleSimulation.Result> results,
      Map<String, Optional<String>> loadAverages,
      List<String> skipped) {}

  private ScaleBench() {}

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    RunInfo info =
        RunInfo.capture(
            RunInfo.commandLine(RoutingBench.class, prepend("--workload", "workspace", args)));
    Run run = run(o, Machine.LOCAL);
    report(o, run).write(o.out(), info.ended(), o.print());
  }

  private static String[] prepend(String a, String b, String[] rest) {
    String[] all = new String[rest.length + 2];
    all[0] = a;
    all[1] = b;
    System.arraycopy(rest, 0, all, 2, rest.length);
    return all;
  }

  static String name(ScaleTarget target) {
    return target instanceof RedisScaleRouting ? REDIS : SWITCHBOARD;
  }

  /** Runs every target in order, printing a line per target as it ends. */
  static Run run(Options o, Machine machine) throws IOException, InterruptedException {
    ScaleSimulation.Options s = o.sim();
    o.print()
        .printf(
            Locale.ROOT,
            "Routing at scale: %,d task queues, %,d agents, %,d contacts waiting, workflows of 3"
                + " targets; %,d measured cycles (warm-up %,d); seed %d; load average %s%n",
            s.queues(),
            s.agents(),
            s.contacts(),
            s.cycles(),
            s.warmupCycles(),
            s.seed(),
            RunInfo.loadAverages(machine));
    List<ScaleSimulation.Result> results = new ArrayList<>();
    Map<String, Optional<String>> loadAverages = new LinkedHashMap<>();
    List<String> skipped = new ArrayList<>();
    for (String t : o.targets()) {
      ScaleSimulation.Result r;
      if (t.equals("switchboard")) {
        r =
            ScaleSimulation.run(
                s, (center, d) -> new WorkspaceScaleRouting(center, s.maxContacts(), d));
      } else {
        if (RedisServer.executable().isEmpty()) {
          String why =
              "redis-seed004 skipped: no redis-server on the PATH (apt-get install -y"
                  + " redis-server, or bench/run.sh routing installs it)";
          o.print().println("  " + why);
          skipped.add(why);
          continue;
        }
        ScaleSimulation.Options ro = o.redis();
        o.print()
            .printf(
                Locale.ROOT,
                "  redis-seed004: %,d agents, %,d contacts, %,d cycles (warm-up %,d)...%n",
                ro.agents(),
                ro.contacts(),
                ro.cycles(),
                ro.warmupCycles());
        try (RedisServer server = RedisServer.start()) {
          r =
              ScaleSimulation.run(
                  ro, (center, d) -> new RedisScaleRouting(center, server, ro.maxContacts(), d));
        }
      }
      results.add(r);
      loadAverages.put(r.target(), machine.loadAverages());
      o.print()
          .printf(
              Locale.ROOT,
              "  %s: populated in %.1f s, started in %.1f s (%,d waiting), %,d decisions in %,d"
                  + " measured cycles; %s; load average %s%n",
              r.target(),
              r.populateSeconds(),
              r.startSeconds(),
              r.waitingAfterStart(),
              r.steadyDecisions(),
              r.cycles(),
              r.notes(),
              loadAverages.get(r.target()).orElse(Report.NOT_MEASURED));
    }
    return new Run(results, loadAverages, skipped);
  }

  /** One row per target and decision kind, then the target's steady-stream row. */
  static Report report(Options o, Run run) {
    ScaleSimulation.Options s = o.sim();
    Report report =
        Report.create(
            ENTRY,
            String.format(
                Locale.ROOT,
                "Routing at scale: %,d task queues, workflows of 3 targets (sizes by row)",
                s.queues()),
            "target",
            "decided when",
            "agents",
            "waiting",
            "decisions",
            "decisions/s",
            "p50 µs",
            "p90 µs",
            "p99 µs",
            "p99.9 µs",
            "max µs",
            "bytes/agent",
            "bytes/waiting contact",
            "load average at end");
    for (ScaleSimulation.Result r : run.results()) {
      Object load =
          Report.measured(
              run.loadAverages().getOrDefault(r.target(), Optional.empty()),
              "no load average on this machine");
      for (int k : new int[] {ScaleSimulation.READY, ScaleSimulation.COMPLETE}) {
        row(
            report,
            r,
            ScaleSimulation.KINDS[k],
            r.decisions()[k],
            Double.NaN,
            r.latency()[k],
            load);
      }
      for (int k : new int[] {ScaleSimulation.ARRIVE, ScaleSimulation.TIMEOUT}) {
        row(
            report,
            r,
            ScaleSimulation.KINDS[k],
            r.decisions()[k],
            Double.NaN,
            r.latency()[k],
            load);
      }
      row(
          report,
          r,
          "steady stream (all)",
          r.steadyDecisions(),
          r.decisionsPerSecond(),
          r.steady(),
          load);
    }
    verdicts(o, run).forEach(report::note);
    run.skipped().forEach(report::note);
    for (ScaleSimulation.Result r : run.results()) {
      report.note(r.target() + ": " + r.description());
      report.note(
          String.format(
              Locale.ROOT,
              "%s memory: %s, %,d B before the agents, %,d B with them, %,d B with the contacts",
              r.target(),
              r.base().source(),
              r.base().bytes(),
              r.withAgents().bytes(),
              r.withContacts().bytes()));
      if (!r.notes().isEmpty()) {
        report.note(r.target() + ": " + r.notes());
      }
    }
    return report
        .chart(
            ChartSpec.bars("p99 decision latency", "µs", "decided when", "target", "p99 µs").log())
        .chart(
            ChartSpec.bars("p50 decision latency", "µs", "decided when", "target", "p50 µs").log());
  }

  private static void row(
      Report report,
      ScaleSimulation.Result r,
      String kind,
      long decisions,
      double perSecond,
      Histogram h,
      Object load) {
    boolean any = h.getTotalCount() > 0;
    boolean steadyRow = !Double.isNaN(perSecond);
    report.row(
        r.target(),
        kind,
        r.agents(),
        r.contacts(),
        decisions,
        perSecond,
        any ? micros(h.getValueAtPercentile(50)) : Double.NaN,
        any ? micros(h.getValueAtPercentile(90)) : Double.NaN,
        any ? micros(h.getValueAtPercentile(99)) : Double.NaN,
        any ? micros(h.getValueAtPercentile(99.9)) : Double.NaN,
        any ? micros(h.getMaxValue()) : Double.NaN,
        steadyRow ? r.bytesPerAgent() : Double.NaN,
        steadyRow ? r.bytesPerContact() : Double.NaN,
        load);
  }

  /** The definitions, and whether the target was met in this run. */
  static List<String> verdicts(Options o, Run run) {
    List<String> lines = new ArrayList<>();
    lines.add(
        "decision = one call that made a reservation: an agent made available (start), a"
            + " completion freeing the agent, an arrival, or the clock moving 100 ms and a"
            + " workflow timeout moving a contact to its next target; latency = that call;"
            + " decisions/s = steady-stream decisions / summed time of every measured call"
            + " (completions, arrivals, clock moves, accepts)");
    lines.add(
        "memory per agent = (after agents - before) / agents; per waiting contact = (after"
            + " contacts - after agents) / contacts, no agent available yet, so all wait");
    for (ScaleSimulation.Result r : run.results()) {
      if (!r.target().equals(SWITCHBOARD)) {
        continue;
      }
      long p99 = r.steady().getValueAtPercentile(99);
      lines.add(
          String.format(
              Locale.ROOT,
              "%s p99 decision latency (steady stream) %.1f µs: target <= 100 µs, %s",
              r.target(),
              p99 / 1e3,
              p99 <= RoutingBench.P99_TARGET_NANOS ? "met" : "MISSED"));
    }
    return lines;
  }

  private static double micros(long nanos) {
    return nanos / 1e3;
  }
}
