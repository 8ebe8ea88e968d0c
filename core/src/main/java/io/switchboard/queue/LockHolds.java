package io.switchboard.queue;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** The engine's record of queue lock holds: how many, and the longest, in nanoseconds. */
final class LockHolds {

  private final AtomicLong longest = new AtomicLong();
  private final LongAdder count = new LongAdder();

  void record(long nanos) {
    count.increment();
    long seen = longest.get();
    while (nanos > seen && !longest.compareAndSet(seen, nanos)) {
      seen = longest.get();
    }
  }

  long longestNanos() {
    return longest.get();
  }

  long count() {
    return count.sum();
  }

  /** Forgets the longest hold so far (a test's warm-up, a metrics window). */
  void resetLongest() {
    longest.set(0);
  }
}
