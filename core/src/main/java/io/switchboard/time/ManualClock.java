package io.switchboard.time;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A clock that moves only when told to. Every advance runs the registered listeners on the
 * advancing thread, after the time has changed, so by the time {@link #advance} returns every timer
 * that fell due has fired and every long poll whose deadline passed has returned. Work scheduled on
 * it ({@link #every}, {@link #timers}) is such a listener; nothing waits for it in real time.
 */
public final class ManualClock implements Clock {

  private final AtomicLong millis;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

  private ManualClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  /** A clock standing at 2030-01-01T00:00:00Z, a date that no test confuses with "now". */
  public static ManualClock create() {
    return at(Instant.parse("2030-01-01T00:00:00Z"));
  }

  public static ManualClock at(Instant start) {
    return new ManualClock(start.toEpochMilli());
  }

  @Override
  public long millis() {
    return millis.get();
  }

  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  /** Moves the clock forward and fires whatever fell due. */
  public void advance(Duration step) {
    if (step.isNegative()) {
      throw new IllegalArgumentException("a clock never goes back; step was " + step);
    }
    millis.addAndGet(step.toMillis());
    listeners.forEach(Runnable::run);
  }

  public void advanceMillis(long stepMillis) {
    advance(Duration.ofMillis(stepMillis));
  }

  public void advanceSeconds(long stepSeconds) {
    advance(Duration.ofSeconds(stepSeconds));
  }

  @Override
  public boolean manual() {
    return true;
  }

  @Override
  public long parkNanosUntil(long deadlineMillis) {
    return deadlineMillis <= millis.get() ? 0 : Long.MAX_VALUE;
  }

  /** Runs {@code task} after every advance; the interval is real time, which this clock ignores. */
  @Override
  public Repeating every(String threadName, Duration interval, Runnable task) {
    return onAdvance(task);
  }

  /** Runs {@code fireDue} after every advance; what it returns is not needed. */
  @Override
  public Repeating timers(String threadName, LongSupplier fireDue) {
    return onAdvance(
        () -> {
          var unused = fireDue.getAsLong();
        });
  }

  /**
   * Runs {@code listener} after every advance, on the advancing thread, until the returned handle
   * is closed.
   */
  public Repeating onAdvance(Runnable listener) {
    Runnable entry = () -> listener.run(); // its own identity, for the removal below
    listeners.add(entry);
    return new Repeating() {
      @Override
      public void wakeBy(long dueMillis) {}

      @Override
      public void close() {
        listeners.remove(entry);
      }
    };
  }
}
