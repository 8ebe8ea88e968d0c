package io.switchboard.storage.rocksdb;

import io.switchboard.tck.routing.JournalStore;
import io.switchboard.tck.routing.RouterContract;
import io.switchboard.testing.TempDirs;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The router on the RocksDB store (sync mode) against the routing contract. */
class RocksRouterContractTest extends RouterContract {

  @TempDir static Path root;

  @Override
  protected JournalStore newStore() {
    Path dir = TempDirs.newDirectory(root, "routing");
    return clock -> RocksRouterJournal.open(dir, Durability.sync());
  }
}
