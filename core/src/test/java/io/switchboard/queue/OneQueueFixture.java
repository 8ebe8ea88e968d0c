package io.switchboard.queue;

import io.switchboard.time.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the tests of one queue's own state share: an in-memory engine on a manual clock (which runs
 * housekeeping on every advance), the queue {@link #queueName} made with the default configuration
 * before each test, the engine closed after it.
 */
abstract class OneQueueFixture {

  ManualClock clock;
  MemoryQueueEngine engine;

  /** The queue made before each test. */
  abstract String queueName();

  @BeforeEach
  final void openEngine() {
    clock = ManualClock.create();
    engine = (MemoryQueueEngine) QueueEngine.builder().clock(clock).build();
    engine.createQueue(queueName(), QueueConfig.defaults());
  }

  @AfterEach
  final void closeEngine() {
    engine.close();
  }

  /** The queue under test, as the engine holds it. */
  LocalQueue queue() {
    return engine.require(queueName());
  }
}
