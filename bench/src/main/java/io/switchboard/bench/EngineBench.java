package io.switchboard.bench;

import io.switchboard.bench.report.ChartSpec;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The engine micro-benchmarks (JMH, {@link EngineThroughputBenchmark}) as one command that prints a
 * table and writes {@code engine.csv} and {@code engine.png}:
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.switchboard.bench.EngineBench \
 *     [--forks 2] [--warmup-iterations 3] [--iterations 5] [--seconds 2] \
 *     [--include EngineThroughputBenchmark] [--out DIR]
 * </pre>
 *
 * The defaults are those of the figures in {@code docs/benchmarks.md} ({@code -f 2 -wi 3 -i 5 -w 2s
 * -r 2s}); JMH's own command line ({@code java -jar bench/target/benchmarks.jar}) still works for
 * everything else (profilers, JFR).
 */
public final class EngineBench {

  static final String ENTRY = "engine";

  private EngineBench() {}

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    int forks = 2;
    int warmups = 3;
    int iterations = 5;
    int seconds = 2;
    String include = EngineThroughputBenchmark.class.getSimpleName();
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
        case "--include" -> include = v;
        default ->
            throw new IllegalArgumentException(
                "unknown flag "
                    + a[i - 1]
                    + "; flags are --forks, --warmup-iterations, --iterations, --seconds,"
                    + " --include, --out");
      }
    }
    Options options =
        new OptionsBuilder()
            .include(include)
            .forks(forks)
            .warmupIterations(warmups)
            .warmupTime(TimeValue.seconds(seconds))
            .measurementIterations(iterations)
            .measurementTime(TimeValue.seconds(seconds))
            .timeUnit(TimeUnit.SECONDS)
            .shouldFailOnError(true)
            .build();
    report(run(options))
        .write(ra.out(), RunInfo.capture(RunInfo.commandLine(EngineBench.class, args)), System.out);
  }

  /** Runs JMH with {@code options}. */
  public static Collection<RunResult> run(Options options) throws RunnerException {
    return new Runner(options).run();
  }

  /** One row per benchmark: score (messages/s for the throughput benchmarks) and its error. */
  public static Report report(Collection<RunResult> results) {
    Report r =
        Report.create(
                ENTRY,
                "Engine micro-benchmarks (JMH), in-process QueueEngine, no network",
                "benchmark",
                "threads",
                "mode",
                "score",
                "error (99.9 %)",
                "unit",
                "samples")
            .note(
                "EngineThroughputBenchmark: one invocation = send, receive, ack of 1 or 10"
                    + " messages; score = messages/s")
            .chart(ChartSpec.bars("engine throughput", "score", "benchmark", null, "score"));
    List<RunResult> sorted =
        results.stream()
            .sorted((x, y) -> x.getParams().getBenchmark().compareTo(y.getParams().getBenchmark()))
            .toList();
    for (RunResult rr : sorted) {
      Result<?> p = rr.getPrimaryResult();
      String name = rr.getParams().getBenchmark();
      r.row(
          name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1),
          rr.getParams().getThreads(),
          rr.getParams().getMode().shortLabel(),
          p.getScore(),
          p.getScoreError(),
          p.getScoreUnit(),
          p.getSampleCount());
    }
    return r;
  }
}
