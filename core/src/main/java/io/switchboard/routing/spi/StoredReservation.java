package io.switchboard.routing.spi;

import io.switchboard.routing.ReservationState;

/**
 * A reservation (an offer) as stored.
 *
 * @param seq creation order
 * @param timerSeq the timer order number of its timeout (0 for an auto-accepted offer)
 * @param restUntil a refused offer's end of rest: until then its contact is not offered to its
 *     agent again; 0 for none
 * @param restTimerSeq the timer order number of the end of that rest; 0 for none
 */
public record StoredReservation(
    String id,
    long seq,
    String contactId,
    String agentId,
    long offeredAt,
    long expiresAt,
    ReservationState state,
    long timerSeq,
    long restUntil,
    long restTimerSeq) {

  /** A reservation that was not refused (no rest). */
  public StoredReservation(
      String id,
      long seq,
      String contactId,
      String agentId,
      long offeredAt,
      long expiresAt,
      ReservationState state,
      long timerSeq) {
    this(id, seq, contactId, agentId, offeredAt, expiresAt, state, timerSeq, 0, 0);
  }
}
