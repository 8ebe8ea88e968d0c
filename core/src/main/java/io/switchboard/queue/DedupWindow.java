package io.switchboard.queue;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Deduplication ids seen in the last five minutes and the send they belong to. Every entry lives
 * exactly the window, so entries expire in insertion order and a deque finds them. A duplicate send
 * within the window returns the first send's result and enqueues nothing, even if that message was
 * acked since (as SQS does).
 */
final class DedupWindow {

  static final long WINDOW_MILLIS = 5 * 60 * 1000L;

  private record Entry(String key, SendResult original, long until) {}

  // made by the first entry: most queues keep none, and a server may hold a million queues
  private @Nullable Map<String, Entry> byKey;
  private @Nullable ArrayDeque<Entry> byAge;

  @Nullable SendResult find(String key, long now) {
    Map<String, Entry> byKey = this.byKey;
    if (byKey == null) {
      return null;
    }
    Entry e = byKey.get(key);
    return e == null || e.until <= now ? null : e.original;
  }

  void remember(String key, SendResult original, long now) {
    restore(key, original, now + WINDOW_MILLIS);
  }

  /** Drops entries whose window ended, telling {@code expired} each key dropped. */
  void expire(long now, java.util.function.Consumer<String> expired) {
    Map<String, Entry> byKey = this.byKey;
    ArrayDeque<Entry> byAge = this.byAge;
    if (byKey == null || byAge == null) {
      return;
    }
    while (!byAge.isEmpty() && byAge.peekFirst().until <= now) {
      Entry e = byAge.pollFirst();
      if (byKey.remove(e.key, e)) {
        expired.accept(e.key);
      }
    }
    if (byAge.isEmpty()) {
      clear(); // the next entry makes them again
    }
  }

  /** Forgets a key whose send failed to be stored. */
  void forget(String key) {
    if (byKey != null) {
      byKey.remove(key);
    }
  }

  /** Restores an entry (recovery); it lives until {@code until}. */
  void restore(String key, SendResult original, long until) {
    Entry e = new Entry(key, original, until);
    Map<String, Entry> byKey = this.byKey;
    ArrayDeque<Entry> byAge = this.byAge;
    if (byKey == null || byAge == null) {
      byKey = this.byKey = new HashMap<>();
      // room for one at first, not ArrayDeque's 16: it grows as it fills
      byAge = this.byAge = new ArrayDeque<>(1);
    }
    byKey.put(key, e);
    byAge.addLast(e);
  }

  /** Forgets every entry (a purge: a message sent again afterwards is delivered, as in SQS). */
  void clear() {
    byKey = null;
    byAge = null;
  }

  int size() {
    return byKey == null ? 0 : byKey.size();
  }
}
