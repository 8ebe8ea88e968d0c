package io.switchboard.bench.durable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the durability benchmark for about a second so it cannot rot: no warm-up, 100 ms per (mode,
 * producers) pair, recovery of 2000 messages. Checks only that every figure is there and positive;
 * the real figures are in {@code docs/storage.md}.
 */
class DurableSendBenchTest {

  @TempDir Path dir;

  @Test
  void smoke_everyModeAndProducerCountScores() {
    DurableSendBench.Report report =
        DurableSendBench.run(
            new DurableSendBench.Options(
                Duration.ZERO, Duration.ofMillis(100), List.of(1, 8), 2_000, dir));
    System.out.println(DurableSendBench.format(report));
    assertEquals(4, report.rows().size());
    for (DurableSendBench.Row r : report.rows()) {
      assertTrue(r.sends() > 0 && r.p99Micros() >= r.p50Micros(), r.toString());
    }
    assertTrue(report.syncOverNone(8) > 0);
    assertEquals(2_000, report.recovery().messages());
    assertTrue(report.recovery().totalMillis() >= report.recovery().openMillis());
  }
}
