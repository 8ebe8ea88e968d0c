package io.switchboard.time;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Wall-clock time, made monotonic: a step backwards of the system clock is not passed on. Work it
 * schedules runs on daemon threads, one per {@link #every} or {@link #timers} call.
 */
enum SystemClock implements Clock {
  INSTANCE;

  private static final long NANOS_PER_MILLI = 1_000_000L;

  /** The longest a timer thread parks at once, so a step of the wall clock delays it by this. */
  private static final long MAX_TIMER_PARK_NANOS = Duration.ofMinutes(1).toNanos();

  private final AtomicLong last = new AtomicLong();

  @Override
  public long millis() {
    long now = System.currentTimeMillis();
    long prev = last.get();
    if (now > prev) {
      last.compareAndSet(prev, now);
      return now;
    }
    return prev;
  }

  @Override
  public boolean manual() {
    return false;
  }

  @Override
  public long parkNanosUntil(long deadlineMillis) {
    long remaining = deadlineMillis - millis();
    if (remaining <= 0) {
      return 0;
    }
    // Long.MAX_VALUE ("no deadline") and other far deadlines saturate instead of overflowing.
    return remaining >= Long.MAX_VALUE / NANOS_PER_MILLI
        ? Long.MAX_VALUE
        : remaining * NANOS_PER_MILLI;
  }

  @Override
  public Repeating every(String threadName, Duration interval, Runnable task) {
    long nanos = interval.toNanos();
    return start(
        threadName,
        self -> {
          while (!self.closed) {
            LockSupport.parkNanos(self, nanos);
            if (!self.closed) {
              runReporting(task);
            }
          }
        });
  }

  @Override
  public Repeating timers(String threadName, LongSupplier fireDue) {
    return start(
        threadName,
        self -> {
          while (!self.closed) {
            long next;
            try {
              next = fireDue.getAsLong();
            } catch (RuntimeException e) {
              report(e);
              next = Long.MAX_VALUE; // parks the longest a timer thread may, then tries again
            }
            self.wakeAt = next;
            LockSupport.parkNanos(self, Math.min(parkNanosUntil(next), MAX_TIMER_PARK_NANOS));
          }
        });
  }

  private static ThreadWork start(String threadName, Consumer<ThreadWork> loop) {
    ThreadWork work = new ThreadWork(threadName, loop);
    work.thread.start();
    return work;
  }

  private static void runReporting(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      report(e);
    }
  }

  private static void report(RuntimeException e) {
    Thread t = Thread.currentThread();
    t.getUncaughtExceptionHandler().uncaughtException(t, e);
  }

  /** A daemon thread's work: closing ends its loop, waking unparks it early. */
  private static final class ThreadWork implements Repeating {
    private final Thread thread;
    private volatile boolean closed;

    /** When the thread wakes next, so an earlier due time can wake it sooner. */
    private volatile long wakeAt = Long.MAX_VALUE;

    ThreadWork(String threadName, Consumer<ThreadWork> loop) {
      this.thread =
          Thread.ofPlatform().daemon().name(threadName).unstarted(() -> loop.accept(this));
    }

    @Override
    public void wakeBy(long dueMillis) {
      if (dueMillis < wakeAt) {
        wakeAt = dueMillis;
        LockSupport.unpark(thread);
      }
    }

    @Override
    public void close() {
      closed = true;
      LockSupport.unpark(thread);
    }
  }
}
