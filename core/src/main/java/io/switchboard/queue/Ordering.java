package io.switchboard.queue;

import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Decides which messages are eligible and in what order. {@link StandardOrdering} keeps available
 * messages sorted by (priority desc, seq); {@link GroupedOrdering} keeps per-group lines and a
 * sorted set of ready group heads (SQS FIFO rules). The owning {@link LocalQueue} tells it about
 * every state change, under the queue's lock.
 */
abstract sealed class Ordering permits StandardOrdering, GroupedOrdering {

  /** Priority descending, then seq ascending (FIFO) or descending (LIFO), then serial. */
  static Comparator<StoredMessage> comparator(Order order) {
    return order == Order.FIFO
        ? (a, b) -> {
          int c = Integer.compare(b.priority, a.priority);
          if (c != 0) {
            return c;
          }
          c = Long.compare(a.seq, b.seq);
          return c != 0 ? c : Long.compare(a.serial, b.serial);
        }
        : (a, b) -> {
          int c = Integer.compare(b.priority, a.priority);
          if (c != 0) {
            return c;
          }
          c = Long.compare(b.seq, a.seq);
          return c != 0 ? c : Long.compare(a.serial, b.serial);
        };
  }

  /** A new message entered the queue; its state (DELAYED or AVAILABLE) is set. */
  abstract void added(StoredMessage m);

  /**
   * The message's state just changed from {@code from} to {@code m.state} (any change among
   * DELAYED, AVAILABLE and IN_FLIGHT except a take, which the ordering does itself).
   */
  abstract void stateChanged(StoredMessage m, byte from);

  /** The message is about to leave the queue (any state) or become unavailable. */
  abstract void removed(StoredMessage m);

  /**
   * Picks up to {@code max} eligible messages in delivery order into {@code out} and takes them out
   * of the eligible structures; the caller then leases each one. A filtered take tests candidates
   * from where {@code scan} stopped and stops when its budget for this lock hold is spent (then
   * {@code scan} says where it stopped); an unfiltered take ignores {@code scan}. It stops before a
   * message that does not fit in {@code budget}.
   */
  abstract void take(
      int max,
      @Nullable MessageFilter filter,
      long now,
      List<StoredMessage> out,
      @Nullable Scan scan,
      AnswerBudget budget);

  /** Runs {@code change} (which may alter priority or seq) keeping the structures sorted. */
  abstract void reorder(StoredMessage m, Runnable change);

  /** How many messages a filtered take may test: available ones, or ready group heads. */
  abstract long eligibleCount();

  /** Whether anything is eligible for an unfiltered receive. */
  abstract boolean hasEligible();

  /** Whether {@code m} is eligible right now (available, and a group head or behind one). */
  abstract boolean isEligible(StoredMessage m);

  /**
   * Eligible messages in delivery order strictly after {@code after} (null: from the start) that
   * may pass {@code filter} (null: all): from the attribute index when the filter is a selector it
   * can serve, else every one. The caller still tests the filter.
   */
  abstract Iterable<StoredMessage> candidates(
      @Nullable StoredMessage after, @Nullable MessageFilter filter);

  abstract void clear();

  /**
   * Set by each {@link #take}: whether it passed over a message because its key (message group) was
   * at the queue's limit per key ({@code QueueStats.Counters#keyLimited}).
   */
  boolean skippedKey;

  /**
   * Set when a key came under its limit with messages waiting: a blocked filtered receive may now
   * match one of them that is not the key's best ({@link WaitLine#rescanFiltered}); the queue
   * clears it when it hands over.
   */
  boolean keyFreed;

  /** Whether a key at its limit has a message waiting that receives pass over. */
  abstract boolean anyHeld();

  /** Sets the queue's limit per key (its {@code keyLimit}; 0: none). */
  abstract void keyLimit(int limit);
}
