package io.switchboard.routing;

import io.switchboard.selector.Selector;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The router's agents: records by id, the index of eligible agents ({@link EligibleAgents}), and
 * the one way to change what an agent's place in that index depends on ({@link #change}), which
 * also keeps idle-since: the time the agent last became idle (available, not in wrap-up, no load),
 * with a counter that breaks ties between agents that became idle in the same millisecond.
 */
final class AgentBook {

  private final CallContext call;
  private final Map<String, AgentRecord> agents = new HashMap<>();
  final EligibleAgents eligible;

  /** The last creation number given: the last tie-break of every strategy. */
  long serial;

  /** The last idle order number given. */
  long idleSeq;

  AgentBook(CallContext call) {
    this.call = call;
    this.eligible = new EligibleAgents(call.settings.strategy());
  }

  /** The agent with this id; fails with AGENT_NOT_FOUND. */
  AgentRecord get(String agentId) {
    Objects.requireNonNull(agentId, "agentId");
    AgentRecord agent = agents.get(agentId);
    if (agent == null) {
      throw new RoutingException(
          RoutingErrorCode.AGENT_NOT_FOUND, "agent '" + agentId + "' does not exist");
    }
    return agent;
  }

  /**
   * A new agent, offline and idle since now; the caller sets its presence. Fails with
   * AGENT_ALREADY_EXISTS.
   */
  AgentRecord create(NewAgent spec, Map<String, Integer> capacity) {
    if (agents.containsKey(spec.id())) {
      throw new RoutingException(
          RoutingErrorCode.AGENT_ALREADY_EXISTS, "agent '" + spec.id() + "' exists already");
    }
    AgentRecord agent =
        new AgentRecord(spec.id(), ++serial, spec.attributes(), capacity, Presence.offline());
    agent.idleSince = call.now;
    agent.idleSeq = ++idleSeq;
    agents.put(agent.id, agent);
    return agent;
  }

  /**
   * The one way to change what an agent's place in {@link EligibleAgents} depends on: out of the
   * index, change, idle-since if it just became idle; the index files it again when next read or at
   * the end of the call.
   */
  void change(AgentRecord agent, Runnable change) {
    eligible.takeOut(agent);
    call.touch(agent);
    boolean wasIdle = agent.idle();
    change.run();
    if (!wasIdle && agent.idle()) {
      agent.idleSince = call.now;
      agent.idleSeq = ++idleSeq;
    }
  }

  /** Forgets an agent that has no offers or contacts left. */
  void remove(AgentRecord agent) {
    agent.removed = true;
    eligible.takeOut(agent);
    agents.remove(agent.id);
    if (call.store != null) {
      call.store.agentRemoved(agent);
    }
  }

  /** Views of the agents {@code filter} accepts, by id. */
  List<Agent> sorted(Predicate<AgentRecord> filter) {
    return agents.values().stream()
        .filter(filter)
        .sorted(Comparator.comparing(a -> a.id))
        .map(AgentRecord::view)
        .toList();
  }

  /**
   * A page of the agents {@code filter} accepts (null: all), by id, after the agent {@code after}
   * (null: from the first).
   */
  ListPage<Agent> page(@Nullable Selector filter, @Nullable String after, int limit) {
    Paging.Picker<AgentRecord> picker =
        new Paging.Picker<>(Comparator.comparing((AgentRecord a) -> a.id), limit);
    for (AgentRecord a : agents.values()) {
      if ((after == null || a.id.compareTo(after) > 0)
          && (filter == null || filter.matches(a.view))) {
        picker.offer(a);
      }
    }
    return picker.page("agents", a -> a.id, AgentRecord::view);
  }

  Collection<AgentRecord> all() {
    return agents.values();
  }

  /** On recovery: the stored agents, filed in the index. */
  void restore(Collection<AgentRecord> recovered) {
    for (AgentRecord agent : recovered) {
      agents.put(agent.id, agent);
      eligible.add(agent);
    }
  }
}
