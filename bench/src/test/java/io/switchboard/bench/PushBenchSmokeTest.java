package io.switchboard.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.Report;
import org.junit.jupiter.api.Test;

/** Runs {@link PushBench} tiny (a server in a child JVM, a receiver here) so it keeps running. */
class PushBenchSmokeTest {

  @Test
  void pushBench_tiny_reportsThroughputAndTheSeedScenario() throws Exception {
    Report r = PushBench.run(300, 8, 100, 2);
    assertEquals(11, r.rows().size(), "every figure has its row");
    assertEquals(1, ((Number) value(r, "seed 002: most requests at once")).intValue());
    assertTrue(((Number) value(r, "seed 002: deliveries")).intValue() > 0);
    assertEquals(0, ((Number) value(r, "seed 002: tasks delivered twice")).intValue());
  }

  private static Object value(Report r, String figure) {
    return r.rows().stream().filter(row -> row[0].equals(figure)).findFirst().orElseThrow()[1];
  }
}
