package io.switchboard.bench.routing;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Routing decisions in a loaded contact center: Switchboard's in-process router, seed 004's Redis
 * design against a real {@code redis-server}, and a linear-scan baseline, the same workload in one
 * run (see {@link Simulation} and {@code docs/benchmarks.md}, "Routing").
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.switchboard.bench.routing.RoutingBench \
 *     --agents 10000 --contacts 100000
 * </pre>
 *
 * Options: {@code --agents N} (10,000), {@code --contacts N} waiting (100,000), {@code --cycles N}
 * measured cycles for the in-process targets (20,000) after {@code --warmup N} (20,000), {@code
 * --redis-cycles N} (2,000) after {@code --redis-warmup N} (200), {@code --targets
 * switchboard,linear,redis}, {@code --seed N} (42), {@code --out DIR} for the CSV ({@code
 * bench/target}). Prints a table; writes {@code routing-<time>.csv}.
 */
public final class RoutingBench {

  /** The run's settings. */
  record Options(
      int agents,
      int contacts,
      int cycles,
      int warmup,
      int redisCycles,
      int redisWarmup,
      List<String> targets,
      long seed,
      Path out,
      PrintStream print) {

    static Options parse(String[] args) {
      int agents = 10_000;
      int contacts = 100_000;
      int cycles = 20_000;
      int warmup = 20_000;
      int redisCycles = 2_000;
      int redisWarmup = 200;
      List<String> targets = List.of("switchboard", "linear", "redis");
      long seed = 42;
      Path out = Path.of("bench", "target");
      for (int i = 0; i < args.length; i++) {
        String flag = args[i];
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("missing value after " + flag);
        }
        String v = args[++i];
        switch (flag) {
          case "--agents" -> agents = positive(flag, v);
          case "--contacts" -> contacts = positive(flag, v);
          case "--cycles" -> cycles = positive(flag, v);
          case "--warmup" -> warmup = nonNegative(flag, v);
          case "--redis-cycles" -> redisCycles = positive(flag, v);
          case "--redis-warmup" -> redisWarmup = nonNegative(flag, v);
          case "--targets" -> targets = targets(v);
          case "--seed" -> seed = Long.parseLong(v);
          case "--out" -> out = Path.of(v);
          default ->
              throw new IllegalArgumentException(
                  "unknown option "
                      + flag
                      + "; allowed: --agents --contacts --cycles --warmup --redis-cycles"
                      + " --redis-warmup --targets --seed --out");
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
          seed,
          out,
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
        if (!List.of("switchboard", "linear", "redis").contains(t)) {
          throw new IllegalArgumentException(
              "unknown target '" + t + "'; allowed: switchboard, linear, redis");
        }
      }
      return list;
    }
  }

