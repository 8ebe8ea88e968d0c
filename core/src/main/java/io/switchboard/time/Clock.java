package io.switchboard.time;

/**
 * The clock every timer in Switchboard reads and waits on: visibility, delay, retention,
 * deduplication windows, long polls and routing timers. It is a {@link TimeSource} (reading time)
 * and a {@link Scheduler} (waiting for it, running periodic and timed work) of the same time: the
 * two come together because work driven by a manual clock must run on that clock's advances.
 * Production uses {@link #system()}; tests use {@link ManualClock} and advance it, so no test ever
 * sleeps.
 */
public interface Clock extends TimeSource, Scheduler {

  /** The wall clock, made monotonic, with threads that park in real time. */
  static Clock system() {
    return SystemClock.INSTANCE;
  }
}
