package io.switchboard.routing.spi;

/**
 * The router's sequence counters, each the last value handed out.
 *
 * @param agentSerial agents' creation order
 * @param contactSeq contacts' arrival order
 * @param idleSeq the order in which agents became idle
 * @param reservationSeq reservation numbers ({@code res-N})
 * @param timerSeq the order in which timers were scheduled (ties of equal due times)
 * @param retireSeq the order in which contacts finished (the history's order)
 * @param eventIdLimit event ids up to this may have been handed out; a restart continues above it,
 *     so a reconnecting client never sees an id twice
 */
public record RouterCounters(
    long agentSerial,
    long contactSeq,
    long idleSeq,
    long reservationSeq,
    long timerSeq,
    long retireSeq,
    long eventIdLimit) {

  /** The counters of a fresh router. */
  public static RouterCounters zero() {
    return new RouterCounters(0, 0, 0, 0, 0, 0, 0);
  }
}
