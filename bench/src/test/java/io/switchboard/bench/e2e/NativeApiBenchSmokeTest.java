package io.switchboard.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.ReportFiles;
import io.switchboard.bench.report.RunInfo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the end-to-end benchmark for about a second: both engines (each server in a child JVM), two
 * threads, tiny windows.
 */
class NativeApiBenchSmokeTest {

  @TempDir Path out;

  @Test
  @Timeout(120) // two servers in child JVMs
  void measuresCeilingAndEndToEnd_onBothEngines() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    NativeApiBench.Options o =
        new NativeApiBench.Options(
            List.of(2),
            Duration.ofMillis(50),
            Duration.ofMillis(200),
            List.of("memory", "durable"),
            new PrintStream(printed, true, StandardCharsets.UTF_8));

    List<ClosedLoop.Result> rows = NativeApiBench.run(o, out, RunInfo.capture("smoke"));

    assertEquals(6, rows.size());
    for (ClosedLoop.Result r : rows) {
      assertTrue(r.failures() * 10 <= r.cycles(), "few failures: " + r);
      assertTrue(r.cycles() > 0 && r.seconds() > 0, r.toString());
      assertTrue(r.p99Nanos() >= r.p50Nanos() && r.p50Nanos() > 0, r.toString());
      if (r.workload().equals("e2e")) {
        assertTrue(r.messages() > 0 && r.requests() >= 2 * r.cycles(), r.toString());
      } else if (r.workload().equals("sized")) {
        assertEquals(3 * r.cycles(), r.requests(), r.toString());
        assertEquals(0, r.messages(), r.toString());
      } else {
        assertEquals(r.cycles(), r.requests(), r.toString());
      }
    }
    String text = printed.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("| memory | 2 |") && text.contains("| durable | 2 |"), text);
    assertTrue(text.contains("memory: one cycle's bodies: sendBatch "), text);
    List<String> csv =
        ReportFiles.check(
            out,
            "native-e2e",
            "engine,threads,case,no-op req/s,no-op p50 µs,no-op p99 µs,e2e msg/s,e2e cycle p50 µs,"
                + "e2e cycle p99 µs,failures,ratio to ceiling,no-op server CPU µs/req,"
                + "e2e server CPU µs/req,e2e server CPU µs/msg,sized no-op req/s,"
                + "ratio to sized ceiling,sized no-op server CPU µs/req",
            2);
    assertTrue(csv.get(0).startsWith("memory,2,memory ×2,"), csv.get(0));
  }

  @Test
  void ratio_comparesPerRequest_tenMessagesPerThreeRequests() {
    ClosedLoop.Result ceiling =
        new ClosedLoop.Result("memory", "noop", 1, 300, 300, 0, 0, 1.0, 1, 1);
    ClosedLoop.Result e2e = new ClosedLoop.Result("memory", "e2e", 1, 50, 150, 500, 0, 1.0, 1, 1);
    assertEquals(0.5, NativeApiBench.ratio(e2e, ceiling), 1e-9);
  }

  @Test
  void noopBody_isTheCyclesMeanRequestSize() {
    int mean = NativeApiBench.meanRequestBytes();
    assertTrue(mean > 300 && mean < 1000, "mean request body " + mean);
  }
}
