package io.switchboard.bench.durable;

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
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the durability benchmark for about a second so it cannot rot: no warm-up, 100 ms per (mode,
 * producers) pair, recovery of 2000 messages; then writes both reports. Checks only that every
 * figure is there and sane; the real figures are in {@code docs/storage.md}.
 */
class DurableSendBenchTest {

  @TempDir Path dir;
  @TempDir Path out;

  @Test
  void smoke_everyModeAndProducerCountScores_andBothReportsAreWritten() throws Exception {
    DurableSendBench.Report report =
        DurableSendBench.run(
            new DurableSendBench.Options(
                Duration.ZERO,
                Duration.ofMillis(100),
                List.of(1, 8),
                List.of("sync", "batch", "none"),
                2_000,
                dir));
    assertEquals(6, report.rows().size());
    for (DurableSendBench.Row r : report.rows()) {
      assertTrue(r.sends() > 0 && r.p99Micros() >= r.p50Micros(), r.toString());
    }
    assertTrue(report.syncOverNone(8) > 0);
    assertEquals(2_000, report.recovery().messages());
    assertTrue(report.recovery().totalMillis() >= report.recovery().openMillis());

    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    DurableSendBench.report(report).write(out, RunInfo.capture("smoke"), quiet);
    List<String> rows =
        ReportFiles.check(
            out, "durable", "mode,producers,sends,msg/s,p50 send µs,p99 send µs,of none", 6);
    assertTrue(rows.get(0).startsWith("sync,1,"), rows.get(0));
    assertTrue(rows.get(5).startsWith("none,8,") && rows.get(5).endsWith(",1.0"), rows.get(5));

    RecoveryBench.report(List.of(report.recovery())).write(out, RunInfo.capture("smoke"), quiet);
    List<String> recovery =
        ReportFiles.check(
            out,
            "recovery",
            "messages,total s,RocksDB open s,engine rebuild s,store MiB,fill s",
            1);
    assertTrue(recovery.get(0).startsWith("2000,"), recovery.get(0));
  }
}
