package io.switchboard.bench.filter;

import io.switchboard.bench.report.ChartSpec;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Filtered-consumption benchmark: latency of one selective receive plus ack on a deep queue, in
 * Switchboard (attribute index) and embedded ActiveMQ Artemis (selector evaluated message by
 * message), same data, same run. See {@code docs/benchmarks.md#filtered-receive}.
 *
 * <pre>
 * java -Xmx12g -cp bench/target/benchmarks.jar io.switchboard.bench.filter.FilteredReceiveBench \
 *     [--depths 10000,1000000] [--samples 2000] [--warmup 500] [--large-depth 100000]
 *     [--artemis-samples-large 30] [--artemis-warmup-large 3] [--layout backlog|spread]
 *     [--systems switchboard,artemis,artemis-long-lived] [--seed 42] [--out DIR]
 * </pre>
 *
 * <p>Prints a table and writes {@code filtered.csv} and {@code filtered.png} to {@code --out}
 * (default {@code bench/results/filtered}).
 *
 * <p>For each depth D the queue is filled with D generated messages (about 0.1% of which match the
 * selector), then each sample times one receive (at most one message, the selector as filter) and
 * the ack of what it got, and afterwards (untimed) sends one new matching message to the tail, so
 * depth and the number of matching messages stay the same throughout.
 *
 * <p>Layouts: {@code backlog} (default) sends the non-matching messages first and the matching ones
 * last, which is the state a selective consumer that keeps up reaches after one pass over the
 * matches it started with: every match it looks for sits behind the backlog of messages it does not
 * want. {@code spread} sends them in generation order, matches scattered through the queue; sample
 * k then takes the k-th match, so the backlog ahead of it grows as the run goes on.
 */
public final class FilteredReceiveBench {

  static final String ENTRY = "filtered";

  /** What to run. */
  record Options(
      List<Integer> depths,
      int samples,
      int warmup,
      int largeDepth,
      int artemisSamplesLarge,
      int artemisWarmupLarge,
      String layout,
      List<String> systems,
      long seed,
      Path out,
      PrintStream log) {

    static Options defaults() {
      Path out = ReportArgs.defaultOut(ENTRY);
      return new Options(
          List.of(10_000, 1_000_000),
          2000,
          500,
          100_000,
          30,
          3,
          "backlog",
          List.of("switchboard", "artemis", "artemis-long-lived"),
          42,
          out,
          System.out);
    }
  }

  /** One row of the result table. */
  record Row(
      int depth,
      String layout,
      String system,
      double matchFraction,
      long aheadOfFirstMatch,
      int warmup,
      Latencies latencies,
      double fillSeconds) {}

  /** Where and when a run happened. */
  record Environment(
      String jdk, int cpus, String cpuModel, String commit, String date, String maxHeap) {
    static Environment read() {
      return new Environment(
          System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
          Runtime.getRuntime().availableProcessors(),
          RunInfo.cpuModel(),
          RunInfo.commit(),
          ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME),
          (Runtime.getRuntime().maxMemory() >> 20) + " MiB");
    }
  }

  private FilteredReceiveBench() {}

  public static void main(String[] args) throws Exception {
    Options options = parse(args);
    List<Row> rows = run(options);
    report(options, rows)
        .write(
            options.out(),
            RunInfo.capture(RunInfo.commandLine(FilteredReceiveBench.class, args)),
            options.log());
  }

  static Options parse(String[] args) {
    Options o = Options.defaults();
    List<Integer> depths = o.depths();
    int samples = o.samples();
    int warmup = o.warmup();
    int largeDepth = o.largeDepth();
    int artemisSamplesLarge = o.artemisSamplesLarge();
    int artemisWarmupLarge = o.artemisWarmupLarge();
    String layout = o.layout();
    List<String> systems = o.systems();
    long seed = o.seed();
    Path out = o.out();
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("-h") || flag.equals("--help")) {
        System.out.println(
            "usage: FilteredReceiveBench [--depths 10000,1000000] [--samples N] [--warmup N]"
                + " [--large-depth D] [--artemis-samples-large N] [--artemis-warmup-large N]"
                + " [--layout backlog|spread] [--systems switchboard,artemis,artemis-long-lived]"
                + " [--seed S] [--out DIR]");
        System.exit(0);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      String value = args[++i];
      switch (flag) {
        case "--depths" ->
            depths =
                Arrays.stream(value.split(","))
                    .map(s -> Integer.parseInt(s.trim().replace("_", "")))
                    .toList();
        case "--samples" -> samples = Integer.parseInt(value);
        case "--warmup" -> warmup = Integer.parseInt(value);
        case "--large-depth" -> largeDepth = Integer.parseInt(value);
        case "--artemis-samples-large" -> artemisSamplesLarge = Integer.parseInt(value);
        case "--artemis-warmup-large" -> artemisWarmupLarge = Integer.parseInt(value);
        case "--layout" -> layout = value;
        case "--systems" -> systems = List.of(value.split(","));
        case "--seed" -> seed = Long.parseLong(value);
        case "--out" -> out = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option " + flag);
      }
    }
    if (!layout.equals("backlog") && !layout.equals("spread")) {
      throw new IllegalArgumentException("--layout must be backlog or spread, got " + layout);
    }
    for (String s : systems) {
      if (!List.of("switchboard", "artemis", "artemis-long-lived").contains(s)) {
        throw new IllegalArgumentException("unknown system " + s);
      }
    }
    return new Options(
        depths,
        samples,
        warmup,
        largeDepth,
        artemisSamplesLarge,
        artemisWarmupLarge,
        layout,
        systems,
        seed,
        out,
        o.log());
  }

  static List<Row> run(Options o) throws Exception {
    PrintStream log = o.log();
    Environment env = Environment.read();
    log.printf(
        "filtered receive: JDK %s, %d CPUs (%s), max heap %s, commit %s, %s%n",
        env.jdk(), env.cpus(), env.cpuModel(), env.maxHeap(), env.commit(), env.date());
    log.printf(
        "switchboard selector: %s%nartemis selector:     %s%nlayout: %s, seed %d%n",
        Workload.SELECTOR, Workload.ARTEMIS_SELECTOR, o.layout(), o.seed());
    List<Row> rows = new ArrayList<>();
    for (int depth : o.depths()) {
      List<Workload.Msg> data = new Workload(o.seed()).generate(depth);
      long matching = data.stream().filter(Workload.Msg::matches).count();
      if (matching == 0) {
        throw new IllegalStateException("no message of " + depth + " matches; use a larger depth");
      }
      if (o.layout().equals("backlog")) {
        List<Workload.Msg> ordered = new ArrayList<>(depth);
        data.stream().filter(m -> !m.matches()).forEach(ordered::add);
        data.stream().filter(Workload.Msg::matches).forEach(ordered::add);
        data = ordered;
      }
      long ahead = 0;
      while (!data.get((int) ahead).matches()) {
        ahead++;
      }
      double fraction = (double) matching / depth;
      log.printf(
          "%ndepth %,d: %,d matching (%.4f%%), %,d messages ahead of the first match%n",
          depth, matching, 100 * fraction, ahead);
      for (String system : o.systems()) {
        boolean slow = !system.equals("switchboard") && depth >= o.largeDepth();
        int samples = slow ? Math.min(o.samples(), o.artemisSamplesLarge()) : o.samples();
        int warmup = slow ? Math.min(o.warmup(), o.artemisWarmupLarge()) : o.warmup();
        Row row = measure(o, system, depth, data, fraction, ahead, samples, warmup);
        rows.add(row);
        Latencies l = row.latencies();
        log.printf(
            "  %-19s fill %6.1f s, %5d samples: p50 %s  p99 %s  mean %s%n",
            system,
            row.fillSeconds(),
            l.samples(),
            micros(l.p50()),
            micros(l.p99()),
            micros(l.mean()));
        System.gc();
      }
    }
    printTable(o, env, rows);
    return rows;
  }

  private static Target open(String system) throws Exception {
    return switch (system) {
      case "switchboard" -> new SwitchboardTarget();
      case "artemis" -> new ArtemisTarget(ArtemisTarget.Mode.PER_RECEIVE);
      case "artemis-long-lived" -> new ArtemisTarget(ArtemisTarget.Mode.LONG_LIVED);
      default -> throw new IllegalArgumentException(system);
    };
  }

  private static Row measure(
      Options o,
      String system,
      int depth,
      List<Workload.Msg> data,
      double fraction,
      long ahead,
      int samples,
      int warmup)
      throws Exception {
    try (Target target = open(system)) {
      long fillStart = System.nanoTime();
      target.fill(data);
      double fillSeconds = (System.nanoTime() - fillStart) / 1e9;
      awaitDepth(target, depth, system + ": after the fill");
      // The same tail messages for every system.
      Workload tail = new Workload(o.seed() + 1);
      for (int i = 0; i < warmup; i++) {
        target.receiveAndAckNanos();
        target.send(tail.nextMatching());
      }
      long[] nanos = new long[samples];
      for (int i = 0; i < samples; i++) {
        nanos[i] = target.receiveAndAckNanos();
        target.send(tail.nextMatching());
      }
      awaitDepth(target, depth, system + ": after the run");
      return new Row(
          depth, o.layout(), system, fraction, ahead, warmup, Latencies.of(nanos), fillSeconds);
    }
  }

  /** Waits (Artemis updates its counters asynchronously) until the queue holds {@code depth}. */
  private static void awaitDepth(Target target, long depth, String when) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    long seen;
    while ((seen = target.depth()) != depth) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(when + ": depth " + seen + ", expected " + depth);
      }
      Thread.sleep(5);
    }
  }

  private static void printTable(Options o, Environment env, List<Row> rows) {
    PrintStream log = o.log();
    log.printf(
        "%n%-10s %-8s %-19s %12s %12s %12s %8s%n",
        "depth", "layout", "system", "p50", "p99", "mean", "samples");
    for (Row r : rows) {
      Latencies l = r.latencies();
      log.printf(
          "%-10d %-8s %-19s %12s %12s %12s %8d%n",
          r.depth(),
          r.layout(),
          r.system(),
          micros(l.p50()),
          micros(l.p99()),
          micros(l.mean()),
          l.samples());
    }
    int small = o.depths().stream().mapToInt(Integer::intValue).min().orElseThrow();
    int large = o.depths().stream().mapToInt(Integer::intValue).max().orElseThrow();
    Row sbSmall = find(rows, "switchboard", small);
    Row sbLarge = find(rows, "switchboard", large);
    if (sbSmall != null && sbLarge != null && small != large) {
      log.printf(
          "switchboard p50(%,d)/p50(%,d) = %.2fx (target <= 2x)%n",
          large, small, (double) sbLarge.latencies().p50() / sbSmall.latencies().p50());
    }
    for (String artemis : List.of("artemis", "artemis-long-lived")) {
      Row a = find(rows, artemis, large);
      if (a != null && sbLarge != null) {
        log.printf(
            "%s/switchboard p50 at %,d = %.3gx (target >= 100x)%n",
            artemis, large, (double) a.latencies().p50() / sbLarge.latencies().p50());
      }
    }
    log.printf(
        "JDK %s; %d CPUs; %s; commit %s; %s%n",
        env.jdk(), env.cpus(), env.cpuModel(), env.commit(), env.date());
  }

  private static @Nullable Row find(List<Row> rows, String system, int depth) {
    return rows.stream()
        .filter(r -> r.system().equals(system) && r.depth() == depth)
        .findFirst()
        .orElse(null);
  }

  /** The rows as a report: one row per (depth, system), and the p50 ratios within this run. */
  static Report report(Options o, List<Row> rows) {
    Report r =
        Report.create(
                ENTRY,
                "Filtered receive + ack at depth: Switchboard vs ActiveMQ Artemis ("
                    + o.layout()
                    + " layout)",
                "depth",
                "layout",
                "system",
                "match fraction",
                "ahead of first match",
                "samples",
                "p50 µs",
                "p99 µs",
                "mean µs",
                "min µs",
                "max µs",
                "fill s",
                "p50 ÷ Switchboard p50")
            .note("switchboard selector: " + Workload.SELECTOR)
            .note("artemis selector: " + Workload.ARTEMIS_SELECTOR)
            .chart(
                ChartSpec.bars("p50 receive + ack (log scale)", "µs", "depth", "system", "p50 µs")
                    .log());
    for (Row row : rows) {
      Latencies l = row.latencies();
      Row sb = find(rows, "switchboard", row.depth());
      r.row(
          row.depth(),
          row.layout(),
          row.system(),
          row.matchFraction(),
          row.aheadOfFirstMatch(),
          l.samples(),
          l.p50() / 1e3,
          l.p99() / 1e3,
          l.mean() / 1e3,
          l.min() / 1e3,
          l.max() / 1e3,
          row.fillSeconds(),
          sb == null ? Double.NaN : (double) l.p50() / sb.latencies().p50());
    }
    int small = o.depths().stream().mapToInt(Integer::intValue).min().orElseThrow();
    int large = o.depths().stream().mapToInt(Integer::intValue).max().orElseThrow();
    Row sbSmall = find(rows, "switchboard", small);
    Row sbLarge = find(rows, "switchboard", large);
    if (sbSmall != null && sbLarge != null && small != large) {
      r.note(
          String.format(
              Locale.ROOT,
              "switchboard p50(%d)/p50(%d) = %.2fx (target <= 2x)",
              large,
              small,
              (double) sbLarge.latencies().p50() / sbSmall.latencies().p50()));
    }
    return r;
  }

  static String micros(double nanos) {
    if (nanos >= 10_000_000) {
      return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }
    return String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
  }
}
