package io.switchboard.storage.postgres;

import io.switchboard.queue.QueueEngine;
import io.switchboard.tck.model.QueueEngineModelTest;
import io.switchboard.time.ManualClock;
import java.time.Duration;

/**
 * The model-based randomized test on PostgreSQL: 3 seeds by default (each step is several
 * transactions; raise with -Dswitchboard.model.seeds).
 */
class PostgresQueueEngineModelTest extends QueueEngineModelTest {

  @Override
  protected QueueEngine newEngine(ManualClock clock) {
    return PostgresQueueEngine.builder()
        .dataSource(TestDatabase.fresh())
        .clock(clock)
        .notifications(false)
        .pollInterval(Duration.ofMillis(5))
        .build();
  }

  @Override
  protected int defaultSeeds() {
    return 3;
  }
}