  private RoutingBench() {}

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    List<Simulation.Result> results = run(o);
    Path csv = writeCsv(o, results);
    o.print().println("CSV: " + csv);
  }

  /** Runs every target in order and prints the table. */
  static List<Simulation.Result> run(Options o) throws IOException, InterruptedException {
    String env = environment();
    o.print().println("Routing benchmark: " + env + "; load average " + Simulation.loadAverage());
    o.print()
        .printf(
            Locale.ROOT,
            "%,d agents over %d skills, %,d contacts waiting; cycles: %,d (warm-up %,d)"
                + " in-process, %,d (warm-up %,d) Redis; seed %d%n",
            o.agents(),
            CallCenter.SKILLS,
            o.contacts(),
            o.cycles(),
            o.warmup(),
            o.redisCycles(),
            o.redisWarmup(),
            o.seed());
    List<Simulation.Result> results = new ArrayList<>();
    String redisVersion = null;
    for (String t : o.targets()) {
      Simulation.Result r;
      switch (t) {
        case "switchboard" ->
            r = Simulation.run("switchboard", inProcess(o), false, SwitchboardRouting::new);
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
      o.print()
          .printf(
              Locale.ROOT,
              "  %s: loaded in %.1f s (%,d waiting), %s; load average %s%n",
              r.target(),
              r.loadSeconds(),
              r.waitingAfterLoad(),
              r.notes(),
              r.loadAverage());
    }
    printTable(o.print(), results, redisVersion);
    return results;
  }

  private static Simulation.Options inProcess(Options o) {
    return new Simulation.Options(o.agents(), o.contacts(), o.warmup(), o.cycles(), o.seed(), 100);
  }

  private static void printTable(
      PrintStream out, List<Simulation.Result> results, String redisVersion) {
    out.println();
    out.printf(
        "%-14s %8s %10s %13s %11s %9s %9s %9s %9s %10s %9s%n",
        "target",
        "cycles",
        "decisions",
        "decisions/s",
        "events/s",
        "p50",
        "p99",
        "p999",
        "max",
        "event p99",
        "checked");
    for (Simulation.Result r : results) {
      Histogram d = r.decisionLatency();
      out.printf(
          Locale.ROOT,
          "%-14s %,8d %,10d %,13.0f %,11.0f %9s %9s %9s %9s %10s %,9d%n",
          r.target(),
          r.cycles(),
          r.decisions(),
          r.decisionsPerSecond(),
          r.eventsPerSecond(),
          micros(d.getValueAtPercentile(50)),
          micros(d.getValueAtPercentile(99)),
          micros(d.getValueAtPercentile(99.9)),
          micros(d.getMaxValue()),
          micros(r.eventLatency().getValueAtPercentile(99)),
          r.decisionsChecked());
    }
    out.println(
        "latency = one decision (the call in which a freed agent got its next contact);"
            + " events/s counts every call (completions, arrivals, accepts)");
    if (redisVersion != null) {
      out.println("Redis server " + redisVersion + ", loopback, persistence off; Jedis client");
    }
    Simulation.Result sb = find(results, "switchboard");
    Simulation.Result redis = find(results, "redis-seed004");
    Simulation.Result linear = find(results, "linear-scan");
    if (sb != null) {
      long p99 = sb.decisionLatency().getValueAtPercentile(99);
      out.printf(
          Locale.ROOT,
          "switchboard p99 decision latency %s: target <= 100 us, %s%n",
          micros(p99),
          p99 <= 100_000 ? "met" : "MISSED");
      if (redis != null) {
        double ratio = sb.decisionsPerSecond() / redis.decisionsPerSecond();
        out.printf(
            Locale.ROOT,
            "switchboard/redis-seed004 decisions/s: %.1fx: target >= 50x, %s%n",
            ratio,
            ratio >= 50 ? "met" : "MISSED");
        out.printf(
            Locale.ROOT,
            "redis-seed004/switchboard p50 decision latency: %.1fx%n",
            redis.decisionLatency().getValueAtPercentile(50)
                / (double) sb.decisionLatency().getValueAtPercentile(50));
      }
      if (linear != null) {
        out.printf(
            Locale.ROOT,
            "switchboard/linear-scan decisions/s: %.2fx%n",
            sb.decisionsPerSecond() / linear.decisionsPerSecond());
      }
    }
  }

  private static Simulation.Result find(List<Simulation.Result> results, String name) {
    return results.stream().filter(r -> r.target().equals(name)).findFirst().orElse(null);
  }

  /** Writes one row per target, with the machine and build, to {@code out/routing-<time>.csv}. */
  static Path writeCsv(Options o, List<Simulation.Result> results) throws IOException {
    Files.createDirectories(o.out());
    String stamp = ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path file = o.out().resolve("routing-" + stamp + ".csv");
    StringBuilder csv =
        new StringBuilder(
            "target,agents,contacts_waiting,cycles,decisions,decisions_per_s,events_per_s,"
                + "p50_us,p99_us,p999_us,max_us,event_p99_us,decisions_checked,load_s,"
                + "load_average,jdk,cpus,cpu,commit,date\n");
    String jdk = Runtime.version().toString();
    int cpus = Runtime.getRuntime().availableProcessors();
    String date = ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    for (Simulation.Result r : results) {
      Histogram d = r.decisionLatency();
      csv.append(
          String.format(
              Locale.ROOT,
              "%s,%d,%d,%d,%d,%.1f,%.1f,%.2f,%.2f,%.2f,%.2f,%.2f,%d,%.2f,%s,%s,%d,\"%s\",%s,%s%n",
              r.target(),
              o.agents(),
              r.waitingAfterLoad(),
              r.cycles(),
              r.decisions(),
              r.decisionsPerSecond(),
              r.eventsPerSecond(),
              d.getValueAtPercentile(50) / 1e3,
              d.getValueAtPercentile(99) / 1e3,
              d.getValueAtPercentile(99.9) / 1e3,
              d.getMaxValue() / 1e3,
              r.eventLatency().getValueAtPercentile(99) / 1e3,
              r.decisionsChecked(),
              r.loadSeconds(),
              r.loadAverage(),
              jdk,
              cpus,
              cpuModel(),
              commit(),
              date));
    }
    Files.writeString(file, csv);
    return file;
  }

  private static String micros(long nanos) {
    return nanos >= 1_000_000
        ? String.format(Locale.ROOT, "%.2f ms", nanos / 1e6)
        : String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
  }

  /** JDK, CPUs, CPU model, commit and date, for the record. */
  static String environment() {
    return String.format(
        Locale.ROOT,
        "JDK %s (%s); %d CPUs, %s; commit %s; %s",
        Runtime.version(),
        System.getProperty("java.vm.name"),
        Runtime.getRuntime().availableProcessors(),
        cpuModel(),
        commit(),
        ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
  }

  private static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("unknown CPU");
    } catch (IOException e) {
      return "unknown CPU";
    }
  }

  private static String commit() {
    try {
      Process p = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      return p.waitFor() == 0 && !out.isEmpty() ? out : "unknown";
    } catch (IOException | InterruptedException e) {
      return "unknown";
    }
  }
}
