package io.switchboard.queue.spi;

import java.util.List;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * The state a journal holds, as the engine rebuilds itself from it at start.
 *
 * @param idPrefix the id prefix, absent on a fresh store
 * @param sequenceLimit every sequence number in use (every serial and seq) is below this
 * @param queues the queues with everything in them, in no particular order. A store may decode them
 *     as they are iterated (so a restart with a million queues does not hold a million decoded
 *     records beside the million queues made of them, docs/design.md, "Recovery streams the
 *     queues"): the engine iterates them once, and keeps nothing of a state once it made its queue
 *     from it
 * @param queueCount about how many queues {@code queues} yields (an estimate, to size maps by)
 * @param tasks redrive tasks
 */
public record Snapshot(
    OptionalLong idPrefix,
    long sequenceLimit,
    Iterable<QueueState> queues,
    int queueCount,
    List<JournalEntry.TaskPut> tasks) {

  /** A snapshot whose queues are all decoded already. */
  public Snapshot(
      OptionalLong idPrefix,
      long sequenceLimit,
      List<QueueState> queues,
      List<JournalEntry.TaskPut> tasks) {
    this(idPrefix, sequenceLimit, queues, queues.size(), tasks);
  }

  public static Snapshot empty() {
    return new Snapshot(OptionalLong.empty(), 0, List.of(), List.of());
  }

  /**
   * One queue: its configuration and contents, in no particular order. {@code messages} may be read
   * lazily from the store, once, while the engine rebuilds (so a million records need not sit in
   * memory beside the million messages made from them).
   *
   * @param indexed for a standard queue of a store that keeps the order index, what an engine with
   *     a hot window reads instead of {@code messages}; null otherwise
   */
  public record QueueState(
      JournalEntry.QueuePut queue,
      Iterable<MessageRecord> messages,
      List<JournalEntry.DedupPut> dedup,
      List<JournalEntry.HistoryPut> history,
      @Nullable Indexed indexed) {

    /** A queue whose store has no order index for it. */
    public QueueState(
        JournalEntry.QueuePut queue,
        Iterable<MessageRecord> messages,
        List<JournalEntry.DedupPut> dedup,
        List<JournalEntry.HistoryPut> history) {
      this(queue, messages, dedup, history, null);
    }
  }

  /**
   * A standard queue as its order index summarises it (docs/design.md, "Recovery does not read the
   * backlog"): the messages that stay in the heap, and only counts of the available ones, which
   * stay in the store until the hot window reads them. Reading it costs a few keys per queue and
   * the records of the messages held, whatever the backlog.
   *
   * @param counts the queue's counts record: messages by state, and by priority in any state
   * @param held every message in flight and the first delayed ones in timer order (due time, then
   *     serial; all of them, or a prefix when {@code counts} has more delayed), read lazily, once
   * @param expiryFloor at or before the earliest expiry of an available message or a delayed one
   *     not held ({@code Long.MAX_VALUE} when there is none)
   * @param lowestSeq the lowest seq of an available or delayed message ({@code Long.MAX_VALUE} when
   *     none is): a LIFO queue puts a message behind everything below it
   */
  public record Indexed(
      Orders.Counts counts, Iterable<MessageRecord> held, long expiryFloor, long lowestSeq) {}
}
