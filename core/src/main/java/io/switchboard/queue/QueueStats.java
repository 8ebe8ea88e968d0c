package io.switchboard.queue;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A consistent snapshot of one queue.
 *
 * @param available receivable now
 * @param delayed waiting for their delay
 * @param inFlight leased
 * @param oldestAge age of the oldest message in the queue (any state), if any
 * @param byPriority messages in the queue (any state) per priority, highest priority first
 * @param waitingReceivers long polls blocked on this queue right now
 * @param counters totals since the queue was created
 */
public record QueueStats(
    long available,
    long delayed,
    long inFlight,
    Optional<Duration> oldestAge,
    Map<Integer, Long> byPriority,
    int waitingReceivers,
    Counters counters) {

  /** Messages in the queue, all states. */
  public long depth() {
    return available + delayed + inFlight;
  }

  /**
   * Monotonic totals.
   *
   * @param sent messages enqueued (duplicates excluded)
   * @param duplicates sends dropped by deduplication
   * @param received deliveries (a message received twice counts twice)
   * @param acked acknowledged
   * @param released returned by their consumer, or whose visibility timeout ran out
   * @param failed reported failed by their consumer
   * @param expired retention or time to live ran out
   * @param shed dropped by {@link Overflow#DROP_OLDEST}
   * @param deadLettered moved to the dead-letter queue
   * @param removed cancelled by id or purged
   * @param keyLimited receives that passed over a message because its key (message group) was at
   *     the queue's {@code keyLimit}
   */
  public record Counters(
      long sent,
      long duplicates,
      long received,
      long acked,
      long released,
      long failed,
      long expired,
      long shed,
      long deadLettered,
      long removed,
      long keyLimited) {}
}
