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
}
