package io.switchboard.queue;

import java.util.List;

/**
 * All queues of an engine at a glance, in a size that does not grow with their number: totals over
 * every queue, the largest use of each per-queue limit, and the names of the deepest queues and of
 * those with the oldest messages (what the server's {@code /metrics} shows one by one; {@link
 * QueueEngine#overview}).
 *
 * @param queues how many queues there are
 * @param available messages receivable now, in all queues
 * @param delayed messages waiting for their delay, in all queues
 * @param inFlight messages leased, in all queues
 * @param mostBytes the queued bytes of the queue holding the most ({@link
 *     QueueLimits#maxQueueBytes} counts them)
 * @param mostInFlight the messages in flight in the standard queue with the most
 * @param mostInFlightGrouped the same among grouped ({@code .fifo}) queues
 * @param mostAtDefaultDepth the messages in the deepest queue whose configuration sets no {@code
 *     maxDepth} (held to {@link QueueLimits#defaultMaxDepth})
 * @param deepest the names of at most the asked number of queues holding the most messages (all
 *     states), deepest first; among queues of equal depth, any
 * @param oldest the names of at most the asked number of queues whose oldest message (any state) is
 *     oldest, oldest first; empty queues are not among them
 */
public record QueueOverview(
    int queues,
    long available,
    long delayed,
    long inFlight,
    long mostBytes,
    long mostInFlight,
    long mostInFlightGrouped,
    long mostAtDefaultDepth,
    List<String> deepest,
    List<String> oldest) {
  public QueueOverview {
    deepest = List.copyOf(deepest);
    oldest = List.copyOf(oldest);
  }

  /** Messages in all queues, all states. */
  public long depth() {
    return available + delayed + inFlight;
  }
}
