package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.QueueEngine;
import io.switchboard.tck.model.QueueEngineModelTest;
import io.switchboard.time.ManualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The model-based randomized test on a store that keeps the order index, with a hot window of 4
 * messages per queue (docs/design.md, "A backlog bigger than memory"): a standard queue keeps at
 * most 8 available messages in the heap and the rest in the store only, and the engine must agree
 * with the model as with every message in the heap. 8 seeds × 500 operations. The standard queues
 * index the attributes the filters read and the filters are selectors where they can be, so a
 * filtered receive reads the attribute partitions' windows (docs/design.md, "The hot window of
 * attribute partitions").
 */
class SmallWindowRocksModelTest extends QueueEngineModelTest {

  @TempDir static Path root;

  private static final List<String> mismatches = new CopyOnWriteArrayList<>();

  @AfterAll
  static void everyIndexMatchedItsMessages() {
    assertEquals(List.of(), List.copyOf(mismatches));
  }

  @Override
  protected QueueEngine newEngine(ManualClock clock) {
    try {
      Path dir = Files.createTempDirectory(root, "window-model");
      return QueueEngine.builder()
          .clock(clock)
          .journal(CheckedJournal.open(dir, Durability.none(), mismatches))
          .hotWindow(4)
          .build();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected int defaultSeeds() {
    return 8;
  }

  /** Filtered receives are selectors over indexed attributes: the partitions' windows answer. */
  @Override
  protected boolean indexedSelectors() {
    return true;
  }
}
