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
 * @param batchWindow how long a receive that took fewer messages than the pace granted keeps
 *     receiving to fill them up before the sink gets them as one batch ({@link Sink#deliverBatch});
 *     zero hands over what each receive took at once
 */
public record ConsumeOptions(
    int credit,
    Optional<MessageFilter> filter,
    Optional<Duration> visibilityTimeout,
    Pace pace,
    Duration batchWindow) {

  public ConsumeOptions {
    if (credit < 1) {
      throw new IllegalArgumentException("credit must be 1 or more, got " + credit);
    }
    Objects.requireNonNull(filter, "filter");
    Objects.requireNonNull(visibilityTimeout, "visibilityTimeout");
    Objects.requireNonNull(pace, "pace");
    if (batchWindow.isNegative()) {
      throw new IllegalArgumentException("batchWindow must be 0 or more, got " + batchWindow);
    }
  }

  /** {@code credit} messages at a time, every message, the queue's lease, no rate. */
  public static ConsumeOptions credit(int credit) {
    return new ConsumeOptions(
        credit, Optional.empty(), Optional.empty(), Pace.UNLIMITED, Duration.ZERO);
  }

  public ConsumeOptions filter(MessageFilter filter) {
    return new ConsumeOptions(credit, Optional.of(filter), visibilityTimeout, pace, batchWindow);
  }

  public ConsumeOptions visibilityTimeout(Duration visibilityTimeout) {
    return new ConsumeOptions(credit, filter, Optional.of(visibilityTimeout), pace, batchWindow);
  }

  public ConsumeOptions pace(Pace pace) {
    return new ConsumeOptions(credit, filter, visibilityTimeout, pace, batchWindow);
  }

  public ConsumeOptions batchWindow(Duration batchWindow) {
    return new ConsumeOptions(credit, filter, visibilityTimeout, pace, batchWindow);
  }
}
