package io.switchboard.tck.model;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.MessageState;
import java.util.Map;
import java.util.Optional;

/** What the model expects an engine's {@code Message} to say; times in epoch milliseconds. */
public record ModelView(
    String id,
    String body,
    Map<String, AttributeValue> attributes,
    int priority,
    Optional<String> groupId,
    Optional<String> deduplicationId,
    MessageState state,
    long sentAt,
    Optional<Long> firstReceivedAt,
    int receiveCount,
    Optional<Long> visibleAt,
    long expiresAt,
    Optional<String> deadLetterSource) {}
