package io.switchboard.time;

/**
 * Reads the time (Caffeine's {@code Ticker}, with a wall-clock reading beside the monotonic one).
 * Code that only needs "now" — a filter over a message's age, a signature's validity window, a
 * scan's time budget — takes a {@code TimeSource}; code that waits for time takes a {@link Clock},
 * which is also a {@link Scheduler}.
 */
public interface TimeSource {

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
   * Whether this time moves only when told to (a test's {@link ManualClock}), never by itself. The
   * one way to ask: code does not compare against {@link #system()} or test for a class. Code
   * rarely needs to ask, since a {@link Scheduler} already waits and repeats work the right way for
   * either kind.
   */
  boolean manual();

  /** The wall clock, made monotonic. */
  static TimeSource system() {
    return SystemClock.INSTANCE;
  }
}
