package io.switchboard.queue.spi;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.NewMessage;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A {@link NewMessage} checked against a queue's rules ({@link MessageRules#check}), in the form an
 * engine stores.
 *
 * @param source the message as sent
 * @param body UTF-8 body
 * @param dedupId the deduplication id (explicit or content-based), or null
 * @param dedupKey the key the deduplication window is searched by (scoped to the group when the
 *     queue asks), or null
 * @param delayMillis how long the message stays delayed (the queue's default when it names none)
 * @param ttlMillis how long it lives (the queue's retention when it names none)
 */
public record CheckedMessage(
    NewMessage source,
    byte[] body,
    @Nullable String dedupId,
    @Nullable String dedupKey,
    long delayMillis,
    long ttlMillis) {

  /** The message's attributes, checked. */
  public Map<String, AttributeValue> attributes() {
    return source.attributes();
  }
}
