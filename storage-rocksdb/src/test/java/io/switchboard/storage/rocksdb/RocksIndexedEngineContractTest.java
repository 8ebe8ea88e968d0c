package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * The whole contract against a store that keeps the order index (docs/design.md, "A backlog bigger
 * than memory"), durability none to keep the run short. Every journal is checked when it closes (at
 * each restart and at the end of each case): the index must hold exactly the keys its stored
 * messages call for, so every path of the contract (sends, leases, timers, moves, purges, restarts)
 * is checked to keep it right.
 */
class RocksIndexedEngineContractTest extends JournaledEngineContract<Path> {

  @TempDir static Path root;

  private static final List<String> mismatches = new CopyOnWriteArrayList<>();

  @AfterAll
  static void everyIndexMatchedItsMessages() {
    assertEquals(List.of(), List.copyOf(mismatches));
  }

  @Override
  protected Path newStore() {
    try {
      return Files.createTempDirectory(root, "indexed");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected Journal openJournal(Path dir) {
    return CheckedJournal.open(dir, Durability.none(), mismatches);
  }
}
