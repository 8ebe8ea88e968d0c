package io.switchboard.queue.spi;

import java.util.List;
import java.util.Optional;

/**
 * What must survive a crash, as an ordered stream of {@link JournalEntry}s. The engine appends
 * entries under the lock of the queue they concern, so the stream's order is the order in which the
 * state changed; a journal must apply them in that order.
 *
 * <p>Two ways to append: {@link #append} for changes that may be lost in a crash with no harm
 * beyond a redelivery (receives, acks, returns: at-least-once allows it), and {@link
 * #appendDurable} for changes the engine acknowledges to a caller only once stored (sends, queue
 * configuration): its {@link Ticket} completes when the entries — and every entry appended before
 * them — are as durable as the journal's mode promises.
 */
public interface Journal extends AutoCloseable {

  /** The stored state, read once when the engine starts. */
  Snapshot load();

  /** Appends without waiting. */
  void append(List<JournalEntry> entries);

  /** Appends; the ticket completes when they are durable. */
  Ticket appendDurable(List<JournalEntry> entries);

  /**
   * The store's {@link SystemRecords}, asked once when the engine starts. The default keeps them in
   * memory, so they do not survive a restart: a durable journal overrides it.
   */
  default SystemRecords systemRecords() {
    return SystemRecords.inMemory();
  }

  /**
   * What keeps the journal from storing changes right now, if anything (e.g. {@code "store cannot
   * write"} on a full disk). While there is one, the engine refuses changes a caller would be told
   * about (acks, deletes, visibility changes) instead of holding them in memory only. By default
   * none.
   */
  default Optional<String> problem() {
    return Optional.empty();
  }

  /**
   * Whether the engine should, right now, wait until each change it tells a caller about is stored
   * (as it does for sends) instead of appending it without waiting: while the store is short of
   * room or cannot write, a change held in memory only could be lost by a crash long after the
   * caller was told it happened. True at least while {@link #problem} is present; by default only
   * then.
   */
  default boolean confirmChanges() {
    return problem().isPresent();
  }

  /**
   * Whether the store keeps an index of every waiting message in each of its queue's orders: then
   * the engine appends a {@link JournalEntry.Placement} for every change of a message's place, and
   * {@link #orders} reads them. Asked once when the engine starts. Default: no, so a journal that
   * wraps another must pass both on, or the store's index goes stale.
   */
  default boolean maintainsOrders() {
    return false;
  }

  /** Reads the orders the store keeps; empty unless {@link #maintainsOrders}. */
  default Optional<Orders> orders() {
    return Optional.empty();
  }

  /** Flushes what was appended and releases the store. */
  @Override
  void close();

  /** Completion of a durable append. */
  interface Ticket {
    /**
     * Blocks until the entries are durable; throws {@code QueueException} with code {@code
     * UNAVAILABLE} when they could not be stored (and then are not).
     */
    void await();
  }

  /** A ticket already complete, for journals with nothing to wait for. */
  Ticket DONE = () -> {};
}
