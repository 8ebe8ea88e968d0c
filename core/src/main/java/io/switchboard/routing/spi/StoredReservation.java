package io.switchboard.routing.spi;

import io.switchboard.routing.ReservationState;

/**
 * A reservation (an offer) as stored.
 *
 * @param seq creation order
 * @param timerSeq the timer order number of its timeout (0 for an auto-accepted offer)
 */
public record StoredReservation(
    String id,
    long seq,
    String contactId,
    String agentId,
    long offeredAt,
    long expiresAt,
    ReservationState state,
    long timerSeq) {}
