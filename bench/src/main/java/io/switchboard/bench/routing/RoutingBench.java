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
import org.jspecify.annotations.Nullable;

/**
 * Routing decisions in a loaded contact center: Switchboard's in-process router, seed 004's Redis
 * design against a real {@code redis-server}, and a linear-scan baseline, the same workload in one
 * run (see {@link Simulation} and {@code docs/benchmarks.md}, "Routing"). {@code bench/run.sh
 * routing} runs it (installing {@code redis-server} first when it is missing).
 *
 * <pre>
 * java -Xms2g -Xmx6g -cp bench/target/benchmarks.jar io.switchboard.bench.routing.RoutingBench \
 *     [--agents 10000] [--contacts 100000] [--targets switchboard,linear,redis] [--out DIR]
 * </pre>
 *
 * With {@code --workload workspace} first, it runs {@link ScaleBench} instead (routing at scale:
 * task queues and workflows); {@code --workload center} is this one. Options: {@code --agents N}
 * (10,000), {@code --contacts N} waiting (100,000), {@code --cycles N} measured cycles for the
 * in-process targets (20,000) after {@code --warmup N} (20,000), {@code --redis-cycles N} (2,000)
 * after {@code --redis-warmup N} (200), {@code --targets switchboard,linear,redis}, {@code
 * --journal noop|memory|none} (Switchboard's journal: {@code noop}, the default, runs the router's
 * whole journaling path and discards the batches; {@code memory} stores them in a {@code
 * MemoryRouterJournal}; {@code none} has no journal), {@code --seed N} (42), {@code --out DIR}
 * ({@code bench/results/routing}). Prints a table and writes {@code routing.csv} and {@code
 * routing.png}.
 */
public final class RoutingBench {

  static final String ENTRY = "routing";
  static final List<String> TARGETS = List.of("switchboard", "linear", "redis");

  /** The targets: p99 decision latency in process, and throughput against seed 004. */
  static final long P99_TARGET_NANOS = 100_000;

  static final double RATIO_TARGET = 50;

  /** The run's settings. */
  record Options(
      int agents,
      int contacts,
      int cycles,
      int warmup,
      int redisCycles,
      int redisWarmup,
      List<String> targets,
      String journal,
      long seed,
      Path out,
      PrintStream print) {

    static Options parse(String[] args) {
      ReportArgs ra = ReportArgs.parse(ENTRY, args);
      int agents = 10_000;
      int contacts = 100_000;
      int cycles = 20_000;
      int warmup = 20_000;
      int redisCycles = 2_000;
      int redisWarmup = 200;
      List<String> targets = TARGETS;
      String journal = "noop";
      long seed = 42;
      String[] a = ra.rest();
      for (int i = 0; i < a.length; i++) {
        String flag = a[i];
        if (i + 1 >= a.length) {
          throw new IllegalArgumentException("missing value after " + flag);
        }
        String v = a[++i];
        switch (flag) {
          case "--agents" -> agents = positive(flag, v);
          case "--contacts" -> contacts = positive(flag, v);
          case "--cycles" -> cycles = positive(flag, v);
          case "--warmup" -> warmup = nonNegative(flag, v);
          case "--redis-cycles" -> redisCycles = positive(flag, v);
          case "--redis-warmup" -> redisWarmup = nonNegative(flag, v);
          case "--targets" -> targets = targets(v);
          case "--journal" -> journal = journal(v);
          case "--seed" -> seed = Long.parseLong(v);
          default ->
              throw new IllegalArgumentException(
                  "unknown option "
                      + flag
                      + "; allowed: --agents --contacts --cycles --warmup --redis-cycles"
                      + " --redis-warmup --targets --journal --seed --out");
        }
      }
      return new Options(
          agents,
          contacts,
          cycles,
          warmup,
          redisCycles,
          redisWarmup,
          targets,
          journal,
          seed,
          ra.out(),
          System.out);
    }

    private static int positive(String flag, String v) {
      int n = Integer.parseInt(v.replace("_", "").replace(",", ""));
      if (n <= 0) {
        throw new IllegalArgumentException(flag + " must be positive, got " + v);
      }
      return n;
    }

    private static int nonNegative(String flag, String v) {
      int n = Integer.parseInt(v.replace("_", "").replace(",", ""));
      if (n < 0) {
        throw new IllegalArgumentException(flag + " must be 0 or more, got " + v);
      }
      return n;
    }

    private static List<String> targets(String v) {
      List<String> list = Arrays.asList(v.split(","));
      for (String t : list) {
        if (!TARGETS.contains(t)) {
          throw new IllegalArgumentException(
              "unknown target '" + t + "'; allowed: switchboard, linear, redis");
        }
      }
      return list;
    }

    private static String journal(String v) {
      if (!SwitchboardRouting.JOURNALS.contains(v)) {
        throw new IllegalArgumentException(
            "--journal must be one of " + SwitchboardRouting.JOURNALS + ", got '" + v + "'");
      }
      return v;
    }
  }

