package io.switchboard.queue;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import java.util.function.ObjLongConsumer;

/**
 * Due times of every message in a queue, bucketed by exact millisecond: {@code TreeMap<due,
 * serials>}, 8 bytes a message. Entries are never removed eagerly (an ack would cost a tree
 * search); instead the owner checks each fired entry against the live message, and the index
 * rebuilds itself from the live messages once stale entries outnumber live ones, which keeps both
 * memory and amortized cost linear.
 *
 * <p>Expiry stays exact whatever the index does: the owner fires every bucket due at or before the
 * current time before it delivers anything.
 */
final class ExpiryIndex {

  private final TreeMap<Long, LongList> buckets = new TreeMap<>();
  private long entries;
  private long nextDue = Long.MAX_VALUE;

  void add(long due, long serial) {
    LongList bucket = buckets.get(due);
    if (bucket == null) {
      bucket = new LongList(2);
      buckets.put(due, bucket);
    }
    bucket.add(serial);
    entries++;
    if (due < nextDue) {
      nextDue = due;
    }
  }

  long nextDue() {
    return nextDue;
  }

  /**
   * Hands every (due, serial) with due at or before {@code now} to {@code fire}, then drops them.
   */
  void pollDue(long now, ObjLongConsumer<Long> fire) {
    while (nextDue <= now) {
      Map.Entry<Long, LongList> first = buckets.pollFirstEntry();
      LongList serials = first.getValue();
      entries -= serials.size();
      nextDue = buckets.isEmpty() ? Long.MAX_VALUE : buckets.firstKey();
      for (int i = 0; i < serials.size(); i++) {
        fire.accept(first.getKey(), serials.get(i));
      }
    }
  }

  /**
   * Rebuilds from the live set when stale entries dominate. {@code live} must call the given
   * consumer once per live message as (due, serial) pairs, via {@link #add}.
   */
  boolean needsCompaction(long liveCount) {
    return entries > 2 * liveCount + 1024;
  }

  void rebuild(java.util.function.Consumer<ExpiryIndex> liveAdder) {
    clear();
    liveAdder.accept(this);
  }

  void clear() {
    buckets.clear();
    entries = 0;
    nextDue = Long.MAX_VALUE;
  }

  long entries() {
    return entries;
  }

  /** For tests: every serial due at {@code due}. */
  void forEachAt(long due, LongConsumer action) {
    LongList bucket = buckets.get(due);
    if (bucket != null) {
      for (int i = 0; i < bucket.size(); i++) {
        action.accept(bucket.get(i));
      }
    }
  }
}
