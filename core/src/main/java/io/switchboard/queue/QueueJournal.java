package io.switchboard.queue;

import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.Place;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One queue's side of the journal: collects the entries an operation produces (the messages the
 * {@link MessageTable} marked as changed, plus explicit entries for deduplication, history and
 * moves) in the order the changes happened, and appends them when the operation ends, before the
 * queue's lock is released. Without a durable journal (the in-memory engine's {@link NoJournal})
 * every call is a no-op.
 */
final class QueueJournal {

  private final Journal journal;
  private final boolean enabled;
  private final String queue;
  private final boolean placements;

  /** The queue's table, whose changed messages are collected; null while the queue has none. */
  private @Nullable MessageTable table;

  /** Entries collected by the current operation; made by the first (an idle queue has none). */
  private @Nullable List<JournalEntry> pending;

  QueueJournal(Journal journal, boolean enabled, boolean placements, String queue) {
    this.journal = journal;
    this.enabled = enabled;
    this.placements = enabled && placements;
    this.queue = queue;
  }

  /** The table whose changes to collect from now on (null: the queue let go of its table). */
  void attach(@Nullable MessageTable table) {
    this.table = table;
  }

  boolean enabled() {
    return enabled;
  }

  /** Adds an explicit entry after the changes made so far. */
  void emit(JournalEntry entry) {
    if (!enabled) {
      return;
    }
    collectDirty();
    pending().add(entry);
  }

  /** Appends everything collected, without waiting. */
  void flush() {
    if (!enabled) {
      return;
    }
    collectDirty();
    List<JournalEntry> pending = this.pending;
    if (pending != null && !pending.isEmpty()) {
      journal.append(List.copyOf(pending));
      pending.clear();
    }
  }

  /**
   * Appends everything collected, then {@code entries}; the ticket completes when {@code entries}
   * are durable. The two are separate appends because a journal that fails a durable append stores
   * none of it: the send fails and leaves no trace, but what the operation changed before the send
   * (timers it fired, messages it shed) did happen and must still be stored.
   */
  Journal.Ticket flushDurable(List<JournalEntry> entries) {
    flush();
    return journal.appendDurable(List.copyOf(entries));
  }

  private List<JournalEntry> pending() {
    List<JournalEntry> p = pending;
    return p != null ? p : (pending = new ArrayList<>());
  }

  private void collectDirty() {
    MessageTable table = this.table;
    if (table == null) {
      return;
    }
    boolean placements = this.placements;
    List<JournalEntry> pending = pending();
    table.drainDirty(
        (m, mark, before) -> {
          pending.add(
              switch (mark) {
                case StoredMessage.JOURNAL_FULL -> new JournalEntry.MessagePut(queue, record(m));
                case StoredMessage.JOURNAL_STATE ->
                    new JournalEntry.StatePut(queue, m.serial, stateRecord(m));
                default -> new JournalEntry.MessageDelete(queue, m.serial);
              });
          if (placements) {
            Place after = mark == StoredMessage.JOURNAL_DELETE ? null : table.place(m);
            if (!Objects.equals(before, after)) {
              pending.add(new JournalEntry.Placement(queue, m.serial, before, after));
            }
          }
        });
  }

  /** Whether this queue's journal hears of every change of a message's place. */
  boolean placements() {
    return placements;
  }

  static MessageRecord record(StoredMessage m) {
    return new MessageRecord(
        m.serial,
        m.sentAt,
        m.body,
        AttributeMap.of(m.attributes),
        m.groupId,
        m.dedupId,
        stateRecord(m));
  }

  /** The part of a stored message that changes while it lives ({@link JournalEntry.StatePut}). */
  static MessageRecord.StateRecord stateRecord(StoredMessage m) {
    return new MessageRecord.StateRecord(
        m.seq,
        m.priority,
        m.state,
        m.receiveCount,
        m.leaseEpoch,
        m.visibleAt,
        m.expiresAt,
        m.firstReceivedAt,
        m.leasedAt,
        m.deadLetterSource);
  }

  /** Rebuilds a message from its record (recovery). */
  static StoredMessage restore(MessageRecord r) {
    MessageRecord.StateRecord s = r.stateRecord();
    StoredMessage m =
        new StoredMessage(
            r.serial(),
            s.seq(),
            r.sentAt(),
            r.body(),
            AttributeMap.flatten(r.attributes()),
            s.priority(),
            r.groupId(),
            r.dedupId());
    m.state = s.state();
    m.receiveCount = s.receiveCount();
    m.leaseEpoch = s.leaseEpoch();
    m.visibleAt = s.visibleAt();
    m.expiresAt = s.expiresAt();
    m.firstReceivedAt = s.firstReceivedAt();
    m.leasedAt = s.leasedAt();
    m.deadLetterSource = s.deadLetterSource();
    return m;
  }
}
