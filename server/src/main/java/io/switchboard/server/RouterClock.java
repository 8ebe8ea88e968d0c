package io.switchboard.server;

import io.switchboard.time.Clock;

/**
 * The system clock for the server's router, with {@link #parkNanosUntil} saturating instead of
 * overflowing. Works around a core bug: with no timer pending the router's timer thread asks how
 * long to park until {@code Long.MAX_VALUE} ms, {@code SystemClock} overflows ({@code
 * ArithmeticException}) and the thread dies, so offer timeouts, escalations, maximum waits and
 * wrap-ups would only fire at the start of the next router call. Remove once core saturates.
 */
final class RouterClock implements Clock {

  private static final long NANOS_PER_MILLI = 1_000_000;
  private final Clock system = Clock.system();

  @Override
  public long millis() {
    return system.millis();
  }

  @Override
  public long parkNanosUntil(long deadlineMillis) {
    long remaining = deadlineMillis - system.millis();
    if (remaining <= 0) {
      return 0;
    }
    return Math.min(remaining, Long.MAX_VALUE / NANOS_PER_MILLI - 1) * NANOS_PER_MILLI;
  }

  @Override
  public void onAdvance(Runnable listener) {}
}
