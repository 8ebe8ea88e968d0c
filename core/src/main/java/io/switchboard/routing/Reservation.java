package io.switchboard.routing;

import java.time.Instant;

/**
 * An offer of one contact to one agent. The contact holds a slot of the agent's capacity while the
 * offer is pending; the offer ends accepted, rejected, timed out or cancelled.
 *
 * @param id the reservation id, assigned by the router
 * @param contactId the contact offered
 * @param agentId the agent offered to
 * @param channel the contact's channel
 * @param offeredAt when the offer was made
 * @param expiresAt when a pending offer times out
 * @param state pending, or how it ended
 */
public record Reservation(
    String id,
    String contactId,
    String agentId,
    String channel,
    Instant offeredAt,
    Instant expiresAt,
    ReservationState state) {}
