package io.switchboard.tck.model;

import io.switchboard.queue.QueueEngine;
import io.switchboard.time.ManualClock;

/** The model-based randomized test against the in-memory engine. */
class MemoryQueueEngineModelTest extends QueueEngineModelTest {

  @Override
  protected QueueEngine newEngine(ManualClock clock) {
    return QueueEngine.builder().clock(clock).build();
  }
}
