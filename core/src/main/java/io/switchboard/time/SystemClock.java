package io.switchboard.time;

/** Wall-clock time, made monotonic: a step backwards of the system clock is not passed on. */
enum SystemClock implements Clock {
  INSTANCE;

  private static final long NANOS_PER_MILLI = 1_000_000L;

  private final java.util.concurrent.atomic.AtomicLong last =
      new java.util.concurrent.atomic.AtomicLong();

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
  public long parkNanosUntil(long deadlineMillis) {
    long remaining = deadlineMillis - millis();
    return remaining <= 0 ? 0 : Math.multiplyExact(remaining, NANOS_PER_MILLI);
  }

  @Override
  public void onAdvance(Runnable listener) {}
}
