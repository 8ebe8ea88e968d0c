package io.switchboard.storage.rocksdb;

import io.switchboard.queue.QueueEngine;
import io.switchboard.tck.model.QueueEngineModelTest;
import io.switchboard.testing.TempDirs;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The model-based randomized test against the durable engine: every operation also goes through the
 * journal and RocksDB (durability none, to keep the run short; the write path is the same). Fewer
 * seeds than the in-memory run: 20 × 500 operations.
 */
class RocksQueueEngineModelTest extends QueueEngineModelTest {

  @TempDir static Path root;

  @Override
  protected QueueEngine newEngine(ManualClock clock) {
    Path dir = TempDirs.newDirectory(root, "model");
    return QueueEngine.builder()
        .clock(clock)
        .journal(RocksJournal.open(dir, Durability.none()))
        .build();
  }

  @Override
  protected int defaultSeeds() {
    return 20;
  }
}
