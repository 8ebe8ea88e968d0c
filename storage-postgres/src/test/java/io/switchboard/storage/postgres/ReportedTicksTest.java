package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Regression (docs/operations.md, "Limits"): PostgreSQL housekeeping caught only {@code
 * RuntimeException}s, silently: a failing database went unreported, and an {@code Error} was not
 * told apart. Now every failure is the engine's problem (for {@code /health}) until a tick
 * succeeds; an exception keeps the thread ticking, an {@code Error} is rethrown so that the thread
 * ends and is noticed.
 */
class ReportedTicksTest {

  private final Deque<Throwable> failures = new ArrayDeque<>();
  private final ReportedTicks ticks =
      new ReportedTicks(
          "housekeeping",
          () -> {
            Throwable t = failures.poll();
            if (t instanceof RuntimeException e) {
              throw e;
            }
            if (t instanceof Error e) {
              throw e;
            }
          });

  @Test
  void housekeepingCatchingOnlyRuntimeException_failureIsReported_andTheNextTickClearsIt() {
    failures.add(new IllegalStateException("database unreachable"));

    assertDoesNotThrow(ticks::run); // the thread goes on
    assertEquals(
        Optional.of("housekeeping failing: IllegalStateException; see the log"), ticks.problem());

    ticks.run();
    assertEquals(Optional.empty(), ticks.problem());
  }

  @Test
  void housekeepingCatchingOnlyRuntimeException_anErrorIsReported_andEndsTheThread() {
    failures.add(new StackOverflowError("deep"));

    assertThrows(StackOverflowError.class, ticks::run);
    assertTrue(ticks.problem().orElseThrow().contains("StackOverflowError"), ticks.problem()::get);
  }
}
