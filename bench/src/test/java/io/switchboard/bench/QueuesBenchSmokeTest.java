package io.switchboard.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.switchboard.bench.report.Report;
import org.junit.jupiter.api.Test;

/** Runs {@link QueuesBench} tiny (no PostgreSQL), so that it keeps compiling and running. */
class QueuesBenchSmokeTest {

  @Test
  void queuesBench_tiny_reportsEachEngineAtBothScales() throws Exception {
    Report r = QueuesBench.run(300, 0, 50, java.util.List.of("memory", "rocksdb"));
    assertEquals(4, r.rows().size(), "memory and RocksDB, 10 queues and many");
    assertEquals("memory", r.rows().get(2)[0]);
    assertEquals(300, ((Number) r.rows().get(2)[1]).intValue());
    assertFalse(r.rows().get(3)[8].toString().isEmpty(), "RocksDB's reopen time");
    assertFalse(r.rows().get(3)[11].toString().isEmpty(), "the heap per queue after the reopen");
  }
}
