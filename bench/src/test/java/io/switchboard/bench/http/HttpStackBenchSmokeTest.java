package io.switchboard.bench.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.ReportFiles;
import io.switchboard.bench.report.RunInfo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the HTTP stack comparison briefly: every stack in its child JVM, both workloads, one round,
 * two threads, about a second per measurement. Checks that each stack answered every request of
 * both routes (the batch answer is a 200 only if the handler parsed the body and the engine took
 * its messages), that Switchboard's server has a no-op row only, and that the ratio to Helidon is
 * there. No timing threshold.
 */
class HttpStackBenchSmokeTest {

  static final String HEADER =
      "workload,threads,case,stack,rounds,requests/s,p50 µs,p99 µs,failures,server CPU µs/req,"
          + "server CPU range,client CPU µs/req,server alloc bytes/req,CPU × helidon";

  @TempDir Path out;

  @Test
  @Timeout(180)
  void servesBothRoutesOnEveryStack_andReportsCpuPerRequest() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    HttpStackBench.Options o =
        HttpStackBench.Options.parse(
            new String[] {
              "--threads",
              "2",
              "--rounds",
              "1",
              "--jit-warmup-seconds",
              "0.2",
              "--warmup-seconds",
              "0.2",
              "--measure-seconds",
              "0.5",
              "--server-jvm",
              "-Xmx256m -XX:TieredStopAtLevel=1",
              "--out",
              out.toString()
            },
            new PrintStream(printed, true, StandardCharsets.UTF_8));

    HttpStackBench.run(o, RunInfo.capture("smoke"), Machine.LOCAL);

    // noop on all 7 stacks, batch on the 6 that are not Switchboard's server
    List<String> rows = ReportFiles.check(out, "http-stacks", HEADER, 13);
    List<String> cases =
        rows.stream().map(r -> ReportFiles.cells(r)[0] + " " + ReportFiles.cells(r)[3]).toList();
    assertEquals(
        List.of(
            "noop switchboard",
            "noop helidon",
            "noop helidon-tuned",
            "noop helidon-tuned-sockets",
            "noop netty",
            "noop jdk-virtual",
            "noop jdk-fixed",
            "batch helidon",
            "batch helidon-tuned",
            "batch helidon-tuned-sockets",
            "batch netty",
            "batch jdk-virtual",
            "batch jdk-fixed"),
        cases,
        String.join("\n", rows));
    for (String row : rows) {
      String[] c = ReportFiles.cells(row);
      assertEquals("0", c[8], "every request answered with a 2xx: " + row);
      assertTrue(Double.parseDouble(c[5]) > 0, "requests made: " + row);
      ReportFiles.measuredAbove(out, "http-stacks", HEADER, row, "server CPU µs/req", 0);
      ReportFiles.measuredAbove(out, "http-stacks", HEADER, row, "client CPU µs/req", 0);
      ReportFiles.measuredAbove(out, "http-stacks", HEADER, row, "CPU × helidon", 0);
    }
  }

  @Test
  void batchWorkAnswersEveryEntry_andRefusesABodyWithoutEntries() {
    StackWork work = new StackWork();
    String answer = new String(work.sendBatch(HttpStackBench.batchBody()), StandardCharsets.UTF_8);
    for (int i = 0; i < HttpStackBench.BATCH_MESSAGES; i++) {
      assertTrue(answer.contains("{\"Id\":\"" + i + "\",\"MessageId\":\""), answer);
    }
    assertTrue(answer.endsWith("\"Failed\":[]}"), answer);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> work.sendBatch("{\"QueueUrl\":\"q\"}".getBytes(StandardCharsets.UTF_8)));
    assertTrue(e.getMessage().contains("no Entries"), e.getMessage());
    assertEquals(HttpStackBench.NOOP_BODY_BYTES, HttpStackBench.noopBody().length);
  }

  @Test
  void rejectsUnknownStacksAndBadCounts() {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> HttpStackBench.Options.parse(new String[] {"--stacks", "tomcat"}, quiet));
    assertTrue(e.getMessage().contains("got tomcat"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> HttpStackBench.Options.parse(new String[] {"--rounds", "0"}, quiet));
    assertTrue(e.getMessage().contains("got 0"), e.getMessage());
  }
}
