package io.switchboard.tck;

import io.switchboard.queue.QueueEngine;
import io.switchboard.time.ManualClock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-memory engine writing to the reference {@link MemoryJournal}, against the whole contract
 * including restarts: every contract test also exercises the engine's journaling, and restarts test
 * recovery without a disk.
 */
class JournaledEngineContractTest extends QueueEngineContract {

  private record Storage(MemoryJournal journal, ManualClock clock, int maxQueues) {}

  private final Map<QueueEngine, Storage> storage = new ConcurrentHashMap<>();

  @Override
  protected QueueEngine newEngine(ManualClock clock) {
    return newEngine(clock, 10_000);
  }

  @Override
  protected QueueEngine newEngine(ManualClock clock, int maxQueues) {
    return open(new Storage(new MemoryJournal(), clock, maxQueues));
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
            .journal(s.journal())
            .build();
    storage.put(e, s);
    return e;
  }
}
