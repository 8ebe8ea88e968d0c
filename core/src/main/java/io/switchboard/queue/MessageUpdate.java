package io.switchboard.queue;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A change to a queued message. Absent parts stay as they are. A priority change keeps the
 * message's place among messages of its new priority (its sequence number is unchanged).
 *
 * @param priority the new priority
 * @param attributes the new attributes, replacing all the old ones
 */
public record MessageUpdate(
    Optional<Integer> priority, Optional<Map<String, AttributeValue>> attributes) {

  public MessageUpdate {
    Objects.requireNonNull(priority, "priority");
    attributes = Objects.requireNonNull(attributes, "attributes").map(Map::copyOf);
  }

  public static MessageUpdate priority(int priority) {
    return new MessageUpdate(Optional.of(priority), Optional.empty());
  }

  public static MessageUpdate attributes(Map<String, AttributeValue> attributes) {
    return new MessageUpdate(Optional.empty(), Optional.of(attributes));
  }
}
