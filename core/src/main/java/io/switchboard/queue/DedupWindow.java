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

  private final Map<String, Entry> byKey = new HashMap<>();
  // room for one at first, not ArrayDeque's 16: it grows as it fills, and most queues keep none
  private final ArrayDeque<Entry> byAge = new ArrayDeque<>(1);

  @Nullable SendResult find(String key, long now) {
    Entry e = byKey.get(key);
    return e == null || e.until <= now ? null : e.original;
  }

  void remember(String key, SendResult original, long now) {
    restore(key, original, now + WINDOW_MILLIS);
  }

  /** Drops entries whose window ended, telling {@code expired} each key dropped. */
  void expire(long now, java.util.function.Consumer<String> expired) {
    while (!byAge.isEmpty() && byAge.peekFirst().until <= now) {
      Entry e = byAge.pollFirst();
      if (byKey.remove(e.key, e)) {
        expired.accept(e.key);
      }
    }
  }

  /** Forgets a key whose send failed to be stored. */
  void forget(String key) {
    byKey.remove(key);
  }

  /** Restores an entry (recovery); it lives until {@code until}. */
  void restore(String key, SendResult original, long until) {
    Entry e = new Entry(key, original, until);
    byKey.put(key, e);
    byAge.addLast(e);
  }

  /** Forgets every entry (a purge: a message sent again afterwards is delivered, as in SQS). */
  void clear() {
    byKey.clear();
    byAge.clear();
  }

  int size() {
    return byKey.size();
  }
}
