package io.switchboard.routing;

import java.time.Instant;

/** The router's mutable state of one offer. */
final class ReservationRecord {

  final String id;

  /** Creation order. */
  final long seq;

  final ContactRecord contact;
  final AgentRecord agent;
  final long offeredAt;
  final long expiresAt;
  ReservationState state = ReservationState.PENDING;

  /** {@link RouterStore}'s mark: whether the call in progress changed the record. */
  byte storeMark;

  /** The order number of its timeout timer; 0 when it has none (auto-accepted). */
  long timerSeq;

  ReservationRecord(
      String id,
      long seq,
      ContactRecord contact,
      AgentRecord agent,
      long offeredAt,
      long expiresAt) {
    this.id = id;
    this.seq = seq;
    this.contact = contact;
    this.agent = agent;
    this.offeredAt = offeredAt;
    this.expiresAt = expiresAt;
  }

  Reservation view() {
    return new Reservation(
        id,
        contact.id,
        agent.id,
        contact.channel,
        Instant.ofEpochMilli(offeredAt),
        Instant.ofEpochMilli(expiresAt),
        state);
  }
}
