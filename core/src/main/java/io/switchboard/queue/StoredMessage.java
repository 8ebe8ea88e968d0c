package io.switchboard.queue;

import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One message as the engine keeps it. Mutable, and touched only under its queue's lock. Kept small
 * on purpose (the heap budget is 400 bytes per queued message including a 100-byte body): the body
 * stays UTF-8 bytes, attributes are one flat array of interned names and values, times are epoch
 * milliseconds.
 */
final class StoredMessage implements MessageView {

  static final byte DELAYED = 0;
  static final byte AVAILABLE = 1;
  static final byte IN_FLIGHT = 2;

  /** Identity: unique across queues for the engine's lifetime, kept when moved between queues. */
  final long serial;

  final long sentAt;
  final byte[] body;
  final @Nullable String groupId;
  final @Nullable String dedupId;

  /** Ordering key within the priority: FIFO ascending, LIFO descending. */
  long seq;

  int priority;
  byte state;
  int receiveCount;

  /**
   * Leases plus arrivals in a queue; receipts carry it. Unlike {@link #receiveCount}, which a
   * redrive resets, it never repeats, so a receipt from before a trip through the dead-letter queue
   * cannot match a lease made after it.
   */
  int leaseEpoch;

  /**
   * The tag of the receipt handle issued for the current lease ({@link #leaseEpoch}), or null (none
   * issued since the last arrival or lease, or not kept across a restart). An ack, release or
   * extend whose handle names this lease and carries this tag needs no MAC computed; any other
   * handle is checked by its MAC.
   */
  byte @Nullable [] leaseTag;

  /** DELAYED and IN_FLIGHT: when the message becomes available. */
  long visibleAt;

  long expiresAt;
  long firstReceivedAt;

  /** IN_FLIGHT: when the current lease began (extend may not reach past it plus 12 h). */
  long leasedAt;

  /** [name0, value0, name1, value1, ...]; replaced, never mutated, so views may share it. */
  Object[] attributes;

  /** The queue this message was dead-lettered from, or null. */
  @Nullable String deadLetterSource;

  /** What the journal must write for this message at the end of the operation (JOURNAL_*). */
  byte journalMark;

  static final byte JOURNAL_NONE = 0;
  static final byte JOURNAL_STATE = 1;
  static final byte JOURNAL_FULL = 2;
  static final byte JOURNAL_DELETE = 3;

  StoredMessage(
      long serial,
      long seq,
      long sentAt,
      byte[] body,
      Object[] attributes,
      int priority,
      @Nullable String groupId,
      @Nullable String dedupId) {
    this.serial = serial;
    this.seq = seq;
    this.sentAt = sentAt;
    this.body = body;
    this.attributes = attributes;
    this.priority = priority;
    this.groupId = groupId;
    this.dedupId = dedupId;
  }

  private static final byte[] NO_BODY = new byte[0];
  private static final Object[] NO_ATTRIBUTES = new Object[0];

  /**
   * A stand-in holding only a place in delivery order (serial, seq, priority): what cursors and
   * scan positions compare against.
   */
  static StoredMessage probe(long serial, long seq, int priority) {
    StoredMessage probe = new StoredMessage(serial, seq, 0, NO_BODY, NO_ATTRIBUTES, 0, null, null);
    probe.priority = priority;
    return probe;
  }

  /**
   * A stand-in holding {@code m}'s place in every delivery order: serial, seq, priority, and what a
   * grouped queue orders its group heads by (send time, receive count, lease start).
   */
  static StoredMessage probe(StoredMessage m) {
    StoredMessage probe =
        new StoredMessage(m.serial, m.seq, m.sentAt, NO_BODY, NO_ATTRIBUTES, 0, null, null);
    probe.priority = m.priority;
    probe.receiveCount = m.receiveCount;
    probe.leasedAt = m.leasedAt;
    return probe;
  }

  /** True while the message is in the visibility timer set (delayed or leased). */
  boolean isTimed() {
    return state != AVAILABLE;
  }

  MessageState publicState() {
    return switch (state) {
      case DELAYED -> MessageState.DELAYED;
      case AVAILABLE -> MessageState.AVAILABLE;
      default -> MessageState.IN_FLIGHT;
    };
  }

  @Override
  public @Nullable AttributeValue attributeOrNull(String name) {
    Object[] a = attributes;
    for (int i = 0; i < a.length; i += 2) {
      if (name.equals(a[i])) {
        return (AttributeValue) a[i + 1];
      }
    }
    return null;
  }

  @Override
  public Map<String, AttributeValue> attributes() {
    return AttributeMap.of(attributes);
  }

  @Override
  public int priority() {
    return priority;
  }

  @Override
  public Optional<String> groupId() {
    return Optional.ofNullable(groupId);
  }

  @Override
  public long sentAtMillis() {
    return sentAt;
  }

  @Override
  public int receiveCount() {
    return receiveCount;
  }
}
