package io.switchboard.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClosedLoopTest {

  /**
   * Regression: on a loaded machine (load 15 on 2 cores) every cycle outlasted the smoke test's
   * window and the run failed with "no cycle completed in the measurement window". A window shorter
   * than any cycle now still measures one cycle per thread.
   */
  @Test
  void windowShorterThanACycle_stillMeasuresOneCyclePerThread() throws Exception {
    ClosedLoop.Result r =
        ClosedLoop.measure(
            Duration.ZERO,
            Duration.ofNanos(1),
            "test",
            "slow",
            3,
            thread -> () -> new long[] {2, 1, 0});

    assertEquals(3, r.cycles(), "one measured cycle per thread");
    assertEquals(3, r.requests());
    assertEquals(6, r.messages());
    assertEquals(0, r.failures());
  }
}
