package io.switchboard.queue.spi;

import io.switchboard.queue.AttributeValue;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Everything that defines one message, as a journal stores it: the part that never changes (except
 * the attributes, by an attribute update) and its mutable {@link StateRecord}, which is written
 * alone on receives and returns. Each field is declared once, in one of the two; the accessors
 * below for the state's fields read through to it, for callers that read one field (every form of
 * the message reads {@link #stateRecord()} whole, so a new field of the state needs no accessor
 * here). Times are epoch milliseconds; 0 means "never" for {@code firstReceivedAt}, and "not timed"
 * for {@code visibleAt}. Null group, deduplication id and dead-letter source mean none.
 *
 * @param serial identity, unique for the life of the data directory
 * @param stateRecord the part that changes while the message lives
 */
public record MessageRecord(
    long serial,
    long sentAt,
    byte[] body,
    Map<String, AttributeValue> attributes,
    @Nullable String groupId,
    @Nullable String dedupId,
    StateRecord stateRecord) {

  public static final byte DELAYED = 0;
  public static final byte AVAILABLE = 1;
  public static final byte IN_FLIGHT = 2;

  public MessageRecord {
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(attributes, "attributes");
    Objects.requireNonNull(stateRecord, "stateRecord");
  }

  /** This message with its mutable part replaced. */
  public MessageRecord with(StateRecord s) {
    return new MessageRecord(serial, sentAt, body, attributes, groupId, dedupId, s);
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
    return new MessageRecord(serial, sentAt, body, attributes, groupId, dedupId, s);
  }

  /** Ordering key within the priority. */
  public long seq() {
    return stateRecord.seq();
  }

  public int priority() {
    return stateRecord.priority();
  }

  /** One of {@link #DELAYED}, {@link #AVAILABLE}, {@link #IN_FLIGHT}. */
  public byte state() {
    return stateRecord.state();
  }

  public int receiveCount() {
    return stateRecord.receiveCount();
  }

  /** Counts leases and arrivals; receipts carry it, so it must survive restarts. */
  public int leaseEpoch() {
    return stateRecord.leaseEpoch();
  }

  public long visibleAt() {
    return stateRecord.visibleAt();
  }

  public long expiresAt() {
    return stateRecord.expiresAt();
  }

  public long firstReceivedAt() {
    return stateRecord.firstReceivedAt();
  }

  public long leasedAt() {
    return stateRecord.leasedAt();
  }

  public @Nullable String deadLetterSource() {
    return stateRecord.deadLetterSource();
  }

  /**
   * The mutable part of a message.
   *
   * @param seq ordering key within the priority
   * @param state one of {@link #DELAYED}, {@link #AVAILABLE}, {@link #IN_FLIGHT}
   * @param leaseEpoch counts leases and arrivals; receipts carry it, so it must survive restarts
   */
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
