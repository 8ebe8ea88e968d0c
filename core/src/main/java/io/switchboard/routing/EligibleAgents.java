package io.switchboard.routing;

import io.switchboard.selector.Selector;
import java.math.BigDecimal;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The agents eligible for each channel, each channel's set ordered by the strategy with longest
 * idle as tie-break (then the order in which agents became idle, which is total), and the same
 * agents again in one set per attribute term ({@link RequiredTerms}) in the same order: the posting
 * lists of an attribute index.
 *
 * <p>A new contact takes the first agent in that order its requirement matches. When the
 * requirement has terms, only the agents holding its rarest term can match, so the walk runs over
 * that term's set, not all eligible agents; it stops at the first agent the whole selector matches.
 * A requirement without terms ({@code level > 3}, an OR) walks the channel's set.
 *
 * <p>Cost: {@code O((1 + t) log n)} to add or remove an agent with {@code t} terms; a lookup
 * evaluates the requirement on the agents of the smallest posting list that precede the first
 * match. The walk is only needed for the first contact of a requirement group: while a group has a
 * contact waiting, work conservation guarantees that no eligible agent matches it, and {@link
 * MemoryRouter} skips the walk.
 */
final class EligibleAgents {

  private final Map<String, TreeSet<AgentRecord>> byChannel = new HashMap<>();
  private final Map<String, Map<String, TreeSet<AgentRecord>>> byTerm = new HashMap<>();
  private final Map<String, Comparator<AgentRecord>> orders = new HashMap<>();
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
        Comparator<AgentRecord> order = orders.computeIfAbsent(channel, this::order);
        byChannel.computeIfAbsent(channel, c -> new TreeSet<>(order)).add(agent);
        Map<String, TreeSet<AgentRecord>> terms =
            byTerm.computeIfAbsent(channel, c -> new HashMap<>());
        for (String term : agent.terms) {
          terms.computeIfAbsent(term, t -> new TreeSet<>(order)).add(agent);
        }
      }
    }
  }

  /** Removes the agent; call before changing anything its order or eligibility depends on. */
  void remove(AgentRecord agent) {
    for (String channel : agent.capacity.keySet()) {
      TreeSet<AgentRecord> set = byChannel.get(channel);
      if (set != null && set.remove(agent)) {
        Map<String, TreeSet<AgentRecord>> terms = byTerm.get(channel);
        for (String term : agent.terms) {
          TreeSet<AgentRecord> posting = terms.get(term);
          posting.remove(agent);
          if (posting.isEmpty()) {
            terms.remove(term);
          }
        }
      }
    }
  }

  /** The best eligible agent on {@code channel} that {@code requirement} matches. */
  Optional<AgentRecord> best(String channel, Optional<Selector> requirement) {
    TreeSet<AgentRecord> set = byChannel.get(channel);
    if (set == null || set.isEmpty()) {
      return Optional.empty();
    }
    List<String> required = RequiredTerms.of(requirement);
    Map<String, TreeSet<AgentRecord>> terms = byTerm.get(channel);
    for (String term : required) {
      TreeSet<AgentRecord> posting = terms.get(term);
      if (posting == null) {
        return Optional.empty(); // no eligible agent holds a term the requirement needs
      }
      if (posting.size() < set.size()) {
        set = posting;
      }
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
