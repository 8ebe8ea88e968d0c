package io.switchboard.bench.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/** Runs the filtered-receive benchmark end to end on tiny queues, both systems, a few samples. */
class FilteredReceiveBenchSmokeTest {

  @TempDir Path out;

  @Test
  @Timeout(60)
  void runsBothSystemsAtTinyDepths() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    FilteredReceiveBench.Options o =
        new FilteredReceiveBench.Options(
            List.of(1_000, 2_000),
            8,
            2,
            2_000,
            5,
            1,
            "backlog",
            List.of("switchboard", "artemis", "artemis-long-lived"),
            42,
            out,
            new PrintStream(printed, true, StandardCharsets.UTF_8));

    List<FilteredReceiveBench.Row> rows = FilteredReceiveBench.run(o);

    assertEquals(6, rows.size());
    for (FilteredReceiveBench.Row r : rows) {
      Latencies l = r.latencies();
      boolean large = !r.system().equals("switchboard") && r.depth() >= 2_000;
      assertEquals(large ? 5 : 8, l.samples(), r.toString());
      assertTrue(l.min() > 0 && l.p50() > 0 && l.p99() >= l.p50() && l.mean() > 0, r.toString());
      assertTrue(r.matchFraction() > 0 && r.matchFraction() < 0.01, r.toString());
    }
    String text = printed.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("switchboard p50(2,000)/p50(1,000)"), text);
    assertTrue(text.contains("artemis/switchboard p50 at 2,000"), text);

    FilteredReceiveBench.report(o, rows)
        .write(
            out, RunInfo.capture("smoke"), new PrintStream(printed, true, StandardCharsets.UTF_8));
    List<String> lines =
        ReportFiles.check(
            out,
            "filtered",
            "depth,layout,system,match fraction,ahead of first match,samples,p50 µs,p99 µs,mean µs,"
                + "min µs,max µs,fill s,p50 ÷ Switchboard p50",
            6);
    assertTrue(lines.get(0).startsWith("1000,backlog,switchboard,"), lines.get(0));
  }

  @Test
  void percentilesAreNearestRank() {
    Latencies l = Latencies.of(new long[] {5, 1, 4, 2, 3, 6, 7, 8, 9, 10});
    assertEquals(5, l.p50());
    assertEquals(10, l.p99());
    assertEquals(5.5, l.mean());
    assertEquals(1, l.min());
    assertEquals(10, l.max());
  }

  @Test
  void workloadMatchesAboutOnePerThousand() {
    List<Workload.Msg> data = new Workload(42).generate(200_000);
    double fraction = data.stream().filter(Workload.Msg::matches).count() / 200_000.0;
    assertTrue(fraction > 0.0008 && fraction < 0.0012, "fraction " + fraction);
    assertTrue(new Workload(7).nextMatching().matches());
  }
}
