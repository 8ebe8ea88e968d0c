package io.switchboard.queue.spi;

import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.RedriveTask;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One change of durable state. Entries are idempotent (a put overwrites, a delete of something
 * absent is nothing), and a journal applies them in the order they were appended, so replaying a
 * prefix of the stream always gives a state the engine was once in.
 */
public sealed interface JournalEntry {

  /**
   * A queue created or reconfigured. {@code receiptKey} is the queue's random seed for its receipt
   * key (see {@code ReceiptKeys}): kept, it keeps receipts valid across restarts.
   */
  record QueuePut(String name, QueueConfig config, long createdAt, long receiptKey)
      implements JournalEntry {}

  /** A queue and everything in it (messages, dedup entries, history) deleted. */
  record QueueDelete(String name) implements JournalEntry {}

  /** Every message and deduplication entry of the queue deleted (history stays). */
  record QueuePurge(String name) implements JournalEntry {}

  /** A message written whole: on send, on arrival by a move, on a change of attributes. */
  record MessagePut(String queue, MessageRecord message) implements JournalEntry {}

  /** The mutable part of a message that is already stored. */
  record StatePut(String queue, long serial, MessageRecord.StateRecord state)
      implements JournalEntry {}

  record MessageDelete(String queue, long serial) implements JournalEntry {}

  /**
   * A message's place in the orders of {@code queue} changed from {@code before} (null: it had none
   * there, e.g. a send) to {@code after} (null: it left). Appended only to a journal whose {@link
   * Journal#maintainsOrders} is true, right after the entry that stores the change itself, so both
   * land in the same write.
   */
  record Placement(String queue, long serial, @Nullable Place before, @Nullable Place after)
      implements JournalEntry {}

  /** A deduplication id seen at a send, remembered until {@code until}. */
  record DedupPut(String queue, String key, long serial, long seq, long until)
      implements JournalEntry {}

  record DedupDelete(String queue, String key) implements JournalEntry {}

  /**
   * A message that left the queue, kept readable until {@code until} in state {@code state} ({@code
   * COMPLETED}, {@code FAILED}, {@code DEAD_LETTERED}).
   */
  record HistoryPut(String queue, MessageRecord message, String state, long until)
      implements JournalEntry {}

  record HistoryDelete(String queue, long serial) implements JournalEntry {}

  /**
   * A redrive task as started: {@code remaining} are the serials it has yet to move. In a {@link
   * Snapshot} the journal gives each task with its latest {@link TaskProgress} applied (status and
   * counts from it, {@code remaining} without the first {@code next} serials).
   */
  record TaskPut(RedriveTask task, long startedAt, List<Long> remaining) implements JournalEntry {}

  /** A redrive task's progress: its new status and counts; it has passed {@code next} serials. */
  record TaskProgress(RedriveTask task, int next) implements JournalEntry {}

  /** Sequence numbers below {@code limit} may be in use; a restart continues above it. */
  record SequenceReserve(long limit) implements JournalEntry {}

  /** The engine's id prefix (the high half of every message id), fixed at first start. */
  record IdPrefix(long prefix) implements JournalEntry {}
}
