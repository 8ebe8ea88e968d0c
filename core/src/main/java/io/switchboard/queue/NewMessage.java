package io.switchboard.queue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A message to send. Only the body is required; see {@link Builder} for the rest.
 *
 * @param body UTF-8 text
 * @param attributes typed attributes, at most 64 (names of letters of any script, digits and {@code
 *     _ . -}, 1..256 characters, not starting with {@code sys.})
 * @param priority higher is delivered first; default 0
 * @param groupId message group (required on grouped queues), 1..128 printable ASCII characters
 * @param deduplicationId sends with the same id within five minutes enqueue once
 * @param delay overrides the queue's delay; 0..900 s
 * @param timeToLive expires the message earlier than the queue's retention; at least 1 ms
 */
public record NewMessage(
    String body,
    Map<String, AttributeValue> attributes,
    int priority,
    Optional<String> groupId,
    Optional<String> deduplicationId,
    Optional<Duration> delay,
    Optional<Duration> timeToLive) {

  public NewMessage {
    Objects.requireNonNull(body, "body");
    attributes = Map.copyOf(Objects.requireNonNull(attributes, "attributes"));
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(deduplicationId, "deduplicationId");
    Objects.requireNonNull(delay, "delay");
    Objects.requireNonNull(timeToLive, "timeToLive");
  }

  public static NewMessage of(String body) {
    return builder(body).build();
  }

  public static Builder builder(String body) {
    return new Builder(body);
  }

  /** Builds a {@link NewMessage}. */
  public static final class Builder {
    private final String body;
    private final Map<String, AttributeValue> attributes = new LinkedHashMap<>();
    private int priority;
    private Optional<String> groupId = Optional.empty();
    private Optional<String> deduplicationId = Optional.empty();
    private Optional<Duration> delay = Optional.empty();
    private Optional<Duration> timeToLive = Optional.empty();

    private Builder(String body) {
      this.body = Objects.requireNonNull(body, "body");
    }

    public Builder attribute(String name, AttributeValue value) {
      attributes.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public Builder attribute(String name, String value) {
      return attribute(name, AttributeValue.string(value));
    }

    public Builder attributes(Map<String, AttributeValue> values) {
      values.forEach(this::attribute);
      return this;
    }

    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    public Builder groupId(String groupId) {
      this.groupId = Optional.of(groupId);
      return this;
    }

    public Builder deduplicationId(String deduplicationId) {
      this.deduplicationId = Optional.of(deduplicationId);
      return this;
    }

    public Builder delay(Duration delay) {
      this.delay = Optional.of(delay);
      return this;
    }

    public Builder timeToLive(Duration timeToLive) {
      this.timeToLive = Optional.of(timeToLive);
      return this;
    }

    public NewMessage build() {
      return new NewMessage(
          body, attributes, priority, groupId, deduplicationId, delay, timeToLive);
    }
  }
}
