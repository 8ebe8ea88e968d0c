package io.switchboard.queue;

import io.switchboard.internal.LargestN;

/**
 * Builds a {@link QueueOverview} from one queue after another in memory of a fixed size: the sums
 * and maxima are a few longs, and the names of the deepest {@code n} queues and of the {@code n}
 * with the oldest messages (the queues' own name strings) are kept in two {@link LargestN}, so
 * adding a queue allocates nothing and costs O(log n). Public for the engines of other modules
 * ({@link QueueEngine#overview}); not thread-safe.
 */
public final class QueueTally {
  private final LargestN<String> deepest;
  private final LargestN<String> oldest;
  private int queues;
  private long available;
  private long delayed;
  private long inFlight;
  private long mostBytes;
  private long mostInFlight;
  private long mostInFlightGrouped;
  private long mostAtDefaultDepth;

  /** Keeps the names of at most {@code top} (0..) deepest and oldest queues. */
  public QueueTally(int top) {
    if (top < 0) {
      throw QueueException.invalid("top must be 0 or more, got " + top);
    }
    this.deepest = new LargestN<>(top);
    this.oldest = new LargestN<>(top);
  }

  /**
   * Adds one queue: its message counts, queued bytes and the send time of its oldest message (-1
   * when it holds none).
   */
  public void add(
      String name,
      boolean grouped,
      boolean defaultDepth,
      long available,
      long delayed,
      long inFlight,
      long bytes,
      long oldestSentAt) {
    queues++;
    this.available += available;
    this.delayed += delayed;
    this.inFlight += inFlight;
    long depth = available + delayed + inFlight;
    mostBytes = Math.max(mostBytes, bytes);
    if (grouped) {
      mostInFlightGrouped = Math.max(mostInFlightGrouped, inFlight);
    } else {
      mostInFlight = Math.max(mostInFlight, inFlight);
    }
    if (defaultDepth) {
      mostAtDefaultDepth = Math.max(mostAtDefaultDepth, depth);
    }
    deepest.offer(name, depth);
    if (oldestSentAt >= 0) {
      oldest.offer(name, -oldestSentAt); // the earlier sent, the heavier
    }
  }

  /**
   * Counts {@code n} (0..) more queues that hold no message without naming them, for an engine that
   * reads only the queues holding messages: an empty queue adds nothing else to the figures.
   */
  public void addEmpty(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be 0 or more, got " + n);
    }
    queues += n;
  }

  /** How many deepest queues this tally still has room for (empty queues may fill them). */
  public int roomForDeepest() {
    return deepest.room();
  }

  public QueueOverview overview() {
    return new QueueOverview(
        queues,
        available,
        delayed,
        inFlight,
        mostBytes,
        mostInFlight,
        mostInFlightGrouped,
        mostAtDefaultDepth,
        deepest.heaviestFirst(),
        oldest.heaviestFirst());
  }
}
