package io.switchboard.storage.rocksdb;

import io.switchboard.queue.QueueEngine;
import io.switchboard.tck.QueueEngineContract;
import io.switchboard.time.ManualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.io.TempDir;

/** The durable engine (RocksDB, sync mode) against the whole contract, restarts included. */
class RocksEngineContractTest extends QueueEngineContract {

  @TempDir static Path root;

  private record Storage(Path dir, ManualClock clock, int maxQueues) {}

  private final Map<QueueEngine, Storage> storage = new ConcurrentHashMap<>();

  @Override
  protected QueueEngine newEngine(ManualClock clock) {
    return newEngine(clock, 10_000);
  }

  @Override
  protected QueueEngine newEngine(ManualClock clock, int maxQueues) {
    try {
      return open(new Storage(Files.createTempDirectory(root, "engine"), clock, maxQueues));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected QueueEngine restart(QueueEngine engine) {
    Storage s = storage.remove(engine);
    engine.close();
    return open(s);
  }

  private QueueEngine open(Storage s) {
    QueueEngine e =
        QueueEngine.builder()
            .clock(s.clock())
            .maxQueues(s.maxQueues())
            .journal(RocksJournal.open(s.dir(), Durability.sync()))
            .build();
    storage.put(e, s);
    return e;
  }
}
