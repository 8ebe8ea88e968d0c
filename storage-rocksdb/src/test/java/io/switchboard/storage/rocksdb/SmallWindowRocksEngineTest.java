package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.spi.Journal;
import io.switchboard.tck.JournaledEngineContract;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole contract on a store that keeps the order index, with a hot window of 4 messages per
 * queue (docs/design.md, "A backlog bigger than memory"): a standard queue holding more than 8
 * available messages keeps the rest only in the store, so sends, receives, by-id changes, expiry,
 * shedding, purges, moves and restarts all cross between the heap and the store. Every journal is
 * checked at close (the index against the stored messages), as in {@link
 * RocksIndexedEngineContractTest}.
 */
class SmallWindowRocksEngineTest extends JournaledEngineContract<Path> {

  @TempDir static Path root;

  private static final List<String> mismatches = new CopyOnWriteArrayList<>();

  @AfterAll
  static void everyIndexMatchedItsMessages() {
    assertEquals(List.of(), List.copyOf(mismatches));
  }

  @Override
  protected Path newStore() {
    try {
      return Files.createTempDirectory(root, "window");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected Journal openJournal(Path dir) {
    return CheckedJournal.open(dir, Durability.none(), mismatches);
  }

  @Override
  protected QueueEngine.Builder configure(QueueEngine.Builder builder) {
    return builder.hotWindow(4);
  }
}
