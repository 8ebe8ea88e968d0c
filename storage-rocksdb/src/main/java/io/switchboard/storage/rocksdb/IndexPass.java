package io.switchboard.storage.rocksdb;

import io.switchboard.queue.spi.Orders;
import io.switchboard.queue.spi.QueueRules;
import java.util.Arrays;
import java.util.Comparator;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.rocksdb.RocksIterator;

/**
 * Recovery's one ordered pass over the order index (docs/design.md, "Recovery does not read the
 * backlog"): one iterator walks the {@code orders} family forward, queue after queue in key order,
 * and reads of each standard queue only what the heap needs: the first key of each priority band of
 * {@code A} and of {@code D} (the lowest seq), the counters ({@code C}), the serials of every
 * {@code L} key (the messages in flight, which the heap holds) and of the first {@link
 * #DELAYED_HELD} {@code T} keys (the delayed messages due first; the rest stay in the store, behind
 * the hot window's delayed boundary), and the first {@code X} key (the earliest expiry). Its cost
 * grows with the number of queues and of messages held, not with the available backlog: the keys
 * between are skipped by seeking.
 *
 * <p>Of a grouped queue it reads the first key of each group's line ({@code G}: one step or seek
 * per group, the heap's catalogue of groups), every {@code L} and every {@code T} key (a grouped
 * queue's delayed messages stay in the heap), the counters and the first {@code X} key.
 *
 * <p>Every target is after the one before, so the iterator stands at the first key at or after the
 * last target: a target it already stands at or before costs nothing, a near one a few steps, a far
 * one a seek. Queues without keys (most of a million idle queues) cost a comparison or a step.
 */
final class IndexPass {

  /** Steps tried before a seek: an empty queue's next key is usually a step or two away. */
  private static final int STEPS = 8;

  /**
   * The most delayed messages of one queue recovery reads (the first in timer order): a window's
   * worth at the server's default {@code hot-window}; the queue's delayed window reads on from
   * there.
   */
  static final int DELAYED_HELD = 10_000;

  private final RocksIterator it;

  /** The last target moved to; null before the first. */
  private byte @Nullable [] last;

  /** What a standard queue without a key in the index is (most idle queues): shared. */
  static final Summary EMPTY =
      new Summary(
          new Orders.Counts(0, 0, 0, java.util.Collections.emptySortedMap()),
          new long[0],
          Long.MAX_VALUE,
          Long.MAX_VALUE);

  /** Walks with {@code it}, which the caller opened (with checksums verified) and closes. */
  IndexPass(RocksIterator it) {
    this.it = it;
  }

  /** What the pass found for one queue. */
  record Summary(Orders.Counts counts, long[] held, long expiryFloor, long lowestSeq) {}

