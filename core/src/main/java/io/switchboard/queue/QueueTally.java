package io.switchboard.queue;

import io.switchboard.internal.LargestN;

/**
 * Builds a {@link QueueOverview} from one queue after another in memory of a fixed size: the sums
 * and maxima are a few longs, and the names of the deepest {@code n} queues and of the {@code n}
 * with the oldest messages (the queues' own name strings) are kept in two {@link LargestN}, so
 * adding a queue allocates nothing and costs O(log n).
 */
final class QueueTally {
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

  QueueTally(int top) {
    if (top < 0) {
      throw QueueException.invalid("top must be 0 or more, got " + top);
    }
    this.deepest = new LargestN<>(top);
    this.oldest = new LargestN<>(top);
  }

  void add(
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

  QueueOverview overview() {
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
