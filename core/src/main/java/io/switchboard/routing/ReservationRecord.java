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

  /**
   * Refused (rejected or timed out): until when the contact is not offered to this agent again (the
   * router's rest period after the refusal); 0 when not refused.
   */
  long restUntil;

  /**
   * Whether the rest after its refusal is in force: set when refused, cleared by its timer (so
   * timers due at the same instant all see the rest in one state).
   */
  boolean resting;

  /** The order number of the timer that ends the rest; 0 when none. */
  long restTimerSeq;

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
