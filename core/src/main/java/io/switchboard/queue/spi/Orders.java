package io.switchboard.queue.spi;

import io.switchboard.queue.Order;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads a queue's orders from a store that keeps an index of every waiting message (a journal whose
 * {@link Journal#maintainsOrders} is true): the first messages of an order, by serial. Every read
 * sees every entry appended to the journal before it (it waits for the journal's writer when
 * something is still queued), so the engine never reads a state older than one it journaled.
 *
 * <p>A read starts at the beginning of the order, or strictly after a message's place ({@link
 * After}: the last message of the previous page, or any place the engine holds, such as the end of
 * its hot window; the message need not be stored any more). Results are at most {@code limit}
 * serials long.
 */
public interface Orders {

  /** A place in an order to read on from: the message's serial and its place there. */
  record After(long serial, Place place) {}

  /**
   * Available messages of a standard queue in delivery order: priority descending, then seq
   * ascending ({@link Order#FIFO}) or descending ({@link Order#LIFO}), then serial.
   */
  List<Long> available(String queue, Order order, @Nullable After after, int limit);

  default List<Long> available(String queue, Order order, int limit) {
    return available(queue, order, null, limit);
  }

  /**
   * Whether the store keeps each attribute partition's line and count ({@link #partition}, {@link
   * #partitions}); without them a filtered receive over cold messages reads the whole backlog.
   */
  default boolean keepsPartitions() {
    return false;
  }

  /**
   * Available messages of one attribute partition ({@link Place#partition}) of a standard queue, in
   * delivery order, as {@link #available}. A store that keeps no partition lines answers as if
   * every partition were empty; the engine reads partitions only when {@link #partitions} counts
   * them.
   */
  default List<Long> partition(
      String queue, Order order, String partition, @Nullable After after, int limit) {
    return List.of();
  }

  /**
   * The queue's available messages by attribute partition ({@link Place#partition}), non-zero
   * counts only: the catalogue a restart rebuilds without reading a message. Empty from a store
   * that keeps none.
   */
  default java.util.Map<String, Long> partitions(String queue) {
    return java.util.Map.of();
  }

  /**
   * Whether the store keeps each tenant's line and count in a standard queue ({@link #tenant},
   * {@link #tenants}): the available messages with a group id, by group id ({@link Place#groupId});
   * without them a fair queue with cold messages keeps every message in the heap.
   */
  default boolean keepsTenants() {
    return false;
  }

  /**
   * Available messages of one tenant (a group id) of a standard queue, in delivery order, as {@link
   * #available}. A store that keeps no tenant lines answers as if every tenant were empty.
   */
  default List<Long> tenant(
      String queue, Order order, String groupId, @Nullable After after, int limit) {
    return List.of();
  }

  /**
   * A standard queue's available messages with a group id, by group id, non-zero counts only: the
   * catalogue of tenants a restart rebuilds without reading a message. Empty from a store that
   * keeps none.
   */
  default java.util.Map<String, Long> tenants(String queue) {
    return java.util.Map.of();
  }

  /**
   * Whether the store keeps the delayed messages of a standard queue in delivery order ({@link
   * #delayedInOrder}); without it the engine keeps every delayed message in the heap.
   */
  default boolean keepsDelayedOrder() {
    return false;
  }

  /**
   * Delayed messages of a standard queue in delivery order, as {@link #available} orders the
   * available ones (a browse that shows them, a redrive's snapshot). A store that does not keep
   * that order ({@link #keepsDelayedOrder}) answers as if none were delayed.
   */
  default List<Long> delayedInOrder(String queue, Order order, @Nullable After after, int limit) {
    return List.of();
  }

  /** Delayed messages by the time they become available, then serial. */
  List<Long> delayed(String queue, @Nullable After after, int limit);

  default List<Long> delayed(String queue, int limit) {
    return delayed(queue, null, limit);
  }

  /** Every message in flight, by serial. */
  List<Long> inFlight(String queue, @Nullable After after, int limit);

  default List<Long> inFlight(String queue, int limit) {
    return inFlight(queue, null, limit);
  }

  /** Every message of the queue by expiry time, then serial. */
  List<Long> byExpiry(String queue, @Nullable After after, int limit);

  default List<Long> byExpiry(String queue, int limit) {
    return byExpiry(queue, null, limit);
  }

  /** Every message of the queue by send time, then serial. */
  List<Long> byArrival(String queue, @Nullable After after, int limit);

  default List<Long> byArrival(String queue, int limit) {
    return byArrival(queue, null, limit);
  }

  /** Every message of one group of a grouped queue, in the group's order (seq, then serial). */
  List<Long> group(String queue, String groupId, @Nullable After after, int limit);

  default List<Long> group(String queue, String groupId, int limit) {
    return group(queue, groupId, null, limit);
  }

  /** One stored message. */
  Optional<MessageRecord> read(String queue, long serial);

  /**
   * Several stored messages at once, in the order of {@code serials}, empty where the store holds
   * none: a page of a refill in one call (a store answers it with one batched read). By default one
   * {@link #read} each.
   */
  default List<Optional<MessageRecord>> readAll(String queue, List<Long> serials) {
    List<Optional<MessageRecord>> out = new java.util.ArrayList<>(serials.size());
    for (long serial : serials) {
      out.add(read(queue, serial));
    }
    return out;
  }

  /**
   * How many messages the queue holds by state, and by priority in any state (non-zero counts only,
   * highest priority first): kept with the index, so reading them costs a few keys, not a count of
   * the queue.
   */
  Counts counts(String queue);

  /** A queue's counts; {@code byPriority} is ordered highest first and holds no zero. */
  record Counts(
      long available, long delayed, long inFlight, java.util.SortedMap<Integer, Long> byPriority) {}
}
