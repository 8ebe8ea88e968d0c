package io.switchboard.storage.postgres;

import io.switchboard.queue.QueueEngine;
import io.switchboard.tck.QueueEngineContract;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The whole engine contract on PostgreSQL, one shared database emptied between tests. */
class PostgresEngineContractTest extends QueueEngineContract {

  private final Map<QueueEngine, ManualClock> clocks = new ConcurrentHashMap<>();

  @Override
  protected QueueEngine newEngine(ManualClock clock) {
    return newEngine(clock, 10_000);
  }

  @Override
  protected QueueEngine newEngine(ManualClock clock, int maxQueues) {
    TestDatabase.fresh();
    return open(clock, maxQueues);
  }

  private QueueEngine open(ManualClock clock, int maxQueues) {
    QueueEngine e =
        PostgresQueueEngine.builder()
            .dataSource(TestDatabase.pool())
            .clock(clock)
            .maxQueues(maxQueues)
            .notifications(false)
            .pollInterval(Duration.ofMillis(5))
            .build();
    clocks.put(e, clock);
    return e;
  }

  /** Another engine on the same database, as a second server would be. */
  @Override
  protected QueueEngine peer(QueueEngine engine) {
    return open(clocks.get(engine), 10_000);
  }

  @Override
  protected QueueEngine restart(QueueEngine engine) {
    engine.close();
    return open(clocks.get(engine), 10_000);
  }
}
