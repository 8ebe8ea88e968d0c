package io.switchboard.queue.spi;

/**
 * The rule every engine applies for fair queues (Amazon SQS fair queues, concurrency share): in a
 * standard queue a message group is a tenant, and a tenant is <em>noisy</em> while it holds at
 * least {@value #NOISY_MIN_IN_FLIGHT} messages in flight and more than {@value
 * #NOISY_SHARE_PERCENT}% of the queue's messages in flight. An unfiltered receive takes the best
 * available message of a tenant that is not noisy (a message without a group is a tenant of its
 * own, never noisy); only when every tenant with an available message is noisy does it take from
 * the one with the fewest messages in flight (the first in queue order on a tie).
 */
public final class FairShareRules {

  /** A tenant is noisy only with at least this many messages in flight. */
  public static final int NOISY_MIN_IN_FLIGHT = 30;

  /** ... and more than this share (percent) of the queue's messages in flight. */
  public static final int NOISY_SHARE_PERCENT = 10;

  private FairShareRules() {}

  /** Whether a group with {@code groupInFlight} of the queue's {@code queueInFlight} is noisy. */
  public static boolean noisy(long groupInFlight, long queueInFlight) {
    return groupInFlight >= NOISY_MIN_IN_FLIGHT
        && groupInFlight * 100 > queueInFlight * NOISY_SHARE_PERCENT;
  }
}
