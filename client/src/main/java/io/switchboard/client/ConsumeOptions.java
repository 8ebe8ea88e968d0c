package io.switchboard.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link SwitchboardClient#consume} stream takes (docs/api.md#grpc).
 *
 * @param credit the most messages the stream holds leased and unsettled at once (1 up to the
 *     server's {@code grpc-max-credit})
 * @param selector only messages it accepts (docs/selectors.md), or all
 * @param visibilityTimeout each lease's length, or the queue's visibility timeout
 */
public record ConsumeOptions(
    int credit, Optional<String> selector, Optional<Duration> visibilityTimeout) {

  public ConsumeOptions {
    if (credit < 1) {
      throw new IllegalArgumentException("credit must be 1 or more, got " + credit);
    }
    Objects.requireNonNull(selector, "selector");
    Objects.requireNonNull(visibilityTimeout, "visibilityTimeout");
  }

  /** Up to {@code credit} messages at a time, every message, the queue's lease. */
  public static ConsumeOptions credit(int credit) {
    return new ConsumeOptions(credit, Optional.empty(), Optional.empty());
  }

  public ConsumeOptions selector(String selector) {
    return new ConsumeOptions(credit, Optional.of(selector), visibilityTimeout);
  }

  public ConsumeOptions visibilityTimeout(Duration visibilityTimeout) {
    return new ConsumeOptions(credit, selector, Optional.of(visibilityTimeout));
  }
}
