package io.switchboard.routing.spi;

/**
 * One change of a router's durable state. Entries are idempotent (a put overwrites, a delete of
 * something absent is nothing).
 */
public sealed interface RouterEntry {

  /** An agent created or changed. */
  record AgentPut(StoredAgent agent) implements RouterEntry {}

  /** An agent removed. */
  record AgentDelete(String id) implements RouterEntry {}

  /** A contact created or changed, live or finished. */
  record ContactPut(StoredContact contact) implements RouterEntry {}

  /** A finished contact that left the bounded history. */
  record ContactDelete(String id) implements RouterEntry {}

  /** A reservation made or ended. */
  record ReservationPut(StoredReservation reservation) implements RouterEntry {}

  /** A reservation whose contact left the bounded history. */
  record ReservationDelete(String id) implements RouterEntry {}

  /**
   * A statistics interval's figures (a closed interval's last put, the open one's latest, or the
   * cumulative figures); keyed by {@link StoredInterval#key()}.
   */
  record IntervalPut(StoredInterval interval) implements RouterEntry {}

  /**
   * The statistics intervals past the retention: every stored interval that starts before {@code
   * before} (epoch milliseconds), of every scope; never the cumulative figures. One entry per
   * interval roll, so a store deletes a range by start rather than key by key.
   */
  record IntervalsDropped(long before) implements RouterEntry {}

  /** The router's counters; the latest put wins. */
  record CountersPut(RouterCounters counters) implements RouterEntry {}
}
