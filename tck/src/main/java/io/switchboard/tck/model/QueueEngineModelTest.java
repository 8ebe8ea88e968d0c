package io.switchboard.tck.model;

import io.switchboard.queue.QueueEngine;
import io.switchboard.time.ManualClock;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Model-based randomized test: seeded random sequences of queue operations and clock advances run
 * against an engine and against {@link ReferenceQueueModel}; after every step, answers, refusals
 * (by error code), stats and the full contents of every queue must agree (of the queues the step
 * touched, between full comparisons, for an engine that compares in full less often: {@link
 * #fullCheckEvery}).
 *
 * <p>Subclass it once per engine. System properties: {@code switchboard.model.seed} reruns one seed
 * (a failure message names it), {@code switchboard.model.seeds} and {@code switchboard.model.steps}
 * change how many seeds run and how long each is, {@code switchboard.model.fullCheckEvery} how
 * often every queue is compared ({@link #fullCheckEvery}).
 */
public abstract class QueueEngineModelTest {

  private static final int DEFAULT_SEEDS = 60;
  private static final int DEFAULT_STEPS = 500;

  /** A fresh, empty engine on {@code clock}; closed by the test. */
  protected abstract QueueEngine newEngine(ManualClock clock);

  /** How many seeds a run covers unless {@code switchboard.model.seeds} says otherwise. */
  protected int defaultSeeds() {
    return DEFAULT_SEEDS;
  }

  /** How many steps a seed runs unless {@code switchboard.model.steps} says otherwise. */
  protected int defaultSteps() {
    return DEFAULT_STEPS;
  }

  /**
   * Every how many steps every queue is compared in full, unless {@code
   * switchboard.model.fullCheckEvery} says otherwise; in between, a step's check compares the
   * queues it touched (the queue it named, that queue's dead-letter target and the queues that
   * dead-letter into it), and a step that moves the clock compares them all. Default 1: every queue
   * after every step. For engines whose full comparison is slow (a store over the network).
   */
  protected int fullCheckEvery() {
    return 1;
  }

  /**
   * Whether the standard queues index the attributes the filters read, and the filters are
   * selectors where they can be (so an engine answers them from its attribute partitions).
   */
  protected boolean indexedSelectors() {
    return false;
  }

  @TestFactory
  Stream<DynamicTest> randomOperations_manySeeds_engineAgreesWithModel() {
    int steps = Integer.getInteger("switchboard.model.steps", defaultSteps());
    String one = System.getProperty("switchboard.model.seed");
    LongStream seeds =
        one != null
            ? LongStream.of(Long.parseLong(one))
            : LongStream.rangeClosed(
                1, Integer.getInteger("switchboard.model.seeds", defaultSeeds()));
    return seeds.mapToObj(
        seed -> DynamicTest.dynamicTest("seed " + seed, () -> runSeed(seed, steps)));
  }

  private void runSeed(long seed, int steps) {
    ManualClock clock = ManualClock.create();
    try (QueueEngine engine = newEngine(clock)) {
      new ModelRun(seed, clock, engine, indexedSelectors())
          .run(steps, Integer.getInteger("switchboard.model.fullCheckEvery", fullCheckEvery()));
    }
  }
}
