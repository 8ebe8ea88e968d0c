package io.switchboard.storage.rocksdb;

import io.switchboard.tck.routing.JournalStore;
import io.switchboard.tck.routing.RouterJournalContract;
import io.switchboard.testing.TempDirs;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The RocksDB router store (sync mode) against the journal contract. */
class RocksRouterJournalContractTest extends RouterJournalContract {

  @TempDir static Path root;

  @Override
  protected JournalStore newStore() {
    Path dir = TempDirs.newDirectory(root, "routing");
    return clock -> RocksRouterJournal.open(dir, Durability.sync());
  }
}
