package io.switchboard.tck.stress;

import io.switchboard.queue.QueueEngine;

/** The concurrency stress test against the in-memory engine. */
class MemoryQueueEngineStressTest extends QueueEngineStressTest {

  @Override
  protected QueueEngine newEngine() {
    return QueueEngine.inMemory();
  }
}
