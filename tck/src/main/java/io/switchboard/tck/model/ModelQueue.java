package io.switchboard.tck.model;

import io.switchboard.queue.MessageState;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueStats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** One queue of the {@link ReferenceQueueModel}: a plain list of messages plus bookkeeping. */
final class ModelQueue {

  /** A deduplication id seen at a send, valid until {@code until} (exclusive). */
  record DedupEntry(ModelMessage original, long until) {}

  /** A message that left the queue, readable by id until {@code until} (exclusive). */
  record HistoryEntry(ModelView record, long until) {}

  final String name;
  final QueueConfig config;
  final boolean grouped;
  final List<ModelMessage> messages = new ArrayList<>();
  final Map<String, DedupEntry> dedup = new HashMap<>();
  final Map<String, HistoryEntry> history = new HashMap<>();

  /** Decreasing order keys for "to the back" of a LIFO queue. */
  long backSeq;

  long sent;
  long duplicates;
  long received;
  long acked;
  long released;
  long failed;
  long expired;
  long shed;
  long deadLettered;
  long removed;

  ModelQueue(String name, QueueConfig config) {
    this.name = name;
    this.config = config;
    this.grouped = name.endsWith(".fifo");
  }

  /** Delivery order: priority descending, then seq (FIFO ascending, LIFO descending). */
  Comparator<ModelMessage> order() {
    Comparator<ModelMessage> byPriority = (a, b) -> Integer.compare(b.priority, a.priority);
    Comparator<ModelMessage> bySeq = Comparator.comparingLong(m -> m.seq);
    if (!grouped && config.order() == Order.LIFO) {
      bySeq = bySeq.reversed();
    }
    return byPriority.thenComparing(bySeq).thenComparingLong(m -> m.created);
  }

  @Nullable ModelMessage byId(String id) {
    for (ModelMessage m : messages) {
      if (m.id != null && m.id.equals(id)) {
        return m;
      }
    }
    return null;
  }

  boolean contains(ModelMessage m) {
    for (ModelMessage x : messages) {
      if (x == m) {
        return true;
      }
    }
    return false;
  }

  long count(MessageState state) {
    long n = 0;
    for (ModelMessage m : messages) {
      if (m.state == state) {
        n++;
      }
    }
    return n;
  }

  QueueStats.Counters counters() {
    return new QueueStats.Counters(
        sent,
        duplicates,
        received,
        acked,
        released,
        failed,
        expired,
        shed,
        deadLettered,
        removed,
        0);
  }
}