  /**
   * The summary of {@code queue}. Queues taken in key order (the order of the {@code queues}
   * family: a name's bytes sort as its prefix does) make one forward pass; a queue out of order
   * costs a seek, never a wrong answer.
   */
  Summary next(String queue) {
    byte[] prefix = Codec.queuePrefix(queue);
    int at = prefix.length;
    moveTo(prefix);
    if (!it.isValid() || !OrderKeys.startsWith(it.key(), prefix)) {
      return EMPTY; // no key at all
    }
    boolean grouped = QueueRules.isGrouped(queue);
    long lowestSeq = Long.MAX_VALUE;
    if (!grouped) {
      // A: the first key of each priority band, which has the band's lowest seq
      lowestSeq = Math.min(lowestSeq, lowestSeq(queue, OrderKeys.AVAILABLE, at));
    }
    // C: the counters
    byte[] counters = OrderKeys.start(queue, OrderKeys.COUNTER);
    moveTo(counters);
    long availableCount = 0;
    long delayed = 0;
    long inFlight = 0;
    SortedMap<Integer, Long> byPriority = new TreeMap<>(Comparator.reverseOrder());
    for (; it.isValid() && OrderKeys.startsWith(it.key(), counters); it.next()) {
      byte[] key = it.key();
      long n = OrderKeys.countOf(it.value());
      switch (key[at + 1]) {
        case 'a' -> availableCount = n;
        case 'd' -> delayed = n;
        case 'f' -> inFlight = n;
        case 'q', 't' -> {} // a partition's or a tenant's count: the hot window reads them
        default -> {
          if (n != 0) {
            byPriority.put(OrderKeys.priorityOf(key, at + 1), n);
          }
        }
      }
    }
    // D: likewise, for the delayed messages the heap may not hold
    if (delayed > 0 && !grouped) {
      lowestSeq = Math.min(lowestSeq, lowestSeq(queue, OrderKeys.DELAYED_IN_ORDER, at));
    }
    long[] held = new long[0];
    int count = 0;
    if (grouped) {
      // G: the first key of each group's line, then a seek past the rest of the line
      byte[] lines = OrderKeys.start(queue, OrderKeys.GROUP);
      moveTo(lines);
      while (it.isValid() && OrderKeys.startsWith(it.key(), lines)) {
        byte[] key = it.key();
        if (count == held.length) {
          held = Arrays.copyOf(held, Math.max(16, 2 * count));
        }
        held[count++] = OrderKeys.serialOf(key);
        byte[] nextGroup = Arrays.copyOf(key, key.length - 16); // ends with the group's 0x00
        nextGroup[nextGroup.length - 1] = 1;
        moveTo(nextGroup);
      }
    }
    // L and the first of T (all of T for a grouped queue): the messages the heap holds
    for (byte kind : new byte[] {OrderKeys.IN_FLIGHT, OrderKeys.DELAYED}) {
      byte[] start = OrderKeys.start(queue, kind);
      moveTo(start);
      int limit = kind == OrderKeys.DELAYED && !grouped ? count + DELAYED_HELD : Integer.MAX_VALUE;
      for (; it.isValid() && OrderKeys.startsWith(it.key(), start) && count < limit; it.next()) {
        if (count == held.length) {
          held = Arrays.copyOf(held, Math.max(16, 2 * count));
        }
        held[count++] = OrderKeys.serialOf(it.key());
      }
    }
    // X: the earliest expiry of any message, at or before that of every one not held
    long expiryFloor = Long.MAX_VALUE;
    if (availableCount > 0 || delayed > 0) {
      byte[] expiry = OrderKeys.start(queue, OrderKeys.EXPIRY);
      moveTo(expiry);
      if (it.isValid() && OrderKeys.startsWith(it.key(), expiry)) {
        expiryFloor = OrderKeys.expiryOf(it.key(), at);
      }
    }
    long[] serials = Arrays.copyOf(held, count);
    if (grouped) {
      // a group's first message may be in flight or delayed as well: read once
      serials = java.util.stream.LongStream.of(serials).sorted().distinct().toArray();
    }
    return new Summary(
        new Orders.Counts(availableCount, delayed, inFlight, byPriority),
        serials,
        expiryFloor,
        lowestSeq);
  }

  /**
   * The lowest seq among the keys of {@code kind} ({@code A} or {@code D}) of {@code queue}: the
   * first key of each priority band has its band's lowest.
   */
  private long lowestSeq(String queue, byte kind, int at) {
    long lowest = Long.MAX_VALUE;
    byte[] start = OrderKeys.start(queue, kind);
    moveTo(start);
    while (it.isValid() && OrderKeys.startsWith(it.key(), start)) {
      byte[] key = it.key();
      lowest = Math.min(lowest, OrderKeys.seqOf(key, at));
      int priority = OrderKeys.priorityOf(key, at);
      moveTo(
          priority == Integer.MIN_VALUE
              ? OrderKeys.start(queue, (byte) (kind + 1))
              : OrderKeys.band(queue, kind, priority - 1));
    }
    return lowest;
  }

  /**
   * Moves to the first key at or after {@code target}: from where the iterator stands when the
   * target is not before the last one (it stands at the first key at or after that), else by a
   * seek.
   */
  private void moveTo(byte[] target) {
    byte[] previous = last;
    last = target;
    if (previous == null || Arrays.compareUnsigned(target, previous) < 0) {
      it.seek(target);
      return;
    }
    for (int i = 0; i < STEPS; i++) {
      if (!it.isValid() || Arrays.compareUnsigned(it.key(), target) >= 0) {
        return;
      }
      it.next();
    }
    if (it.isValid() && Arrays.compareUnsigned(it.key(), target) < 0) {
      it.seek(target);
    }
  }
}
