package io.switchboard.routing;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

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
 * <p><b>Taken out, put back.</b> An agent whose order or eligibility is about to change is taken
 * out of every set first ({@link #takeOut}) and put back, in its new place, only when the index is
 * next read ({@link #best}) or at the end of the call ({@link #putBack}). A freed agent usually
 * takes a contact at once and is no longer eligible, so it leaves the index without ever having
 * been filed: a routing decision costs no index update at all.
 *
 * <p>Cost: {@code O((1 + t) log n)} to file or take out an agent with {@code t} terms; a lookup
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

  /** Agents taken out and not yet put back. */
  private final List<AgentRecord> out = new ArrayList<>();

  EligibleAgents(Strategy strategy) {
    this.strategy = strategy;
  }

  /** The strategy's rank of an agent: the numeric attribute, for {@link Strategy#highest}. */
  @Nullable BigDecimal rank(AgentRecord agent) {
    return strategy instanceof Strategy.HighestAttribute h
        ? Checks.number(agent.attributes.get(h.attribute()))
        : null;
  }

  /** Files the agent under every channel it is eligible for (recovery, and {@link #putBack}). */
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
        agent.filed = true;
      }
    }
  }

  /**
   * Takes the agent out until {@link #putBack}; call before changing anything its order or
   * eligibility depends on.
   */
  void takeOut(AgentRecord agent) {
    if (agent.filed) {
      remove(agent);
    }
    if (!agent.out) {
      agent.out = true;
      out.add(agent);
    }
  }

  /** Files again every agent taken out since the last call, unless it was removed meanwhile. */
  void putBack() {
    for (int i = 0; i < out.size(); i++) {
      AgentRecord agent = out.get(i);
      agent.out = false;
      if (!agent.removed) {
        add(agent);
      }
    }
    out.clear();
  }

  private void remove(AgentRecord agent) {
    for (String channel : agent.capacity.keySet()) {
      TreeSet<AgentRecord> set = byChannel.get(channel);
      if (set != null && set.remove(agent)) {
        Map<String, TreeSet<AgentRecord>> terms = Objects.requireNonNull(byTerm.get(channel));
        for (String term : agent.terms) {
          TreeSet<AgentRecord> posting = Objects.requireNonNull(terms.get(term));
          posting.remove(agent);
          if (posting.isEmpty()) {
            terms.remove(term);
          }
        }
      }
    }
    agent.filed = false;
  }

  /** The best eligible agent on {@code channel} that {@code requirement} matches, or null. */
  @Nullable AgentRecord best(String channel, Requirement requirement) {
    putBack();
    TreeSet<AgentRecord> set = byChannel.get(channel);
    if (set == null || set.isEmpty()) {
      return null;
    }
    Map<String, TreeSet<AgentRecord>> terms = Objects.requireNonNull(byTerm.get(channel));
    for (String term : requirement.terms) {
      TreeSet<AgentRecord> posting = terms.get(term);
      if (posting == null) {
        return null; // no eligible agent holds a term the requirement needs
      }
      if (posting.size() < set.size()) {
        set = posting;
      }
    }
    for (AgentRecord agent : set) {
      if (requirement.matches(agent)) {
        return agent;
      }
    }
    return null;
  }

  private Comparator<AgentRecord> order(String channel) {
    Comparator<AgentRecord> longestIdle = EligibleAgents::longestIdle;
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

  /** Earliest idle-since first, then the order of becoming idle, then of creation. */
  private static int longestIdle(AgentRecord a, AgentRecord b) {
    if (a.idleSince != b.idleSince) {
      return Long.compare(a.idleSince, b.idleSince);
    }
    if (a.idleSeq != b.idleSeq) {
      return Long.compare(a.idleSeq, b.idleSeq);
    }
    return Long.compare(a.serial, b.serial);
  }
}
