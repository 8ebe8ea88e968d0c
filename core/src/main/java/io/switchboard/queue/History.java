package io.switchboard.queue;

import io.switchboard.internal.LongObjectMap;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * Records of messages that left the queue (completed, failed, dead-lettered), readable by id for
 * the queue's history retention. Every record lives the same time, so they expire in insertion
 * order.
 */
final class History {

  private record Entry(long serial, Message record, long until) {}

  private final LongObjectMap<Message> bySerial = new LongObjectMap<>();
  // room for one at first, not ArrayDeque's 16: it grows as it fills, and most queues keep none
  private final ArrayDeque<Entry> byAge = new ArrayDeque<>(1);

  void add(long serial, Message record, long until) {
    bySerial.put(serial, record);
    byAge.addLast(new Entry(serial, record, until));
  }

  @Nullable Message find(long serial) {
    return bySerial.get(serial);
  }

  /** Drops records past their time, telling {@code expired} each serial dropped. */
  void expire(long now, java.util.function.LongConsumer expired) {
    while (!byAge.isEmpty() && byAge.peekFirst().until <= now) {
      Entry e = byAge.pollFirst();
      if (bySerial.get(e.serial) == e.record) {
        bySerial.remove(e.serial);
        expired.accept(e.serial);
      }
    }
  }

  void clear() {
    bySerial.clear();
    byAge.clear();
  }
}
