package io.switchboard.storage.rocksdb;

import io.switchboard.queue.spi.Journal;
import io.switchboard.tck.JournaledEngineContract;
import io.switchboard.testing.TempDirs;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The durable engine (RocksDB, sync mode) against the whole contract, restarts included. */
class RocksEngineContractTest extends JournaledEngineContract<Path> {

  @TempDir static Path root;

  @Override
  protected Path newStore() {
    return TempDirs.newDirectory(root, "engine");
  }

  @Override
  protected Journal openJournal(Path dir) {
    return RocksJournal.open(dir, Durability.sync());
  }
}
