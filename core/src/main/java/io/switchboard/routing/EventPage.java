package io.switchboard.routing;

import java.util.List;

/**
 * Events read from the router's bounded history.
 *
 * @param events in id order
 * @param missed whether events after the requested id were already dropped from the history; the
 *     page then starts at the oldest event kept, and a subscriber should resynchronize its view
 * @param lastId the id of the newest event the router has emitted (0 before the first)
 */
public record EventPage(List<RoutingEvent> events, boolean missed, long lastId) {
  public EventPage {
    events = List.copyOf(events);
  }
}
