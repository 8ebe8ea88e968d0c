package io.switchboard.tck;

import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.Snapshot;
import io.switchboard.queue.spi.SystemRecords;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * A journal that keeps its state in maps, applying entries exactly as a store must: the reference
 * for what a durable journal holds, and a way to test restarts without a disk. "Restarting" is
 * building a new engine on the same instance.
 */
public final class MemoryJournal implements Journal {

  private OptionalLong idPrefix = OptionalLong.empty();
  private long sequenceLimit;
  private final Map<String, JournalEntry.QueuePut> queues = new TreeMap<>();
  private final Map<String, Map<Long, MessageRecord>> messages = new LinkedHashMap<>();
  private final Map<String, Map<String, JournalEntry.DedupPut>> dedup = new LinkedHashMap<>();
  private final Map<String, Map<Long, JournalEntry.HistoryPut>> history = new LinkedHashMap<>();
  private final Map<String, JournalEntry.TaskPut> tasks = new LinkedHashMap<>();
  private final Map<String, JournalEntry.TaskProgress> progress = new LinkedHashMap<>();
  private final SystemRecords records = SystemRecords.inMemory();

  @Override
  public synchronized Snapshot load() {
    List<Snapshot.QueueState> states = new ArrayList<>();
    for (JournalEntry.QueuePut q : queues.values()) {
      states.add(
          new Snapshot.QueueState(
              q,
              List.copyOf(messages.getOrDefault(q.name(), Map.of()).values()),
              List.copyOf(dedup.getOrDefault(q.name(), Map.of()).values()),
              List.copyOf(history.getOrDefault(q.name(), Map.of()).values())));
    }
    List<JournalEntry.TaskPut> loaded = new ArrayList<>();
    for (JournalEntry.TaskPut t : tasks.values()) {
      JournalEntry.TaskProgress p = progress.get(t.task().id());
      loaded.add(
          p == null
              ? t
              : new JournalEntry.TaskPut(
                  p.task(), t.startedAt(), t.remaining().subList(p.next(), t.remaining().size())));
    }
    return new Snapshot(idPrefix, sequenceLimit, states, loaded);
  }

  @Override
  public synchronized void append(List<JournalEntry> entries) {
    entries.forEach(this::apply);
  }

  @Override
  public Ticket appendDurable(List<JournalEntry> entries) {
    append(entries);
    return DONE;
  }

  /** The same records for every engine built on this journal, as a store keeps them. */
  @Override
  public SystemRecords systemRecords() {
    return records;
  }

  @Override
  public void close() {}

  /** Messages of {@code queue} the journal holds. */
  public synchronized int messageCount(String queue) {
    return messages.getOrDefault(queue, Map.of()).size();
  }

  private void apply(JournalEntry e) {
    switch (e) {
      case JournalEntry.QueuePut q -> queues.put(q.name(), q);
      case JournalEntry.QueueDelete d -> {
        queues.remove(d.name());
        messages.remove(d.name());
        dedup.remove(d.name());
        history.remove(d.name());
      }
      case JournalEntry.QueuePurge p -> {
        messages.remove(p.name());
        dedup.remove(p.name());
      }
      case JournalEntry.MessagePut m ->
          messages
              .computeIfAbsent(m.queue(), k -> new LinkedHashMap<>())
              .put(m.message().serial(), m.message());
      case JournalEntry.StatePut s -> {
        MessageRecord r = messages.getOrDefault(s.queue(), Map.of()).get(s.serial());
        if (r != null) {
          Objects.requireNonNull(messages.get(s.queue())).put(s.serial(), r.with(s.state()));
        }
      }
      case JournalEntry.MessageDelete d -> {
        Map<Long, MessageRecord> q = messages.get(d.queue());
        if (q != null) {
          q.remove(d.serial());
        }
      }
      case JournalEntry.DedupPut d ->
          dedup.computeIfAbsent(d.queue(), k -> new LinkedHashMap<>()).put(d.key(), d);
      case JournalEntry.DedupDelete d ->
          dedup.getOrDefault(d.queue(), new LinkedHashMap<>()).remove(d.key());
      case JournalEntry.HistoryPut h ->
          history
              .computeIfAbsent(h.queue(), k -> new LinkedHashMap<>())
              .put(h.message().serial(), h);
      case JournalEntry.HistoryDelete h ->
          history.getOrDefault(h.queue(), new LinkedHashMap<>()).remove(h.serial());
      case JournalEntry.TaskPut t -> tasks.put(t.task().id(), t);
      case JournalEntry.TaskProgress p -> progress.put(p.task().id(), p);
      case JournalEntry.SequenceReserve r -> sequenceLimit = Math.max(sequenceLimit, r.limit());
      case JournalEntry.IdPrefix p -> idPrefix = OptionalLong.of(p.prefix());
      case JournalEntry.Placement p -> {} // keeps no orders: maintainsOrders() is false
    }
  }
}
