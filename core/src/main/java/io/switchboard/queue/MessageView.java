package io.switchboard.queue;

import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link MessageFilter} may look at. Implemented by the engine's own message records, so
 * testing a filter allocates nothing.
 */
public interface MessageView {

  /**
   * The attribute of that name, or {@code null} when the message has none. The one deliberate null
   * of the API: filters call this on the hot path of every filtered receive.
   */
  @Nullable AttributeValue attributeOrNull(String name);

  Map<String, AttributeValue> attributes();

  int priority();

  Optional<String> groupId();

  /** When the message was first sent, in epoch milliseconds. */
  long sentAtMillis();

  /** How many times the message has been received. */
  int receiveCount();
}
