package io.switchboard.server.dispatch;

import io.switchboard.queue.MessageFilter;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a subscription takes from its queue and how.
 *
 * @param credit the most messages it holds leased and unsettled at once (1 or more)
 * @param filter only messages it accepts (a selector), or all
 * @param visibilityTimeout each lease's length, or the queue's visibility timeout
 * @param pace the rate it may take them at
 */
public record ConsumeOptions(
    int credit, Optional<MessageFilter> filter, Optional<Duration> visibilityTimeout, Pace pace) {

  public ConsumeOptions {
    if (credit < 1) {
      throw new IllegalArgumentException("credit must be 1 or more, got " + credit);
    }
    Objects.requireNonNull(filter, "filter");
    Objects.requireNonNull(visibilityTimeout, "visibilityTimeout");
    Objects.requireNonNull(pace, "pace");
  }

  /** {@code credit} messages at a time, every message, the queue's lease, no rate. */
  public static ConsumeOptions credit(int credit) {
    return new ConsumeOptions(credit, Optional.empty(), Optional.empty(), Pace.UNLIMITED);
  }

  public ConsumeOptions filter(MessageFilter filter) {
    return new ConsumeOptions(credit, Optional.of(filter), visibilityTimeout, pace);
  }

  public ConsumeOptions visibilityTimeout(Duration visibilityTimeout) {
    return new ConsumeOptions(credit, filter, Optional.of(visibilityTimeout), pace);
  }

  public ConsumeOptions pace(Pace pace) {
    return new ConsumeOptions(credit, filter, visibilityTimeout, pace);
  }
}
