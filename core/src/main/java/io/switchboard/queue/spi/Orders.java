package io.switchboard.queue.spi;

import io.switchboard.queue.Order;
import java.util.List;
import java.util.Optional;

/**
 * Reads a queue's orders from a store that keeps an index of every waiting message (a journal whose
 * {@link Journal#maintainsOrders} is true): the first messages of an order, by serial. Every read
 * sees every entry appended to the journal before it (it waits for the journal's writer when
 * something is still queued), so the engine never reads a state older than one it journaled.
 *
 * <p>Positions are exclusive: {@code after} is the serial of the last message already read, or 0 to
 * start from the beginning of the order. Results are at most {@code limit} serials long.
 */
public interface Orders {

  /**
   * Available messages of a standard queue in delivery order: priority descending, then seq
   * ascending ({@link Order#FIFO}) or descending ({@link Order#LIFO}), then serial.
   */
  List<Long> available(String queue, Order order, int limit);

  /** Delayed messages by the time they become available, then serial. */
  List<Long> delayed(String queue, int limit);

  /** Every message in flight, by serial. */
  List<Long> inFlight(String queue, int limit);

  /** Every message of the queue by expiry time, then serial. */
  List<Long> byExpiry(String queue, int limit);

  /** Every message of the queue by send time, then serial. */
  List<Long> byArrival(String queue, int limit);

  /** Every message of one group of a grouped queue, in the group's order (seq, then serial). */
  List<Long> group(String queue, String groupId, int limit);

  /** One stored message. */
  Optional<MessageRecord> read(String queue, long serial);
}
