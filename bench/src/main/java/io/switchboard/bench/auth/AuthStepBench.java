package io.switchboard.bench.auth;

import io.switchboard.bench.report.ChartSpec;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.server.AuthStepBenchmark;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The server's authentication step per request ({@link AuthStepBenchmark}, JMH with {@code -prof
 * gc}) as one command that prints a table and writes {@code auth-step.csv} and {@code
 * auth-step.png}: µs and bytes per request for each case, what each kind of credentials adds over
 * none, and that as a share of the request:
 *
 * <ul>
 *   <li>of the SQS SendMessage served whole in-process by the same JMH run (no HTTP: an upper bound
 *       of the share, and as load-independent as the step itself);
 *   <li>with {@code --auth-csv PATH}, of the keyless server's CPU per request in an end-to-end
 *       {@code bench/run.sh auth} run ({@code auth.csv}'s median rows: native no-op, SQS single).
 * </ul>
 *
 * <pre>
 * bench/run.sh auth-step [--auth-csv bench/results/auth/auth.csv] \
 *     [--forks 1] [--warmup-iterations 3] [--iterations 5] [--seconds 2] [--out DIR]
 * </pre>
 */
public final class AuthStepBench {

  static final String ENTRY = "auth-step";

  private AuthStepBench() {}

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    int forks = 1;
    int warmups = 3;
    int iterations = 5;
    int seconds = 2;
    Optional<Path> authCsv = Optional.empty();
    String[] a = ra.rest();
    for (int i = 0; i < a.length; i++) {
      if (i + 1 >= a.length) {
        throw new IllegalArgumentException(a[i] + " needs a value");
      }
      String v = a[++i];
      switch (a[i - 1]) {
        case "--forks" -> forks = Integer.parseInt(v);
        case "--warmup-iterations" -> warmups = Integer.parseInt(v);
        case "--iterations" -> iterations = Integer.parseInt(v);
        case "--seconds" -> seconds = Integer.parseInt(v);
        case "--auth-csv" -> authCsv = Optional.of(Path.of(v));
        default ->
            throw new IllegalArgumentException(
                "unknown flag "
                    + a[i - 1]
                    + "; flags are --forks, --warmup-iterations, --iterations, --seconds,"
                    + " --auth-csv, --out");
      }
    }
    Map<String, Double> requestCpu = authCsv.isPresent() ? keylessCpu(authCsv.get()) : Map.of();
    Options options =
        new OptionsBuilder()
            .include(AuthStepBenchmark.class.getName() + "\\.")
            .forks(forks)
            .warmupIterations(warmups)
            .warmupTime(TimeValue.seconds(seconds))
            .measurementIterations(iterations)
            .measurementTime(TimeValue.seconds(seconds))
            .addProfiler(GCProfiler.class)
            .shouldFailOnError(true)
            .build();
    report(new Runner(options).run(), requestCpu, authCsv.map(Path::toString))
        .write(
            ra.out(), RunInfo.capture(RunInfo.commandLine(AuthStepBench.class, args)), System.out);
  }

  /**
   * The keyless server's CPU µs per request in an {@code auth.csv}, by {@code surface workload}
   * ({@code native noop}, {@code sqs single}, ...): the median rows.
   */
  static Map<String, Double> keylessCpu(Path csv) throws IOException {
    List<String> lines =
        Files.readAllLines(csv, StandardCharsets.UTF_8).stream()
            .filter(l -> !l.startsWith("#") && !l.isBlank())
            .toList();
    if (lines.isEmpty()) {
      throw new IllegalArgumentException(csv + " has no table");
    }
    List<String> header = Arrays.asList(lines.get(0).split(",", -1));
    int surface = header.indexOf("surface");
    int workload = header.indexOf("workload");
    int auth = header.indexOf("auth");
    int round = header.indexOf("round");
    int cpu = header.indexOf("server CPU µs/req");
    if (surface < 0 || workload < 0 || auth < 0 || round < 0 || cpu < 0) {
      throw new IllegalArgumentException(
          csv + " is not an auth.csv of bench/run.sh auth (its header: " + lines.get(0) + ")");
    }
    Map<String, Double> out = new HashMap<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] c = line.split(",", -1);
      if (c.length > cpu
          && c[auth].equals("none")
          && c[round].equals("median")
          && !c[cpu].isEmpty()) {
        out.put(c[surface] + " " + c[workload], Double.parseDouble(c[cpu]));
      }
    }
    return out;
  }

  /** One row per benchmark and case; shares where they apply. */
  static Report report(
      Collection<RunResult> results, Map<String, Double> requestCpu, Optional<String> authCsv) {
    Report r =
        Report.create(
                ENTRY,
                "The server's authentication step per request (JMH, in-process, -prof gc)",
                "benchmark",
                "case",
                "median µs/op",
                "mean µs/op",
                "B/op",
                "over none µs/op",
                "share of in-process SQS request",
                "keyless server CPU µs/req (auth bench)",
                "share of server CPU/req")
            .note(
                "authStep: Authentication.check of the Java client's POST /v1/noop (native-*), or"
                    + " SqsEndpoint.admit of an AWS SDK v2 SendMessage (sqs-*), as the server runs"
                    + " them; SigV4 signing key cached; sqsServed: that SendMessage served whole by"
                    + " the endpoint in-process (no HTTP), keyless or signed")
            .note(
                "median µs/op: of every invocation timed on its own (JMH sample time); the mean"
                    + " takes in the time a thread waited for a core on a busy machine, the median"
                    + " far less: the shares are of medians")
            .note(
                "over none: the case minus the same surface's keyless case; share of in-process"
                    + " SQS request: over none / sqsServed none (an upper bound: the real request"
                    + " also costs Helidon and the network); share of server CPU/req: over none /"
                    + " the keyless server's CPU per request in "
                    + authCsv.orElse("an auth.csv (--auth-csv)")
                    + " (native noop, sqs single)")
            .chart(
                ChartSpec.bars(
                    "authentication step", "median µs/op", "case", "benchmark", "median µs/op"));
    Map<String, RunResult> byCase = new HashMap<>();
    for (RunResult rr : results) {
      byCase.put(name(rr) + " " + caseOf(rr), rr);
    }
    OptionalDouble servedNone = score(byCase.get("sqsServed none"));
    List<RunResult> sorted =
        results.stream()
            .sorted((x, y) -> (name(x) + " " + caseOf(x)).compareTo(name(y) + " " + caseOf(y)))
            .toList();
    for (RunResult rr : sorted) {
      Result<?> p = rr.getPrimaryResult();
      String name = name(rr);
      String c = caseOf(rr);
      boolean sqs = name.equals("sqsServed") || c.startsWith("sqs-");
      OptionalDouble none =
          name.equals("sqsServed")
              ? servedNone
              : score(byCase.get(name + " " + c.substring(0, c.indexOf('-')) + "-none"));
      OptionalDouble over =
          none.isPresent() && !c.endsWith("none")
              ? OptionalDouble.of(median(rr) - none.getAsDouble())
              : OptionalDouble.empty();
      String surface = sqs ? "sqs single" : "native noop";
      Double cpu = requestCpu.get(surface);
      Object cpuCell =
          requestCpu.isEmpty()
              ? Report.notMeasured("no --auth-csv (an auth.csv of bench/run.sh auth) given")
              : cpu == null ? Report.notMeasured("no keyless " + surface + " median row") : cpu;
      r.row(
          name,
          c,
          median(rr),
          p.getScore(),
          allocated(rr),
          over.isPresent() ? over.getAsDouble() : "",
          over.isPresent() && sqs && servedNone.isPresent()
              ? over.getAsDouble() / servedNone.getAsDouble()
              : "",
          name.equals("authStep") ? cpuCell : "",
          over.isPresent() && name.equals("authStep") && cpu != null
              ? over.getAsDouble() / cpu
              : "");
    }
    return r;
  }

  private static String name(RunResult rr) {
    String b = rr.getParams().getBenchmark();
    return b.substring(b.lastIndexOf('.') + 1);
  }

  private static String caseOf(RunResult rr) {
    String request = rr.getParams().getParam("request");
    return request != null ? request : rr.getParams().getParam("auth");
  }

  private static OptionalDouble score(@Nullable RunResult rr) {
    return rr == null ? OptionalDouble.empty() : OptionalDouble.of(median(rr));
  }

  /** The median time of one invocation, in the benchmark's unit (µs). */
  private static double median(RunResult rr) {
    return rr.getPrimaryResult().getStatistics().getPercentile(50);
  }

  /** Bytes allocated per operation, from {@code -prof gc}; not measured without it. */
  private static Object allocated(RunResult rr) {
    for (Map.Entry<String, Result> e : rr.getSecondaryResults().entrySet()) {
      if (e.getKey().endsWith("gc.alloc.rate.norm")) {
        return e.getValue().getScore();
      }
    }
    return Report.notMeasured("no gc.alloc.rate.norm (run with the GC profiler)");
  }
}
