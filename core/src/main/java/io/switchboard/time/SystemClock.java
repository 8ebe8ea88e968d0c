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
    if (remaining <= 0) {
      return 0;
    }
    // Long.MAX_VALUE ("no deadline") and other far deadlines saturate instead of overflowing.
    return remaining >= Long.MAX_VALUE / NANOS_PER_MILLI
        ? Long.MAX_VALUE
        : remaining * NANOS_PER_MILLI;
  }

  @Override
  public void onAdvance(Runnable listener) {}
}
