package io.switchboard.bench.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.ReportFiles;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.server.AuthStepBenchmark;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs the authentication-step benchmark for a moment in-process: every case sets up (a signed or
 * Basic request that the server would refuse fails the set-up, and so the run), and the report has
 * a row per case with the shares, read against a small {@code auth.csv}. No timing threshold.
 */
class AuthStepBenchSmokeTest {

  static final String HEADER =
      "benchmark,case,median µs/op,mean µs/op,B/op,over none µs/op,share of in-process SQS request,"
          + "keyless server CPU µs/req (auth bench),share of server CPU/req";

  @TempDir Path out;

  @Test
  void everyCaseRuns_andTheReportHasTheShares() throws Exception {
    Collection<RunResult> results =
        new Runner(
                new OptionsBuilder()
                    .include(AuthStepBenchmark.class.getName() + "\\.")
                    .forks(0)
                    .warmupIterations(0)
                    .measurementIterations(1)
                    .measurementTime(TimeValue.milliseconds(100))
                    .addProfiler(GCProfiler.class)
                    .shouldFailOnError(true)
                    .verbosity(VerboseMode.SILENT)
                    .build())
            .run();
    assertEquals(7, results.size(), "5 authentication steps and 2 served SQS requests");

    Path authCsv = out.resolve("auth.csv");
    Files.writeString(
        authCsv,
        "# a few lines of an auth.csv\n"
            + AuthBenchSmokeTest.HEADER
            + "\n"
            + "native,noop,none,median,native noop,3000,0,0,96.4,11141,1.0,1.0,1.00–1.00\n"
            + "native,noop,sigv4,median,native noop,3000,0,0,106.5,12934,1.1,1.1,0.74–1.30\n"
            + "sqs,single,none,median,sqs single,6343,2114,0,118.2,28104,1.0,1.0,1.00–1.00\n",
        StandardCharsets.UTF_8);
    Map<String, Double> cpu = AuthStepBench.keylessCpu(authCsv);
    assertEquals(Map.of("native noop", 96.4, "sqs single", 118.2), cpu);

    AuthStepBench.report(results, cpu, Optional.of(authCsv.toString()))
        .write(
            out.resolve("report"),
            RunInfo.capture("smoke"),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    List<String> rows = ReportFiles.check(out.resolve("report"), "auth-step", HEADER, 7);
    String sigv4 =
        rows.stream().filter(l -> l.startsWith("authStep,native-sigv4,")).findFirst().orElseThrow();
    String[] c = sigv4.split(",", -1);
    assertTrue(Double.parseDouble(c[4]) > 0, "bytes per op: " + sigv4);
    assertTrue(!c[5].isEmpty() && !c[8].isEmpty(), "over none and its share: " + sigv4);
    assertEquals("96.4", c[7], sigv4);
    String sqs =
        rows.stream().filter(l -> l.startsWith("authStep,sqs-sigv4,")).findFirst().orElseThrow();
    assertTrue(!sqs.split(",", -1)[6].isEmpty(), "share of the in-process request: " + sqs);
  }

  @Test
  void authCsvOfAnotherBench_isRefusedNamingIt() throws Exception {
    Path other = out.resolve("engine.csv");
    Files.writeString(other, "benchmark,threads,mode,score\nx,1,thrpt,1\n", StandardCharsets.UTF_8);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> AuthStepBench.keylessCpu(other));
    assertTrue(e.getMessage().contains("not an auth.csv"), e.getMessage());
  }
}
