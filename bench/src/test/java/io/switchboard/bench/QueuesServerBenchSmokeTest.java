package io.switchboard.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.switchboard.bench.report.Report;
import org.junit.jupiter.api.Test;

/** Runs {@link QueuesServerBench} tiny (servers in child JVMs) so it keeps running. */
class QueuesServerBenchSmokeTest {

  @Test
  void queuesServerBench_tiny_reportsCreationScrapeAndRestarts() throws Exception {
    Report r = QueuesServerBench.run(1_200, 20, "-Xmx256m", "", false);
    assertEquals(1, r.rows().size(), "the many queues only");
    Object[] many = r.rows().get(0);
    assertEquals(1_200, ((Number) many[0]).intValue());
    assertFalse(many[1].toString().isEmpty(), "the creation rate");
    assertFalse(many[3].toString().isEmpty(), "the scrape's size");
    assertFalse(many[9].toString().isEmpty(), "the start after a clean stop");
    assertFalse(many[10].toString().isEmpty(), "the start after kill -9");
  }
}
