package io.switchboard.queue;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * A message as the engine shows it: on receive (with a receipt), get and browse (without).
 *
 * @param id server-assigned, unique across queues
 * @param body UTF-8 text
 * @param attributes typed attributes, immutable
 * @param priority higher first
 * @param groupId message group, if any
 * @param deduplicationId explicit or content-based deduplication id, if any
 * @param sequence ordering number, monotonic per queue among sends
 * @param state where the message stands
 * @param sentAt when it was first sent
 * @param firstReceivedAt when it was first received
 * @param receiveCount how many times it was received
 * @param visibleAt for delayed and in-flight messages: when they become available again
 * @param expiresAt when retention or time to live runs out
 * @param receipt the handle to ack, release or extend this lease (receives only)
 * @param deadLetterSource for a dead-lettered message: the queue it came from
 */
public record Message(
    String id,
    String body,
    Map<String, AttributeValue> attributes,
    int priority,
    Optional<String> groupId,
    Optional<String> deduplicationId,
    long sequence,
    MessageState state,
    Instant sentAt,
    Optional<Instant> firstReceivedAt,
    int receiveCount,
    Optional<Instant> visibleAt,
    Instant expiresAt,
    Optional<String> receipt,
    Optional<String> deadLetterSource) {}
