package io.switchboard.server.dispatch;

/**
 * How fast a {@link Subscription} may take messages, on top of its credit: unlimited for a stream
 * consumer, a token bucket for an endpoint that must not be flooded. The subscription asks before
 * each receive.
 */
@FunctionalInterface
public interface Pace {

  /** Takes whatever credit allows. */
  Pace UNLIMITED = wanted -> wanted;

  /**
   * Blocks until at least one message may be taken and returns how many (1..{@code wanted}).
   *
   * @throws InterruptedException when the subscription closes meanwhile
   */
  int permits(int wanted) throws InterruptedException;

  /**
   * What the receive after {@link #permits} took: {@code got} of the {@code granted} messages (0
   * when its long poll ended empty, or the subscription closed meanwhile). A pace that counts
   * deliveries rather than messages gives back what a receive did not use. Nothing by default.
   */
  default void taken(int granted, int got) {}

  /**
   * How long the next receive may wait for a message: the longest a long poll may, by default. A
   * pace whose filter may turn to accept a message already waiting (a key no longer at its limit)
   * answers less, since nothing in the queue wakes a receive for that.
   */
  default java.time.Duration receiveWait() {
    return io.switchboard.queue.QueueConfig.MAX_RECEIVE_WAIT;
  }
}
