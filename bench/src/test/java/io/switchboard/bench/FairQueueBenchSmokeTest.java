package io.switchboard.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Runs {@link FairQueueBench} tiny, so that it keeps compiling and running. */
class FairQueueBenchSmokeTest {

  @Test
  void fairQueueBench_tiny_measuresEveryQuietMessage() throws Exception {
    long[] dwell =
        FairQueueBench.run(new FairQueueBench.Scenario("tiny", 100, true), 3, 2, 2, 0, 10);
    assertEquals(6, dwell.length);
    for (int i = 1; i < dwell.length; i++) {
      assertTrue(dwell[i - 1] <= dwell[i], "sorted");
    }
    assertTrue(dwell[0] >= 0);
  }
}
