package io.switchboard.queue;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

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
  private final ArrayDeque<Entry> byAge = new ArrayDeque<>();

  SendResult find(String key, long now) {
    expire(now);
    Entry e = byKey.get(key);
    return e == null ? null : e.original;
  }

  void remember(String key, SendResult original, long now) {
    Entry e = new Entry(key, original, now + WINDOW_MILLIS);
    byKey.put(key, e);
    byAge.addLast(e);
  }

  void expire(long now) {
    while (!byAge.isEmpty() && byAge.peekFirst().until <= now) {
      Entry e = byAge.pollFirst();
      byKey.remove(e.key, e);
    }
  }

  int size() {
    return byKey.size();
  }
}
