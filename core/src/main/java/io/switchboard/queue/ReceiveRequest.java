package io.switchboard.queue;

import io.switchboard.queue.spi.QueueRules;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a consumer asks for.
 *
 * @param maxMessages 1..1000 (SQS allows 10; the native API more)
 * @param visibilityTimeout lease length; the queue's when absent; 0 s..12 h
 * @param waitTime how long to block when nothing is eligible; the queue's receive wait when absent;
 *     0..20 s
 * @param filter only messages it accepts are eligible (in grouped queues: only group heads)
 */
public record ReceiveRequest(
    int maxMessages,
    Optional<Duration> visibilityTimeout,
    Optional<Duration> waitTime,
    Optional<MessageFilter> filter) {

  public static final int MAX_MESSAGES = 1000;

  public ReceiveRequest {
    if (maxMessages < 1 || maxMessages > MAX_MESSAGES) {
      throw QueueException.invalid("maxMessages must be 1..1000, got " + maxMessages);
    }
    Objects.requireNonNull(visibilityTimeout, "visibilityTimeout");
    Objects.requireNonNull(waitTime, "waitTime");
    Objects.requireNonNull(filter, "filter");
    visibilityTimeout.ifPresent(
        v ->
            QueueRules.checkRange(
                "visibilityTimeout", v, Duration.ZERO, QueueConfig.MAX_VISIBILITY));
    waitTime.ifPresent(
        w -> QueueRules.checkRange("waitTime", w, Duration.ZERO, QueueConfig.MAX_RECEIVE_WAIT));
  }

  /** One message, the queue's visibility timeout and wait, no filter. */
  public static ReceiveRequest one() {
    return builder().build();
  }

  public static ReceiveRequest max(int maxMessages) {
    return builder().maxMessages(maxMessages).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link ReceiveRequest}. */
  public static final class Builder {
    private int maxMessages = 1;
    private Optional<Duration> visibilityTimeout = Optional.empty();
    private Optional<Duration> waitTime = Optional.empty();
    private Optional<MessageFilter> filter = Optional.empty();

    private Builder() {}

    public Builder maxMessages(int maxMessages) {
      this.maxMessages = maxMessages;
      return this;
    }

    public Builder visibilityTimeout(Duration visibilityTimeout) {
      this.visibilityTimeout = Optional.of(visibilityTimeout);
      return this;
    }

    public Builder waitTime(Duration waitTime) {
      this.waitTime = Optional.of(waitTime);
      return this;
    }

    public Builder filter(MessageFilter filter) {
      this.filter = Optional.of(filter);
      return this;
    }

    /**
     * Filters with a selector ({@code docs/selectors.md}), e.g. {@code language = 'es' AND gender =
     * 'M'}; refused with {@link ErrorCode#INVALID_SELECTOR} when it does not parse.
     */
    public Builder selector(String selector) {
      return filter(SelectorFilter.parse(selector));
    }

    public ReceiveRequest build() {
      return new ReceiveRequest(maxMessages, visibilityTimeout, waitTime, filter);
    }
  }
}
