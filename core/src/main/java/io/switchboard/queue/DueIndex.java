package io.switchboard.queue;

import java.util.Collections;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.LongFunction;
import java.util.function.ObjLongConsumer;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * Due times of the messages of a queue, for one kind of timer: expiry, or the end of a delay or a
 * lease (visibility). Most messages fall due in the order they were added (they all get the queue's
 * retention, or its visibility timeout), so they go in a FIFO of (due, serial) pairs: 16 bytes an
 * entry and O(1) to add and fire. An entry that would break the FIFO's order (a shorter time to
 * live, a move from another queue, a different delay or visibility timeout) goes in a tree of
 * per-millisecond buckets instead.
 *
 * <p>Entries are never removed eagerly (an ack would cost a search): an entry is live while its
 * message is in the queue and {@link #dueOf} of it still gives the entry's due time; any other is
 * stale and skipped. Stale entries are dropped from the front as they are met and all at once when
 * they outnumber the live ones, which keeps memory and amortized cost linear. A message may have
 * more than one live entry (its due time set twice to the same value); the first to fire changes
 * the message, which makes the others stale. Timers stay exact whatever the index does: the owner
 * fires every entry due at or before the current time before it delivers anything.
 */
final class DueIndex {

  /** What {@link #dueOf} gives for a message without this kind of timer: no entry's due time. */
  static final long NOT_DUE = Long.MIN_VALUE;

  private final LongList fifo = new LongList(2); // grows by doubling; an idle queue's stays small

  /** Shared by every index without buckets (never written: the first bucket makes a tree). */
  private static final NavigableMap<Long, LongList> NO_BUCKETS = Collections.emptyNavigableMap();

  private NavigableMap<Long, LongList> buckets = NO_BUCKETS;
  private final ToLongFunction<StoredMessage> dueOf;
  private long bucketEntries;
  private long lastFifoDue = Long.MIN_VALUE;

  /**
   * An index whose entries are live while {@code dueOf} gives their due time for their message
   * ({@link #NOT_DUE} when the message has no such timer now).
   */
  DueIndex(ToLongFunction<StoredMessage> dueOf) {
    this.dueOf = dueOf;
  }

  void add(long due, long serial) {
    if (due >= lastFifoDue) {
      fifo.add(due);
      fifo.add(serial);
      lastFifoDue = due;
      return;
    }
    LongList bucket = buckets.get(due);
    if (bucket == null) {
      if (buckets == NO_BUCKETS) {
        buckets = new TreeMap<>();
      }
      bucket = new LongList(2);
      buckets.put(due, bucket);
    }
    bucket.add(serial);
    bucketEntries++;
  }

  /** The earliest due time of an entry, live or stale; Long.MAX_VALUE if none. */
  long nextDue() {
    long t = fifo.isEmpty() ? Long.MAX_VALUE : fifo.peekFirst();
    return buckets.isEmpty() ? t : Math.min(t, buckets.firstKey());
  }

  /**
   * The message of the earliest live entry (the FIFO's on a tie), or null when there is none; drops
   * the stale entries in front of it. {@code live} finds a message in the queue by serial.
   */
  @Nullable StoredMessage first(LongFunction<@Nullable StoredMessage> live) {
    StoredMessage fromFifo = null;
    long fifoDue = Long.MAX_VALUE;
    while (!fifo.isEmpty()) {
      long due = fifo.get(0);
      StoredMessage m = live.apply(fifo.get(1));
      if (m != null && dueOf.applyAsLong(m) == due) {
        fromFifo = m;
        fifoDue = due;
        break;
      }
      fifo.pollFirst();
      fifo.pollFirst();
    }
    restartFifoIfEmpty();
    while (!buckets.isEmpty()) {
      long due = buckets.firstKey();
      if (due >= fifoDue) {
        break; // the FIFO's entry comes first (or ties)
      }
      LongList bucket = Objects.requireNonNull(buckets.get(due)); // its first key
      while (!bucket.isEmpty()) {
        StoredMessage m = live.apply(bucket.peekFirst());
        if (m != null && dueOf.applyAsLong(m) == due) {
          return m;
        }
        bucket.pollFirst();
        bucketEntries--;
      }
      buckets.remove(due);
    }
    return fromFifo;
  }

  /**
   * Moves the serials of every entry due at {@code due}, which must be the earliest due time in the
   * index, to {@code out}, in no particular order.
   */
  void pollAt(long due, LongList out) {
    while (!fifo.isEmpty() && fifo.peekFirst() == due) {
      fifo.pollFirst();
      out.add(fifo.pollFirst());
    }
    restartFifoIfEmpty();
    if (!buckets.isEmpty() && buckets.firstKey() == due) {
      LongList bucket = buckets.pollFirstEntry().getValue();
      bucketEntries -= bucket.size();
      for (int i = 0; i < bucket.size(); i++) {
        out.add(bucket.get(i));
      }
    }
  }

  /**
   * Hands every (due, serial) with due at or before {@code now} to {@code fire}, then drops them.
   */
  void pollDue(long now, ObjLongConsumer<Long> fire) {
    while (!fifo.isEmpty() && fifo.peekFirst() <= now) {
      long due = fifo.pollFirst();
      fire.accept(due, fifo.pollFirst());
    }
    restartFifoIfEmpty();
    while (!buckets.isEmpty() && buckets.firstKey() <= now) {
      Map.Entry<Long, LongList> first = buckets.pollFirstEntry();
      LongList serials = first.getValue();
      bucketEntries -= serials.size();
      for (int i = 0; i < serials.size(); i++) {
        fire.accept(first.getKey(), serials.get(i));
      }
    }
  }

  /**
   * An empty FIFO takes any due time next: one entry far in the future (a long delay or lease)
   * holds back the FIFO only while it is there, not for the rest of the queue's life.
   */
  private void restartFifoIfEmpty() {
    if (fifo.isEmpty()) {
      lastFifoDue = Long.MIN_VALUE;
    }
  }

  long entries() {
    return fifo.size() / 2 + bucketEntries;
  }

  /**
   * Drops the stale entries once they outnumber the live messages; {@code liveCount} is how many
   * messages may have a live entry, {@code live} finds a message in the queue by serial.
   */
  void compact(long liveCount, LongFunction<@Nullable StoredMessage> live) {
    if (entries() <= 2 * liveCount + 1024) {
      return;
    }
    // In place: the FIFO grows back to about twice the threshold above before the next compaction,
    // so it keeps that much room rather than being reallocated every time.
    long room = 2 * (2 * liveCount + 1024) + 16;
    fifo.retainPairs((due, serial) -> isLive(due, serial, live), (int) Math.min(room, 1 << 20));
    restartFifoIfEmpty();
    bucketEntries = 0;
    var it = buckets.entrySet().iterator();
    while (it.hasNext()) {
      var e = it.next();
      long due = e.getKey();
      e.getValue().retainIf(serial -> isLive(due, serial, live));
      if (e.getValue().isEmpty()) {
        it.remove();
      } else {
        bucketEntries += e.getValue().size();
      }
    }
  }

  private boolean isLive(long due, long serial, LongFunction<@Nullable StoredMessage> live) {
    StoredMessage m = live.apply(serial);
    return m != null && dueOf.applyAsLong(m) == due;
  }

  void clear() {
    fifo.clear();
    buckets = NO_BUCKETS;
    bucketEntries = 0;
    lastFifoDue = Long.MIN_VALUE;
  }
}
