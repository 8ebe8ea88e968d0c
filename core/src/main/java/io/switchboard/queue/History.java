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

  // made by the first record: most queues keep none, and a server may hold a million queues
  private @Nullable LongObjectMap<Message> bySerial;
  private @Nullable ArrayDeque<Entry> byAge;

  void add(long serial, Message record, long until) {
    LongObjectMap<Message> bySerial = this.bySerial;
    ArrayDeque<Entry> byAge = this.byAge;
    if (bySerial == null || byAge == null) {
      bySerial = this.bySerial = new LongObjectMap<>();
      // room for one at first, not ArrayDeque's 16: it grows as it fills
      byAge = this.byAge = new ArrayDeque<>(1);
    }
    bySerial.put(serial, record);
    byAge.addLast(new Entry(serial, record, until));
  }

  boolean isEmpty() {
    return byAge == null || byAge.isEmpty();
  }

  @Nullable Message find(long serial) {
    return bySerial == null ? null : bySerial.get(serial);
  }

  /** Drops records past their time, telling {@code expired} each serial dropped. */
  void expire(long now, java.util.function.LongConsumer expired) {
    LongObjectMap<Message> bySerial = this.bySerial;
    ArrayDeque<Entry> byAge = this.byAge;
    if (bySerial == null || byAge == null) {
      return;
    }
    while (!byAge.isEmpty() && byAge.peekFirst().until <= now) {
      Entry e = byAge.pollFirst();
      if (bySerial.get(e.serial) == e.record) {
        bySerial.remove(e.serial);
        expired.accept(e.serial);
      }
    }
    if (byAge.isEmpty()) {
      clear(); // the next entry makes them again
    }
  }

  void clear() {
    bySerial = null;
    byAge = null;
  }
}
