package io.switchboard.tck;

import io.switchboard.queue.QueueEngine;
import io.switchboard.time.ManualClock;

/** The in-memory engine against the whole contract. */
class MemoryEngineContractTest extends QueueEngineContract {

  @Override
  protected QueueEngine newEngine(ManualClock clock) {
    return QueueEngine.builder().clock(clock).build();
  }

  @Override
  protected QueueEngine newEngine(ManualClock clock, int maxQueues) {
    return QueueEngine.builder().clock(clock).maxQueues(maxQueues).build();
  }
}
