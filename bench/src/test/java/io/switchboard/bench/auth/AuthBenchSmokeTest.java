package io.switchboard.bench.auth;

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
 * Runs the auth benchmark briefly: the three servers in their child JVMs, every workload, one
 * round, two threads. Checks that every (workload, auth) pair has a row and a median row, that
 * keyed servers took the credentials (a refusal fails the run), and that the ratios to the keyless
 * server are there (1 for the keyless rows). No timing threshold.
 */
class AuthBenchSmokeTest {

  static final String HEADER =
      "surface,workload,auth,round,case,requests/s,messages/s,failures,server CPU µs/req,"
          + "server alloc bytes/req,CPU × none,alloc × none,"
          + "CPU × none range";

  @TempDir Path out;

  @Test
  @Timeout(180)
  void measuresEveryWorkloadKeylessBasicAndSigV4_andReportsRatiosToKeyless() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    AuthBench.Options o =
        AuthBench.Options.parse(
            new String[] {
              "--threads",
              "2",
              "--rounds",
              "1",
              "--jit-warmup-seconds",
              "0.3",
              "--warmup-seconds",
              "0.3",
              "--measure-seconds",
              "1",
              "--server-jvm",
              "-Xmx256m -XX:TieredStopAtLevel=1",
              "--out",
              out.toString()
            },
            new PrintStream(printed, true, StandardCharsets.UTF_8));

    AuthBench.run(o, RunInfo.capture("smoke"), Machine.LOCAL);

    // native noop and e2e x {none, basic, sigv4}, sqs single and batch x {none, sigv4}: 10 pairs,
    // each once for round 1 and once as its median
    List<String> rows = ReportFiles.check(out, "auth", HEADER, 20);
    List<String> pairs =
        rows.stream()
            .filter(r -> ReportFiles.cells(r)[3].equals("1"))
            .map(r -> String.join(" ", List.of(r.split(",")).subList(0, 3)))
            .toList();
    assertEquals(
        List.of(
            "native noop none",
            "native noop basic",
            "native noop sigv4",
            "native e2e none",
            "native e2e basic",
            "native e2e sigv4",
            "sqs single none",
            "sqs single sigv4",
            "sqs batch none",
            "sqs batch sigv4"),
        pairs,
        String.join("\n", rows));
    for (String row : rows) {
      String[] c = ReportFiles.cells(row);
      // a refused credential fails the run (an exception); a request lost by the JDK's client on
      // a loaded machine ("header parser received no bytes") is counted, and rare
      assertTrue(Long.parseLong(c[7]) <= 3, "at most a few requests without an answer: " + row);
      assertTrue(Double.parseDouble(c[5]) > 0, "requests made: " + row);
      if (!c[1].equals("noop")) {
        assertTrue(Double.parseDouble(c[6]) > 0, "messages moved: " + row);
      }
      ReportFiles.measuredAbove(out, "auth", HEADER, row, "server CPU µs/req", 0);
      ReportFiles.measuredAbove(out, "auth", HEADER, row, "server alloc bytes/req", 0);
      ReportFiles.measuredAbove(out, "auth", HEADER, row, "CPU × none", 0);
      ReportFiles.measuredAbove(out, "auth", HEADER, row, "alloc × none", 0);
      if (c[3].equals("median") && !c[10].isEmpty()) {
        assertTrue(c[12].matches("\\d+\\.\\d\\d–\\d+\\.\\d\\d"), "spread: " + row);
      }
      if (c[2].equals("none") && !c[10].isEmpty()) {
        assertEquals(1.0, Double.parseDouble(c[10]), 1e-9, "keyless is its own base: " + row);
      }
    }
    for (String auth : List.of("none", "basic", "sigv4")) {
      String log = Files.readString(out.resolve("auth-" + auth + "-server.log"));
      assertTrue(!log.contains("Exception"), "the " + auth + " server logged an exception: " + log);
    }
  }

  @Test
  void rejectsUnknownWorkloadsAndBadCounts() {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> AuthBench.Options.parse(new String[] {"--workloads", "sqs-triple"}, quiet));
    assertTrue(e.getMessage().contains("got sqs-triple"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> AuthBench.Options.parse(new String[] {"--rounds", "0"}, quiet));
    assertTrue(e.getMessage().contains("got 0"), e.getMessage());
  }
}
