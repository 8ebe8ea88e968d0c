package io.switchboard.storage.dynamodb;

import io.switchboard.queue.QueueEngine;
import io.switchboard.tck.model.QueueEngineModelTest;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The model-based randomized test on DynamoDB (moto, one request at a time), each seed on a table
 * of its own: 2 seeds of 210 steps by default, since every step is several requests and a check of
 * every queue reads each back. So a step compares the queues it touched, and every queue only after
 * the clock moved, every {@value #FULL_CHECK_EVERY} steps and at the end (a disagreement no step's
 * queue shows stays until then: counters only grow, contents stay until an operation changes them).
 * The two seeds' first 210 steps hold the two disagreements the test found (seed 1 step 173, seed 2
 * step 204); raise with -Dswitchboard.model.seeds and -Dswitchboard.model.steps (500 is the other
 * engines' default), compare everything after every step with -Dswitchboard.model.fullCheckEvery=1,
 * or rerun one seed with -Dswitchboard.model.seed=N. Its queues have one shard (the layout without
 * shards; the contract test runs on 3); -Dswitchboard.dynamodb.shards=N runs it on N.
 */
@ExtendWith(Moto.class)
class DynamoQueueEngineModelTest extends QueueEngineModelTest {

  private static final int FULL_CHECK_EVERY = 10;

  @Override
  protected QueueEngine newEngine(ManualClock clock) {
    return DynamoQueueEngine.builder()
        .client(Moto.client())
        .tablePrefix(Moto.prefix())
        .clock(clock)
        .pollInterval(Duration.ofMillis(10))
        .sweepInterval(Duration.ofMinutes(1))
        .shards(Integer.getInteger("switchboard.dynamodb.shards", 1))
        .build();
  }

  @Override
  protected int defaultSeeds() {
    return 2;
  }

  @Override
  protected int defaultSteps() {
    return 210;
  }

  @Override
  protected int fullCheckEvery() {
    return FULL_CHECK_EVERY;
  }
}
