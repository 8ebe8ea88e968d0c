package io.switchboard.routing;

import org.jspecify.annotations.Nullable;

/**
 * A router's live copy of one task queue's rules ({@link TaskQueue}), shared by the contacts routed
 * through it: the order among its waiting contacts, the strategy that chooses among agents, the cap
 * of its contacts per agent, the service-level threshold, and its live counters. {@link
 * Router#taskQueues} replaces the rules in place, so the contacts of the queue follow the change.
 */
final class QueueRules {

  final String name;
  TaskQueue definition;

  /** Newest first among equal priority. */
  boolean lifo;

  /** The queue's own strategy, or null for the workspace's. */
  @Nullable Strategy strategy;

  /** At most this many of the queue's contacts offered to or held by one agent; 0: no cap. */
  int maxPerAgent;

  /** "Answered within" for the queue's service level. */
  long thresholdMillis;

  final TaskQueueCounters counters;

  QueueRules(TaskQueue definition, long defaultThresholdMillis, long now) {
    this.name = definition.name();
    this.counters = new TaskQueueCounters(now);
    define(definition, defaultThresholdMillis);
  }

  void define(TaskQueue q, long defaultThresholdMillis) {
    this.definition = q;
    this.lifo = q.order() == TaskQueue.Order.LIFO;
    this.strategy = q.strategy().orElse(null);
    this.maxPerAgent = q.maxReservationsPerAgent().orElse(0);
    this.thresholdMillis =
        q.serviceLevelThreshold().map(java.time.Duration::toMillis).orElse(defaultThresholdMillis);
  }

  /** Whether the agent may be offered one more contact of this queue (below the cap). */
  boolean admits(AgentRecord agent) {
    return maxPerAgent == 0 || agent.queueLoad(name) < maxPerAgent;
  }
}
