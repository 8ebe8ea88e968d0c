package io.switchboard.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.ReportFiles;
import io.switchboard.bench.report.RunInfo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs every benchmark for a moment so they cannot rot: JMH in-process (no fork), no warm-up, one
 * 100 ms measurement each; and the heap measurement with a small count. Checks only that each
 * completes with a positive figure; the real figures are in {@code docs/benchmarks.md}.
 */
class BenchmarkSmokeTest {

  @TempDir Path out;

  @Test
  void throughputBenchmarksRunAndScore() throws Exception {
    Options options =
        new OptionsBuilder()
            .include(EngineThroughputBenchmark.class.getName() + "\\.")
            .forks(0)
            .warmupIterations(0)
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(100))
            .timeUnit(TimeUnit.SECONDS)
            .shouldFailOnError(true)
            .verbosity(VerboseMode.SILENT)
            .build();
    Collection<RunResult> results = new Runner(options).run();
    assertEquals(4, results.size(), "every benchmark method ran");
    for (RunResult r : results) {
      double score = r.getPrimaryResult().getScore();
      String name = r.getParams().getBenchmark();
      System.out.printf("%s: %.0f messages/s%n", name, score);
      assertTrue(score > 0, name + " scored " + score);
    }
    EngineBench.report(results)
        .write(
            out,
            RunInfo.capture("smoke"),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    List<String> rows =
        ReportFiles.check(
            out, "engine", "benchmark,threads,mode,score,error (99.9 %),unit,samples", 4);
    assertTrue(
        rows.get(0).startsWith("EngineThroughputBenchmark.batched1Thread,1,thrpt,"), rows.get(0));
  }

  @Test
  void heapPerMessageMeasures() throws Exception {
    List<HeapPerMessage.Result> results = new java.util.ArrayList<>();
    for (HeapPerMessage.Arrival arrival : HeapPerMessage.Arrival.values()) {
      for (boolean attributes : new boolean[] {true, false}) {
        boolean breakdown = attributes && arrival == HeapPerMessage.Arrival.BURST;
        HeapPerMessage.Result r = HeapPerMessage.measure(10_000, attributes, arrival, breakdown);
        System.out.printf(
            "heap %s, attributes %s: %.1f bytes/message%n",
            arrival, attributes, r.bytesPerMessage());
        assertTrue(r.bytesPerMessage() > 0, "bytes per message: " + r.bytesPerMessage());
        if (breakdown) {
          assertFalse(r.breakdown().isEmpty(), "class histogram breakdown");
        }
        results.add(r);
      }
    }
    HeapPerMessage.report(results)
        .write(
            out,
            RunInfo.capture("smoke").ended(),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    List<String> rows =
        ReportFiles.check(
            out,
            "heap",
            "arrival,attributes,messages,used before,used after,bytes/message,budget,within budget",
            4);
    assertTrue(rows.get(0).startsWith("burst,3,10000,"), rows.get(0));
    assertTrue(rows.get(3).startsWith("one_per_ms,none,10000,"), rows.get(3));
  }
}
