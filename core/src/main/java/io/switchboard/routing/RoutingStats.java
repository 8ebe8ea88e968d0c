package io.switchboard.routing;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A live snapshot of the router.
 *
 * @param at when it was taken
 * @param overall contact figures across all groups
 * @param groups per requirement group, for groups with a contact waiting or an outcome in the
 *     window, by channel then requirements
 * @param agentsByPresence number of agents per presence kind
 * @param occupancyByChannel share (0..1) of the capacity of agents that are not offline that is in
 *     use (offered, assigned or wrap-up), per channel with capacity
 */
public record RoutingStats(
    Instant at,
    ContactStats overall,
    List<GroupStats> groups,
    Map<Presence.Kind, Integer> agentsByPresence,
    Map<String, Double> occupancyByChannel) {
  public RoutingStats {
    groups = List.copyOf(groups);
    agentsByPresence = Map.copyOf(agentsByPresence);
    occupancyByChannel = Map.copyOf(occupancyByChannel);
  }
}
