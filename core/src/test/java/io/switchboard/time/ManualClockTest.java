package io.switchboard.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ManualClockTest {

  @Test
  void advance_movesTimeAndRunsListenersAfterTheMove() {
    ManualClock clock = ManualClock.create();
    long start = clock.millis();
    AtomicInteger seenAt = new AtomicInteger(-1);
    clock.onAdvance(() -> seenAt.set((int) (clock.millis() - start)));

    clock.advance(Duration.ofMillis(1500));

    assertEquals(start + 1500, clock.millis());
    assertEquals(1500, seenAt.get());
  }

  @Test
  void advance_negativeStep_isRefused() {
    ManualClock clock = ManualClock.create();
    assertThrows(IllegalArgumentException.class, () -> clock.advance(Duration.ofMillis(-1)));
  }

  @Test
  void parkNanosUntil_parksUntilWokenWhileDeadlineIsAhead() {
    ManualClock clock = ManualClock.create();
    assertEquals(Long.MAX_VALUE, clock.parkNanosUntil(clock.millis() + 1));
    assertEquals(0, clock.parkNanosUntil(clock.millis()));
  }

  @Test
  void systemClock_neverGoesBackwards() {
    Clock clock = Clock.system();
    long previous = clock.millis();
    for (int i = 0; i < 10_000; i++) {
      long now = clock.millis();
      assertEquals(true, now >= previous, "clock went back from " + previous + " to " + now);
      previous = now;
    }
  }

  @Test
  void systemClock_parkNanosUntilFarDeadline_saturatesInsteadOfOverflowing() {
    Clock clock = Clock.system();
    assertEquals(Long.MAX_VALUE, clock.parkNanosUntil(Long.MAX_VALUE));
    assertEquals(0, clock.parkNanosUntil(clock.millis() - 1));
    long oneSecond = clock.parkNanosUntil(clock.millis() + 1000);
    assertEquals(true, oneSecond > 0 && oneSecond <= 1_000_000_000L, "got " + oneSecond);
  }
}
