package io.switchboard.queue.spi;

import io.switchboard.queue.AttributeValue;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Everything that defines one message, as a journal stores it. Times are epoch milliseconds; 0
 * means "never" for {@code firstReceivedAt}, and "not timed" for {@code visibleAt}. Null group,
 * deduplication id and dead-letter source mean none.
 *
 * @param serial identity, unique for the life of the data directory
 * @param seq ordering key within the priority
 * @param state one of {@link #DELAYED}, {@link #AVAILABLE}, {@link #IN_FLIGHT}
 * @param leaseEpoch counts leases and arrivals; receipts carry it, so it must survive restarts
 */
public record MessageRecord(
    long serial,
    long seq,
    long sentAt,
    byte[] body,
    Map<String, AttributeValue> attributes,
    int priority,
    @Nullable String groupId,
    @Nullable String dedupId,
    byte state,
    int receiveCount,
    int leaseEpoch,
    long visibleAt,
    long expiresAt,
    long firstReceivedAt,
    long leasedAt,
    @Nullable String deadLetterSource) {

  public static final byte DELAYED = 0;
  public static final byte AVAILABLE = 1;
  public static final byte IN_FLIGHT = 2;

  public MessageRecord {
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(attributes, "attributes");
  }

  /** The part that changes while the message lives: written alone on receives and returns. */
  public StateRecord stateRecord() {
    return new StateRecord(
        seq,
        priority,
        state,
        receiveCount,
        leaseEpoch,
        visibleAt,
        expiresAt,
        firstReceivedAt,
        leasedAt,
        deadLetterSource);
  }

  /** This message with its mutable part replaced. */
  public MessageRecord with(StateRecord s) {
    return of(serial, sentAt, body, attributes, groupId, dedupId, s);
  }

  /** A message from its part that never changes and its mutable part. */
  public static MessageRecord of(
      long serial,
      long sentAt,
      byte[] body,
      Map<String, AttributeValue> attributes,
      @Nullable String groupId,
      @Nullable String dedupId,
      StateRecord s) {
    return new MessageRecord(
        serial,
        s.seq(),
        sentAt,
        body,
        attributes,
        s.priority(),
        groupId,
        dedupId,
        s.state(),
        s.receiveCount(),
        s.leaseEpoch(),
        s.visibleAt(),
        s.expiresAt(),
        s.firstReceivedAt(),
        s.leasedAt(),
        s.deadLetterSource());
  }

  /** The mutable part of a message. */
  public record StateRecord(
      long seq,
      int priority,
      byte state,
      int receiveCount,
      int leaseEpoch,
      long visibleAt,
      long expiresAt,
      long firstReceivedAt,
      long leasedAt,
      @Nullable String deadLetterSource) {}
}
