package io.switchboard.routing;

/** A reservation (an offer of one contact to one agent) is pending until it ends one way. */
public enum ReservationState {
  PENDING,
  ACCEPTED,
  REJECTED,
  TIMED_OUT,
  /** Ended by the router: the caller abandoned, or the agent went away, offline or was removed. */
  CANCELLED
}
