package io.switchboard.queue;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The engine's record of queue lock holds: how many, the longest in nanoseconds, and the most
 * entries one hold examined ({@link HoldWork}).
 */
final class LockHolds {

  private final AtomicLong longest = new AtomicLong();
  private final AtomicLong mostExamined = new AtomicLong();
  private final LongAdder count = new LongAdder();

  void record(long nanos, long examined) {
    count.increment();
    raise(longest, nanos);
    raise(mostExamined, examined);
  }

  private static void raise(AtomicLong most, long value) {
    long seen = most.get();
    while (value > seen && !most.compareAndSet(seen, value)) {
      seen = most.get();
    }
  }

  long longestNanos() {
    return longest.get();
  }

  /** The most entries one hold has examined since the start (or the last reset). */
  long mostExamined() {
    return mostExamined.get();
  }

  long count() {
    return count.sum();
  }

  /** Forgets the longest hold and the most examined so far (a test's warm-up). */
  void resetLongest() {
    longest.set(0);
    mostExamined.set(0);
  }
}
