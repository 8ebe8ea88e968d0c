package io.switchboard.routing.spi;

import java.util.List;

/**
 * The state a router journal holds, as the router rebuilds itself from it at start, in no
 * particular order.
 */
public record RouterSnapshot(
    RouterCounters counters,
    List<StoredAgent> agents,
    List<StoredContact> contacts,
    List<StoredReservation> reservations,
    List<StoredInterval> intervals) {

  /** A snapshot without statistics intervals. */
  public RouterSnapshot(
      RouterCounters counters,
      List<StoredAgent> agents,
      List<StoredContact> contacts,
      List<StoredReservation> reservations) {
    this(counters, agents, contacts, reservations, List.of());
  }

  public static RouterSnapshot empty() {
    return new RouterSnapshot(RouterCounters.zero(), List.of(), List.of(), List.of());
  }
}
