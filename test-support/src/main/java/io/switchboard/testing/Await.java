package io.switchboard.testing;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A bounded wait for something another thread makes true: a server's background work, a callback on
 * an HTTP client's thread, a span ended just after its answer was read. It polls the condition (at
 * once, then at growing intervals up to {@value #MAX_POLL_MILLIS} ms) until it holds or the limit
 * runs out, and then fails the test naming what it waited for.
 *
 * <p>Not a way to let time pass: whatever runs on a {@code Clock} is moved by a {@code ManualClock}
 * in the test, never awaited. The limit is real time only because the thing awaited runs on another
 * thread; it is generous, so that a loaded machine does not fail a correct test.
 */
public final class Await {

  /** The limit of {@link #until(BooleanSupplier, String)}: 10 seconds. */
  public static final Duration LIMIT = Duration.ofSeconds(10);

  static final long MAX_POLL_MILLIS = 20;

  private Await() {}

  /** Returns once {@code condition} holds; fails after {@link #LIMIT} naming {@code what}. */
  public static void until(BooleanSupplier condition, String what) {
    until(condition, what, LIMIT);
  }

  /** Returns once {@code condition} holds; fails after {@code limit} naming {@code what}. */
  public static void until(BooleanSupplier condition, String what, Duration limit) {
    value(
        () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty(),
        () -> what,
        limit);
  }

  /**
   * The first value {@code find} finds; fails after {@code limit} with the message {@code what}
   * gives (asked for only then, so it may describe the state at the time of failing).
   */
  public static <T> T value(Supplier<Optional<T>> find, Supplier<String> what, Duration limit) {
    return value(find, what, limit, System::nanoTime);
  }

  /** {@link #value(Supplier, Supplier, Duration)} reading the time from {@code nanoTime}. */
  static <T> T value(
      Supplier<Optional<T>> find, Supplier<String> what, Duration limit, LongSupplier nanoTime) {
    long deadline = nanoTime.getAsLong() + limit.toNanos();
    long pause = TimeUnit.MILLISECONDS.toNanos(1);
    while (true) {
      Optional<T> found = find.get();
      if (found.isPresent()) {
        return found.get();
      }
      long now = nanoTime.getAsLong();
      if (now - deadline >= 0) {
        throw new AssertionError(
            "timed out after " + limit.toMillis() + " ms waiting for " + what.get());
      }
      LockSupport.parkNanos(Math.min(pause, deadline - now));
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what.get());
      }
      pause = Math.min(2 * pause, TimeUnit.MILLISECONDS.toNanos(MAX_POLL_MILLIS));
    }
  }
}
