package io.switchboard.queue.spi;

import java.util.List;
import java.util.OptionalLong;

/**
 * The state a journal holds, as the engine rebuilds itself from it at start.
 *
 * @param idPrefix the id prefix, absent on a fresh store
 * @param sequenceLimit every sequence number in use is below this
 * @param queues the queues with everything in them
 * @param tasks redrive tasks
 */
public record Snapshot(
    OptionalLong idPrefix,
    long sequenceLimit,
    List<QueueState> queues,
    List<JournalEntry.TaskPut> tasks) {

  public static Snapshot empty() {
    return new Snapshot(OptionalLong.empty(), 0, List.of(), List.of());
  }

  /**
   * One queue: its configuration and contents, in no particular order. {@code messages} may be read
   * lazily from the store, once, while the engine rebuilds (so a million records need not sit in
   * memory beside the million messages made from them).
   */
  public record QueueState(
      JournalEntry.QueuePut queue,
      Iterable<MessageRecord> messages,
      List<JournalEntry.DedupPut> dedup,
      List<JournalEntry.HistoryPut> history) {}
}
