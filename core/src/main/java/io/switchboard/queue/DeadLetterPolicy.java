package io.switchboard.queue;

import io.switchboard.queue.spi.QueueRules;
import java.util.Objects;

/**
 * Where messages go that fail too often: once a message has been received {@code maxReceiveCount}
 * times, it moves to {@code target} instead of becoming visible again.
 */
public record DeadLetterPolicy(String target, int maxReceiveCount) {

  public static final int MAX_RECEIVE_COUNT = 1000;

  public DeadLetterPolicy {
    Objects.requireNonNull(target, "target");
    QueueRules.checkName(target, "deadLetter.target");
    if (maxReceiveCount < 1 || maxReceiveCount > MAX_RECEIVE_COUNT) {
      throw QueueException.invalid(
          "deadLetter.maxReceiveCount must be 1..1000, got " + maxReceiveCount);
    }
  }

  public static DeadLetterPolicy of(String target, int maxReceiveCount) {
    return new DeadLetterPolicy(target, maxReceiveCount);
  }
}
