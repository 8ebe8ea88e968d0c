package io.switchboard.time;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Waits for time and runs work when it falls due (Caffeine's {@code Scheduler}). Time that moves by
 * itself is waited for on threads that park in real time; manual time is never waited for: work
 * runs on the thread that advances the clock, after the advance, so when {@link
 * ManualClock#advance} returns every timer that fell due has fired and no test sleeps.
 *
 * <p>Clock times are epoch milliseconds of the same clock's {@link TimeSource#millis}.
 */
public interface Scheduler {

  /**
   * Real nanoseconds a thread may park before the clock can reach {@code deadlineMillis}: 0 once it
   * has, {@code Long.MAX_VALUE} when only an explicit advance can move the clock (the waiter is
   * woken by whoever advances it, through work started with {@link #every} or {@link #timers}).
   */
  long parkNanosUntil(long deadlineMillis);

  /**
   * Runs {@code task} periodically until the returned handle is closed: on time that moves by
   * itself, from a daemon thread named {@code threadName}, once per {@code interval} of real time,
   * the first an interval from now (a run that throws goes to the thread's uncaught-exception
   * handler and the next run comes on time); on manual time, after every advance, on the advancing
   * thread (a run that throws fails the advance).
   */
  Repeating every(String threadName, Duration interval, Runnable task);

  /**
   * Drives timers whose due times the owner keeps, until the returned handle is closed. {@code
   * fireDue} fires what fell due and returns when the next timer falls due ({@code Long.MAX_VALUE}
   * if none). On time that moves by itself a daemon thread named {@code threadName} runs it now and
   * then again at the time it returned, or sooner when {@link Repeating#wakeBy} names an earlier
   * time; it parks at most a minute at once, so a step of the wall clock delays a timer by at most
   * that. On manual time it runs after every advance, on the advancing thread.
   */
  Repeating timers(String threadName, LongSupplier fireDue);

  /** Work started by a scheduler. */
  interface Repeating extends AutoCloseable {

    /**
     * The work must run again by {@code dueMillis} (a timer was added that falls due before the
     * time the work last asked for). Nothing to do on manual time, where every advance runs it.
     */
    void wakeBy(long dueMillis);

    /** Stops the work; a run in progress finishes. Idempotent. */
    @Override
    void close();
  }
}
