package io.switchboard.time;

/**
 * The time source every timer in Switchboard reads: visibility, delay, retention, deduplication
 * windows and (later) reservations. Production uses {@link #system()}; tests use {@link
 * ManualClock} and advance it, so no test ever sleeps.
 *
 * <p>Besides reading the time, a clock tells blocked threads how long to park in real time before
 * the clock can reach a deadline. The system clock answers with the real distance; a manual clock
 * answers "until woken", and wakes everybody through {@link #onAdvance} listeners instead.
 */
public interface Clock {

  /** Milliseconds since the epoch. Never decreases. */
  long millis();

  /**
   * A monotonic reading in nanoseconds, for measuring how long work takes (the budget of a scan
   * under a queue's lock), not for timers. By default {@link System#nanoTime}, also for a manual
   * clock: work takes real time whatever the clock says; a test that wants to steer a time budget
   * supplies its own.
   */
  default long nanoTime() {
    return System.nanoTime();
  }

  /**
   * Real nanoseconds a thread may park before this clock can reach {@code deadlineMillis}; {@code
   * Long.MAX_VALUE} when only an explicit advance can move the clock.
   */
  long parkNanosUntil(long deadlineMillis);

  /**
   * Registers a listener run after every jump of a manual clock. The system clock never jumps, so
   * it ignores listeners.
   */
  void onAdvance(Runnable listener);

  /** The wall clock. */
  static Clock system() {
    return SystemClock.INSTANCE;
  }
}
