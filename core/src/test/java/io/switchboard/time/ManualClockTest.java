package io.switchboard.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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

  @Test
  void manual_isTheOneWayToAskWhetherTimeMovesByItself() {
    assertTrue(ManualClock.create().manual());
    assertFalse(Clock.system().manual());
    assertFalse(TimeSource.system().manual());
  }

  @Test
  void every_onManualTime_runsAfterEveryAdvanceUntilClosed() {
    ManualClock clock = ManualClock.create();
    AtomicInteger runs = new AtomicInteger();
    Scheduler.Repeating work = clock.every("unused", Duration.ofHours(1), runs::incrementAndGet);

    clock.advanceMillis(1);
    clock.advanceMillis(1);
    work.close();
    clock.advanceMillis(1);

    assertEquals(2, runs.get());
  }

  @Test
  void every_onManualTime_aRunThatThrowsFailsTheAdvance() {
    ManualClock clock = ManualClock.create();
    clock.every(
        "unused",
        Duration.ofMillis(1),
        () -> {
          throw new IllegalStateException("housekeeping broke");
        });

    assertThrows(IllegalStateException.class, () -> clock.advanceMillis(1));
  }

  @Test
  void timers_onManualTime_fireAfterEveryAdvanceUntilClosed() {
    ManualClock clock = ManualClock.create();
    long due = clock.millis() + 1000;
    AtomicInteger fired = new AtomicInteger();
    Scheduler.Repeating timers =
        clock.timers(
            "unused",
            () -> {
              if (clock.millis() >= due) {
                fired.incrementAndGet();
              }
              return due;
            });

    clock.advanceMillis(999);
    assertEquals(0, fired.get());
    clock.advanceMillis(1);
    assertEquals(1, fired.get());
    timers.close();
    clock.advanceMillis(1);
    assertEquals(1, fired.get());
  }

  @Test
  void systemClock_every_runsOnItsOwnThread() throws InterruptedException {
    CountDownLatch runs = new CountDownLatch(2);
    AtomicInteger otherThread = new AtomicInteger();
    Thread caller = Thread.currentThread();
    try (Scheduler.Repeating work =
        Clock.system()
            .every(
                "switchboard-test-every",
                Duration.ofMillis(1),
                () -> {
                  if (Thread.currentThread() != caller) {
                    otherThread.incrementAndGet();
                  }
                  runs.countDown();
                })) {
      assertTrue(runs.await(30, TimeUnit.SECONDS), "two runs of a 1 ms task");
    }
    assertTrue(otherThread.get() >= 2);
  }

  @Test
  void systemClock_timers_wakeByAnEarlierTimeWakesTheParkedThread() throws InterruptedException {
    CountDownLatch runs = new CountDownLatch(2);
    // The first run says "nothing due": the thread parks a minute, unless woken.
    try (Scheduler.Repeating timers =
        Clock.system()
            .timers(
                "switchboard-test-timers",
                () -> {
                  runs.countDown();
                  return Long.MAX_VALUE;
                })) {
      while (runs.getCount() == 2) {
        Thread.onSpinWait();
      }
      timers.wakeBy(Clock.system().millis());
      assertTrue(runs.await(30, TimeUnit.SECONDS), "woken long before the minute's park ends");
    }
  }
}