  /**
   * What one run measured; {@code loadAverages}: target → the machine's load averages when it
   * ended, absent if the machine cannot give them.
   */
  record Run(
      List<Simulation.Result> results,
      @Nullable String redisVersion,
      Map<String, Optional<String>> loadAverages) {

    Simulation.@Nullable Result find(String name) {
      return results.stream().filter(r -> r.target().equals(name)).findFirst().orElse(null);
    }
  }

  private RoutingBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length >= 1 && args[0].startsWith("--workload")) {
      String workload = args[0].contains("=") ? args[0].substring(args[0].indexOf('=') + 1) : null;
      int skip = workload == null ? 2 : 1;
      if (workload == null && args.length >= 2) {
        workload = args[1];
      }
      switch (workload == null ? "" : workload) {
        case "workspace" -> ScaleBench.main(Arrays.copyOfRange(args, skip, args.length));
        case "center" -> main(Arrays.copyOfRange(args, skip, args.length));
        default ->
            throw new IllegalArgumentException(
                "--workload must be center (the default: 10,000 agents, seed 004 compared) or"
                    + " workspace (1,000 task queues, 100,000 agents, 1,000,000 contacts), got '"
                    + workload
                    + "'");
      }
      return;
    }
    Options o = Options.parse(args);
    RunInfo info = RunInfo.capture(RunInfo.commandLine(RoutingBench.class, args));
    Run run = run(o, Machine.LOCAL);
    report(o, run).write(o.out(), info.ended(), o.print());
  }

  /**
   * Runs every target in order, printing a line per target as it ends; the load average is read
   * from {@code machine}, and reported as not measured where it cannot give it.
   */
  static Run run(Options o, Machine machine) throws IOException, InterruptedException {
    o.print()
        .printf(
            Locale.ROOT,
            "Routing benchmark: %,d agents over %d skills, %,d contacts waiting; cycles: %,d"
                + " (warm-up %,d) in-process, %,d (warm-up %,d) Redis; seed %d; load average %s%n",
            o.agents(),
            CallCenter.SKILLS,
            o.contacts(),
            o.cycles(),
            o.warmup(),
            o.redisCycles(),
            o.redisWarmup(),
            o.seed(),
            RunInfo.loadAverages(machine));
    List<Simulation.Result> results = new ArrayList<>();
    Map<String, Optional<String>> loadAverages = new LinkedHashMap<>();
    String redisVersion = null;
    for (String t : o.targets()) {
      Simulation.Result r;
      switch (t) {
        case "switchboard" ->
            r =
                Simulation.run(
                    "switchboard",
                    inProcess(o),
                    false,
                    (max, d) -> new SwitchboardRouting(max, d, o.journal()));
        case "linear" ->
            r = Simulation.run("linear-scan", inProcess(o), false, LinearScanRouting::new);
        default -> {
          try (RedisServer server = RedisServer.start()) {
            redisVersion = server.version();
            r =
                Simulation.run(
                    "redis-seed004",
                    new Simulation.Options(
                        o.agents(), o.contacts(), o.redisWarmup(), o.redisCycles(), o.seed(), 100),
                    false,
                    (max, d) -> new RedisSeed004Routing("127.0.0.1", server.port(), max, d));
          }
        }
      }
      results.add(r);
      loadAverages.put(r.target(), machine.loadAverages());
      o.print()
          .printf(
              Locale.ROOT,
              "  %s: loaded in %.1f s (%,d waiting); %s; load average %s%n",
              r.target(),
              r.loadSeconds(),
              r.waitingAfterLoad(),
              r.notes(),
              loadAverages.get(r.target()).orElse(Report.NOT_MEASURED));
    }
    return new Run(results, redisVersion, loadAverages);
  }

  private static Simulation.Options inProcess(Options o) {
    return new Simulation.Options(o.agents(), o.contacts(), o.warmup(), o.cycles(), o.seed(), 100);
  }

  /** One row per target, the targets' verdicts and ratios as notes, and three charts. */
  static Report report(Options o, Run run) {
    Report report =
        Report.create(
            ENTRY,
            String.format(
                Locale.ROOT,
                "Routing decisions: %,d agents, %d skills, %,d contacts waiting",
                o.agents(),
                CallCenter.SKILLS,
                o.contacts()),
            "target",
            "cycles",
            "decisions",
            "decisions/s",
            "events/s",
            "p50 µs",
            "p90 µs",
            "p99 µs",
            "p99.9 µs",
            "max µs",
            "event p99 µs",
            "checked",
            "load s",
            "load average at end",
            "× redis-seed004");
    Simulation.Result redis = run.find("redis-seed004");
    for (Simulation.Result r : run.results()) {
      Histogram d = r.decisionLatency();
      report.row(
          r.target(),
          r.cycles(),
          r.decisions(),
          r.decisionsPerSecond(),
          r.eventsPerSecond(),
          micros(d.getValueAtPercentile(50)),
          micros(d.getValueAtPercentile(90)),
          micros(d.getValueAtPercentile(99)),
          micros(d.getValueAtPercentile(99.9)),
          micros(d.getMaxValue()),
          micros(r.eventLatency().getValueAtPercentile(99)),
          r.decisionsChecked(),
          r.loadSeconds(),
          Report.measured(
              run.loadAverages().getOrDefault(r.target(), Optional.empty()),
              "no load average on this machine"),
          redis == null ? Double.NaN : r.decisionsPerSecond() / redis.decisionsPerSecond());
    }
    verdicts(o, run).forEach(report::note);
    for (Simulation.Result r : run.results()) {
      if (!r.notes().isEmpty()) {
        report.note(r.target() + ": " + r.notes());
      }
    }
    return report
        .chart(
            ChartSpec.bars("decisions per second", "decisions/s", "target", null, "decisions/s")
                .log())
        .chart(ChartSpec.bars("p50 decision latency", "µs", "target", null, "p50 µs").log())
        .chart(ChartSpec.bars("p99 decision latency", "µs", "target", null, "p99 µs").log());
  }

  /** The definitions, and whether the targets were met in this run. */
  static List<String> verdicts(Options o, Run run) {
    List<String> lines = new ArrayList<>();
    lines.add(
        "decision = one call in which a freed agent got its next contact (the agent's completion"
            + " and the match it triggers); decisions/s = decisions / summed time of every measured"
            + " call (completions, arrivals, accepts); events/s counts those calls");
    Simulation.Result sb = run.find("switchboard");
    Simulation.Result redis = run.find("redis-seed004");
    Simulation.Result linear = run.find("linear-scan");
    if (sb != null) {
      lines.add(
          "switchboard: Router.builder().build() on a ManualClock, journal: "
              + SwitchboardRouting.describe(o.journal())
              + "; longest idle, offers accepted by the simulation");
      long p99 = sb.decisionLatency().getValueAtPercentile(99);
      lines.add(
          String.format(
              Locale.ROOT,
              "switchboard p99 decision latency %.1f µs: target <= 100 µs, %s",
              p99 / 1e3,
              p99 <= P99_TARGET_NANOS ? "met" : "MISSED"));
      if (redis != null) {
        double ratio = sb.decisionsPerSecond() / redis.decisionsPerSecond();
        lines.add(
            String.format(
                Locale.ROOT,
                "switchboard / redis-seed004 decisions/s: %.1f x: target >= 50 x, %s",
                ratio,
                ratio >= RATIO_TARGET ? "met" : "MISSED"));
        lines.add(
            String.format(
                Locale.ROOT,
                "redis-seed004 / switchboard p50 decision latency: %.1f x",
                redis.decisionLatency().getValueAtPercentile(50)
                    / (double) sb.decisionLatency().getValueAtPercentile(50)));
      }
      if (linear != null) {
        lines.add(
            String.format(
                Locale.ROOT,
                "switchboard / linear-scan decisions/s: %.2f x",
                sb.decisionsPerSecond() / linear.decisionsPerSecond()));
      }
    }
    if (run.redisVersion() != null) {
      lines.add(
          "redis-seed004: redis-server "
              + run.redisVersion()
              + " on loopback, persistence off, one Jedis connection, no pipelining");
    }
    return lines;
  }

  private static double micros(long nanos) {
    return nanos / 1e3;
  }
}
