package io.switchboard.queue.spi;

import org.jspecify.annotations.Nullable;

/**
 * Where a message stands in the orders of its queue: what a store needs to keep an index of every
 * waiting message (docs/design.md, "A backlog bigger than memory"). The engine tells a journal the
 * place a message had before a change and the place it has after it ({@link
 * JournalEntry.Placement}); the store derives its index keys from each, so the key layout is the
 * store's business.
 *
 * @param state one of {@link MessageRecord#DELAYED}, {@link MessageRecord#AVAILABLE}, {@link
 *     MessageRecord#IN_FLIGHT}
 * @param visibleAt when a delayed or leased message becomes available; 0 for an available one
 * @param groupId the message group, or null
 * @param partition the message's attribute partition in a standard queue with indexed attributes
 *     ({@link Partitions#encode}), or null; a store keeps an available message's place in its
 *     partition's line with it
 */
public record Place(
    byte state,
    int priority,
    long seq,
    long visibleAt,
    long expiresAt,
    long sentAt,
    @Nullable String groupId,
    @Nullable String partition) {

  public Place {
    if (state != MessageRecord.DELAYED
        && state != MessageRecord.AVAILABLE
        && state != MessageRecord.IN_FLIGHT) {
      throw new IllegalArgumentException("state must be 0, 1 or 2, was " + state);
    }
    if (state == MessageRecord.AVAILABLE) {
      visibleAt = 0; // no timer: two available places differ only by what orders them
    }
  }

  /** A place in no attribute partition. */
  public Place(
      byte state,
      int priority,
      long seq,
      long visibleAt,
      long expiresAt,
      long sentAt,
      @Nullable String groupId) {
    this(state, priority, seq, visibleAt, expiresAt, sentAt, groupId, null);
  }

  /** The place of a stored message, in no attribute partition. */
  public static Place of(MessageRecord m) {
    return new Place(
        m.state(), m.priority(), m.seq(), m.visibleAt(), m.expiresAt(), m.sentAt(), m.groupId());
  }

  /**
   * The place of a stored message of a queue whose indexed attributes are {@code indexed} (empty:
   * none, or a grouped queue): in the partition its values of them make.
   */
  public static Place of(MessageRecord m, java.util.Collection<String> indexed) {
    return new Place(
        m.state(),
        m.priority(),
        m.seq(),
        m.visibleAt(),
        m.expiresAt(),
        m.sentAt(),
        m.groupId(),
        Partitions.encode(indexed, m.attributes()::get));
  }
}
