package io.switchboard.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.Report;
import org.junit.jupiter.api.Test;

/**
 * Runs {@link PushBench} tiny (a server in a child JVM, a receiver here) so it keeps running: 150
 * messages, a 1 s seed-002 phase and a 2 s outage (the entry's own is 10 s): what it checks is that
 * every part runs and reports, and holds its plain outcomes (nothing lost, backed off while down,
 * the rate within its limit after), not a figure.
 */
class PushBenchSmokeTest {

  @Test
  void pushBench_tiny_reportsThroughputTheSeedScenarioAndAnOutage() throws Exception {
    Report r = PushBench.run(150, 8, 100, 1, 2);
    assertEquals(18, r.rows().size(), "every figure has its row");
    assertEquals(1, ((Number) value(r, "seed 002: most requests at once")).intValue());
    assertTrue(((Number) value(r, "seed 002: deliveries")).intValue() > 0);
    assertEquals(0, ((Number) value(r, "seed 002: tasks delivered twice")).intValue());
    // the receiver down (503) for 2 s, then healthy: nothing lost, the rate within its limit
    assertEquals("150 / 150", value(r, "503 for 2 s: messages sent / delivered"));
    assertEquals(0L, ((Number) value(r, "503 for 2 s: left in the queue")).longValue());
    assertTrue(((Number) value(r, "503 for 2 s: requests refused while down")).longValue() > 0);
    assertTrue(
        ((Number) value(r, "503 for 2 s: requests refused while down")).longValue() < 20,
        "backed off while down, not 50 a second");
    // 50/s and a burst of 5 as the server starts them; counted where they arrive, a loaded machine
    // bunches a few together (the exact limit is PushDeliveryTest's, on the manual clock)
    assertTrue(
        ((Number) value(r, "503 for 2 s: most deliveries in any 1 s after")).intValue() <= 65);
  }

  private static Object value(Report r, String figure) {
    return r.rows().stream().filter(row -> row[0].equals(figure)).findFirst().orElseThrow()[1];
  }
}
