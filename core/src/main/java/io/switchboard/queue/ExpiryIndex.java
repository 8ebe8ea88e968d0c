package io.switchboard.queue;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import java.util.function.ObjLongConsumer;

/**
 * Due times of every message in a queue. Most messages expire in the order they arrived (they all
 * get the queue's retention), so they go in a FIFO of (due, serial) pairs: 16 bytes a message and
 * O(1) to add and fire. A message that would break the FIFO's order (a shorter time to live, a move
 * from another queue) goes in a tree of per-millisecond buckets instead.
 *
 * <p>Entries are never removed eagerly (an ack would cost a search); the owner checks each fired
 * entry against the live message, and the index drops entries of messages gone once they outnumber
 * the live ones, which keeps memory and amortized cost linear. Expiry stays exact whatever the
 * index does: the owner fires every entry due at or before the current time before it delivers
 * anything.
 */
final class ExpiryIndex {

  private final LongList fifo = new LongList(16);
  private final TreeMap<Long, LongList> buckets = new TreeMap<>();
  private long bucketEntries;
  private long lastFifoDue = Long.MIN_VALUE;

  void add(long due, long serial) {
    if (due >= lastFifoDue) {
      fifo.add(due);
      fifo.add(serial);
      lastFifoDue = due;
      return;
    }
    LongList bucket = buckets.get(due);
    if (bucket == null) {
      bucket = new LongList(2);
      buckets.put(due, bucket);
    }
    bucket.add(serial);
    bucketEntries++;
  }

  long nextDue() {
    long t = fifo.isEmpty() ? Long.MAX_VALUE : fifo.peekFirst();
    return buckets.isEmpty() ? t : Math.min(t, buckets.firstKey());
  }

  /**
   * Hands every (due, serial) with due at or before {@code now} to {@code fire}, then drops them.
   */
  void pollDue(long now, ObjLongConsumer<Long> fire) {
    while (!fifo.isEmpty() && fifo.peekFirst() <= now) {
      long due = fifo.pollFirst();
      fire.accept(due, fifo.pollFirst());
    }
    while (!buckets.isEmpty() && buckets.firstKey() <= now) {
      Map.Entry<Long, LongList> first = buckets.pollFirstEntry();
      LongList serials = first.getValue();
      bucketEntries -= serials.size();
      for (int i = 0; i < serials.size(); i++) {
        fire.accept(first.getKey(), serials.get(i));
      }
    }
  }

  long entries() {
    return fifo.size() / 2 + bucketEntries;
  }

  /**
   * Drops the entries of messages gone (or whose due time changed) once they outnumber the live
   * messages; {@code live} finds a live message by serial.
   */
  void compact(long liveCount, LongFunction<StoredMessage> live) {
    if (entries() <= 2 * liveCount + 1024) {
      return;
    }
    // In place: the FIFO grows back to about twice the threshold above before the next compaction,
    // so it keeps that much room rather than being reallocated every time.
    long room = 2 * (2 * liveCount + 1024) + 16;
    fifo.retainPairs(
        (due, serial) -> {
          StoredMessage m = live.apply(serial);
          return m != null && m.expiresAt == due;
        },
        (int) Math.min(room, 1 << 20));
    bucketEntries = 0;
    var it = buckets.entrySet().iterator();
    while (it.hasNext()) {
      var e = it.next();
      long due = e.getKey();
      e.getValue()
          .retainIf(
              serial -> {
                StoredMessage m = live.apply(serial);
                return m != null && m.expiresAt == due;
              });
      if (e.getValue().isEmpty()) {
        it.remove();
      } else {
        bucketEntries += e.getValue().size();
      }
    }
  }

  void clear() {
    fifo.clear();
    buckets.clear();
    bucketEntries = 0;
    lastFifoDue = Long.MIN_VALUE;
  }
}
