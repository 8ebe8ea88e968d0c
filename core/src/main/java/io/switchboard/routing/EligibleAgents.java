package io.switchboard.routing;

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
 *
 * <p><b>Strategies of task queues.</b> The sets above are kept in the workspace's strategy order; a
 * task queue with a strategy of its own ({@link TaskQueue#strategy}) gets the same sets in its
 * order ({@link #use}), created when the router learns of it and kept from then on, so each
 * strategy in use costs one more filing per agent change, and a lookup is as cheap in each.
 */
final class EligibleAgents {

  /** The sets in one strategy's order. */
  private static final class Index {
    final Strategy strategy;
    final Map<String, TreeSet<AgentRecord>> byChannel = new HashMap<>();
    final Map<String, Map<String, TreeSet<AgentRecord>>> byTerm = new HashMap<>();
    final Map<String, Comparator<AgentRecord>> orders = new HashMap<>();

    Index(Strategy strategy) {
      this.strategy = strategy;
    }

    void add(AgentRecord agent, String channel) {
      Comparator<AgentRecord> order = orders.computeIfAbsent(channel, this::order);
      byChannel.computeIfAbsent(channel, c -> new TreeSet<>(order)).add(agent);
      Map<String, TreeSet<AgentRecord>> terms =
          byTerm.computeIfAbsent(channel, c -> new HashMap<>());
      for (String term : agent.terms) {
        terms.computeIfAbsent(term, t -> new TreeSet<>(order)).add(agent);
      }
    }

    void remove(AgentRecord agent) {
      for (String channel : agent.capacity.keySet()) {
        TreeSet<AgentRecord> set = byChannel.get(channel);
        if (set != null && set.remove(agent)) {
          Map<String, TreeSet<AgentRecord>> terms =
              Objects.requireNonNull(byTerm.get(channel), "an agent's channel has its terms");
          for (String term : agent.terms) {
            TreeSet<AgentRecord> posting =
                Objects.requireNonNull(terms.get(term), "a filed agent is in its terms' sets");
            posting.remove(agent);
            if (posting.isEmpty()) {
              terms.remove(term);
            }
          }
        }
      }
    }

    @Nullable AgentRecord best(
        String channel,
        Requirement requirement,
        @Nullable QueueRules rules,
        ContactRecord contact) {
      TreeSet<AgentRecord> set = byChannel.get(channel);
      if (set == null || set.isEmpty()) {
        return null;
      }
      Map<String, TreeSet<AgentRecord>> terms =
          Objects.requireNonNull(byTerm.get(channel), "a channel with agents has its terms");
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
        if ((rules == null || rules.admits(agent))
            && requirement.matches(agent)
            && !contact.restsFrom(agent)) {
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
                    (AgentRecord a) -> a.rank(h.attribute()),
                    Comparator.nullsLast(Comparator.reverseOrder()))
                .thenComparing(longestIdle);
      };
    }
  }

  /** The workspace's strategy's index, then one per other strategy in use. */
  private final List<Index> indexes = new ArrayList<>(1);

  /** Agents taken out and not yet put back. */
  private final List<AgentRecord> out = new ArrayList<>();

  EligibleAgents(Strategy strategy) {
    indexes.add(new Index(strategy));
  }

  /**
   * Keeps sets in {@code strategy}'s order from now on (a task queue uses it), filing every
   * eligible agent in them; nothing if there are such sets already.
   */
  void use(Strategy strategy) {
    if (index(strategy) != null) {
      return;
    }
    putBack();
    Index index = new Index(strategy);
    Index first = indexes.get(0);
    for (Map.Entry<String, TreeSet<AgentRecord>> e : first.byChannel.entrySet()) {
      for (AgentRecord agent : e.getValue()) {
        index.add(agent, e.getKey());
      }
    }
    indexes.add(index);
  }

  private @Nullable Index index(Strategy strategy) {
    for (Index index : indexes) {
      if (index.strategy.equals(strategy)) {
        return index;
      }
    }
    return null;
  }

  /** Files the agent under every channel it is eligible for (recovery, and {@link #putBack}). */
  void add(AgentRecord agent) {
    for (String channel : agent.capacity.keySet()) {
      if (agent.eligible(channel)) {
        for (Index index : indexes) {
          index.add(agent, channel);
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
      for (Index index : indexes) {
        index.remove(agent);
      }
      agent.filed = false;
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

  /**
   * The best eligible agent for {@code contact}: on its channel, matching its requirement, by the
   * strategy of the task queue {@code rules} (null: none) or else the workspace's, below the
   * queue's cap of contacts per agent, and not one the contact rests from at {@code now} ({@link
   * ContactRecord#rests}); or null.
   */
  @Nullable AgentRecord best(ContactRecord contact, @Nullable QueueRules rules) {
    putBack();
    Index index = rules == null || rules.strategy == null ? null : index(rules.strategy);
    return (index == null ? indexes.get(0) : index)
        .best(contact.channel, contact.requirement, rules, contact);
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
