package io.switchboard.bench.durable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.bench.report.Report;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs {@link ChurnBench} tiny (a server in a child JVM, seconds of churn) so it keeps running. */
class ChurnBenchSmokeTest {

  @Test
  void churnBench_tiny_reportsTheFillAndASample(@TempDir Path dir) throws Exception {
    Report r = ChurnBench.run(300, 100, 0.05, 1, 64, "256m", dir);
    assertTrue(r.rows().size() >= 2, "the fill and at least one sample: " + r.rows().size());
    assertEquals(
        300L, ((Number) r.rows().get(0)[3]).longValue(), "the backlog waits after the fill");
    for (Object[] row : r.rows()) {
      assertTrue(((Number) row[5]).longValue() > 0, "disk bytes per waiting message");
    }
  }
}
