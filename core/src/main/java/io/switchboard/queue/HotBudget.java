package io.switchboard.queue;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The engine-wide budget of the hot windows (docs/design.md, "The hot window's budget"): the
 * available messages all windowed queues keep in the heap together aim at {@link #budget} bytes, a
 * quarter of {@code maxQueuedBytes}. Each windowed queue with waiting messages gets an equal share,
 * and its window is the share divided by what its messages weigh on average, never more than the
 * engine's {@code hotWindow} and never less than {@link #MIN_WINDOW} (or the {@code hotWindow},
 * when smaller). A queue keeps to its share at the end of each of its operations; a queue whose
 * window grew while it had the heap to itself is trimmed by the next operation that finds the total
 * past twice the budget ({@link #trimDue}), so the total stays near {@code 2 × budget} whatever the
 * order in which queues filled up. Thread-safe: every queue reports under its own lock.
 */
final class HotBudget {

  /**
   * The fewest available messages a windowed queue keeps in the heap whatever its share: a receive
   * of ten (SQS's largest) is one page. So the windows of {@code n} waiting queues keep at least
   * {@code 10 n} messages, whatever the budget.
   */
  static final int MIN_WINDOW = 10;

  /** No budget: every windowed queue keeps the engine's whole {@code hotWindow}. */
  static final long NONE = Long.MAX_VALUE;

  private final long budget;

  /** Bytes of available messages the windowed queues report keeping in the heap. */
  private final AtomicLong hot = new AtomicLong();

  /** The windowed queues with waiting messages (hot or cold), by name. */
  private final Set<String> waiting = ConcurrentHashMap.newKeySet();

  private final AtomicInteger waitingCount = new AtomicInteger();
  private final AtomicBoolean trimming = new AtomicBoolean();

  /** {@link #hot} after the last trim: what the windows could not give back (their floors). */
  private volatile long afterTrim;

  HotBudget(long budget) {
    this.budget = budget;
  }

  /** The budget of an engine held to {@code limits}: a quarter of its queued bytes, or none. */
  static HotBudget of(QueueLimits limits) {
    long max = limits.maxQueuedBytes();
    return new HotBudget(max == Long.MAX_VALUE ? NONE : Math.max(1, max / 4));
  }

  long budget() {
    return budget;
  }

  /** Bytes of available messages the windowed queues keep in the heap, as last reported. */
  long hot() {
    return hot.get();
  }

  /** Windowed queues with waiting messages. */
  int waiting() {
    return waitingCount.get();
  }

  /** One waiting queue's share of the budget, in bytes. */
  long share() {
    return budget == NONE ? NONE : budget / Math.max(1, waitingCount.get());
  }

  /**
   * The window of a queue whose messages weigh {@code charge} bytes on average (as {@link
   * QueueLimits#charge} counts), capped at {@code cap}.
   */
  int window(int cap, long charge) {
    if (budget == NONE) {
      return cap;
    }
    long fits = share() / Math.max(1, charge);
    return (int) Math.max(Math.min(cap, MIN_WINDOW), Math.min(cap, fits));
  }

  /**
   * A queue's report at the end of an operation: whether it has waiting messages, and the change of
   * the bytes it keeps hot since its last report.
   */
  void report(String queue, boolean hasWaiting, boolean wasWaiting, long bytesDelta) {
    if (bytesDelta != 0) {
      hot.addAndGet(bytesDelta);
    }
    if (hasWaiting != wasWaiting) {
      if (hasWaiting ? waiting.add(queue) : waiting.remove(queue)) {
        waitingCount.addAndGet(hasWaiting ? 1 : -1);
      }
    }
  }

  /**
   * Whether the windows together keep more than twice the budget and more than the budget beyond
   * what the last trim left (the floors of many thin windows are not trimmed again and again).
   */
  boolean trimDue() {
    long now = hot.get();
    return budget != NONE && now > 2 * budget && now - afterTrim > budget;
  }

  /**
   * Trims the waiting queues, one at a time, with {@code trim} (which takes that queue's lock): one
   * caller at a time, the others go on at once.
   */
  void trim(Consumer<String> trim) {
    if (!trimming.compareAndSet(false, true)) {
      return;
    }
    try {
      for (String queue : waiting) {
        trim.accept(queue);
      }
      afterTrim = hot.get();
    } finally {
      trimming.set(false);
    }
  }
}
