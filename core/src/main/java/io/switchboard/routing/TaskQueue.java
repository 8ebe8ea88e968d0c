package io.switchboard.routing;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A named line of work in a workspace: who may serve it and how its contacts meet agents.
 *
 * @param name {@code [A-Za-z0-9_-]}, 1..64 characters, unique in its workspace
 * @param workerExpression a selector over agent attributes: the agents who may serve the queue
 *     ({@code docs/selectors.md}); empty for every agent
 * @param order the order among the queue's contacts of equal priority: by arrival, oldest first
 *     ({@code FIFO}) or newest first ({@code LIFO}); across queues, FIFO contacts of a priority
 *     come before LIFO ones ({@code docs/routing.md}, "Task queue rules")
 * @param strategy how a contact of the queue chooses among matching eligible agents; empty for the
 *     workspace's
 * @param maxReservationsPerAgent at most this many contacts of the queue offered to or held by one
 *     agent at once, 1..100; empty for no limit beyond the agent's capacity
 * @param serviceLevelThreshold "answered within" for the queue's service level; empty for the
 *     workspace's
 */
public record TaskQueue(
    String name,
    Optional<String> workerExpression,
    Order order,
    Optional<Strategy> strategy,
    Optional<Integer> maxReservationsPerAgent,
    Optional<Duration> serviceLevelThreshold) {

  /** The order among contacts of equal priority. */
  public enum Order {
    FIFO,
    LIFO
  }

  public TaskQueue {
    Checks.channel("task queue name", Objects.requireNonNull(name, "task queue name"));
    Objects.requireNonNull(workerExpression, "workerExpression");
    workerExpression.ifPresent(
        e -> Checks.requirement("worker expression of task queue '" + name + "'", e));
    Objects.requireNonNull(order, "order");
    Objects.requireNonNull(strategy, "strategy");
    Objects.requireNonNull(maxReservationsPerAgent, "maxReservationsPerAgent");
    maxReservationsPerAgent.ifPresent(
        n ->
            Checks.range(
                "maxReservationsPerAgent of task queue '" + name + "'", n, 1, Checks.MAX_CAPACITY));
    Objects.requireNonNull(serviceLevelThreshold, "serviceLevelThreshold");
    serviceLevelThreshold.ifPresent(
        d ->
            Checks.duration(
                "serviceLevelThreshold of task queue '" + name + "'",
                d,
                Duration.ofSeconds(1),
                Duration.ofHours(1)));
  }

  /** A FIFO queue that every agent may serve, with the workspace's strategy and threshold. */
  public static TaskQueue named(String name) {
    return new TaskQueue(
        name, Optional.empty(), Order.FIFO, Optional.empty(), Optional.empty(), Optional.empty());
  }

  /** This queue with another worker expression. */
  public TaskQueue withWorkerExpression(String expression) {
    return new TaskQueue(
        name,
        Optional.of(expression),
        order,
        strategy,
        maxReservationsPerAgent,
        serviceLevelThreshold);
  }
}
