package io.switchboard.routing;

import io.switchboard.selector.Selector;
import java.math.BigDecimal;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The agents eligible for each channel, each channel's set ordered by the strategy with longest
 * idle as tie-break (then the order in which agents became idle, which is total). A new contact
 * walks its channel's set in that order and takes the first agent its requirement matches.
 *
 * <p>Cost: {@code O(log n)} to add or remove an agent; a lookup evaluates the requirement on the
 * eligible agents that precede the first match, up to all of them when none matches. That walk is
 * only needed for the first contact of a requirement group: while a group has a contact waiting,
 * work conservation guarantees that no eligible agent matches it, and {@link MemoryRouter} skips
 * the walk. An attribute-value index (posting lists of agents per skill, ordered the same way)
 * would bound the walk by the matching agents; it is not built yet.
 */
final class EligibleAgents {

  private final Map<String, TreeSet<AgentRecord>> byChannel = new HashMap<>();
  private final Strategy strategy;

  EligibleAgents(Strategy strategy) {
    this.strategy = strategy;
  }

  /** The strategy's rank of an agent: the numeric attribute, for {@link Strategy#highest}. */
  BigDecimal rank(AgentRecord agent) {
    return strategy instanceof Strategy.HighestAttribute h
        ? Checks.number(agent.attributes.get(h.attribute()))
        : null;
  }

  void add(AgentRecord agent) {
    for (String channel : agent.capacity.keySet()) {
      if (agent.eligible(channel)) {
        byChannel.computeIfAbsent(channel, c -> new TreeSet<>(order(c))).add(agent);
      }
    }
  }

  /** Removes the agent; call before changing anything its order or eligibility depends on. */
  void remove(AgentRecord agent) {
    for (String channel : agent.capacity.keySet()) {
      TreeSet<AgentRecord> set = byChannel.get(channel);
      if (set != null) {
        set.remove(agent);
      }
    }
  }

  /** The best eligible agent on {@code channel} that {@code requirement} matches. */
  Optional<AgentRecord> best(String channel, Optional<Selector> requirement) {
    TreeSet<AgentRecord> set = byChannel.get(channel);
    if (set == null) {
      return Optional.empty();
    }
    for (AgentRecord agent : set) {
      if (requirement.isEmpty() || requirement.get().matches(agent.view)) {
        return Optional.of(agent);
      }
    }
    return Optional.empty();
  }

  private Comparator<AgentRecord> order(String channel) {
    Comparator<AgentRecord> longestIdle =
        Comparator.<AgentRecord>comparingLong(a -> a.idleSince)
            .thenComparingLong(a -> a.idleSeq)
            .thenComparingLong(a -> a.serial);
    return switch (strategy) {
      case Strategy.LongestIdle l -> longestIdle;
      case Strategy.LeastOccupied l ->
          ((Comparator<AgentRecord>)
                  (a, b) ->
                      Long.compare(
                          (long) a.load(channel) * b.capacity(channel),
                          (long) b.load(channel) * a.capacity(channel)))
              .thenComparing(longestIdle);
      case Strategy.HighestAttribute h ->
          Comparator.comparing(
                  (AgentRecord a) -> a.rank, Comparator.nullsLast(Comparator.reverseOrder()))
              .thenComparing(longestIdle);
    };
  }
}
