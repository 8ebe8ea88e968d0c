package io.switchboard.routing;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A question to the lasting statistics ({@link Router#statistics}): the intervals that start in
 * {@code [from, to)} (so {@code from} is rounded down to its interval), for the whole workspace,
 * one task queue or one agent (at most one of the two).
 */
public record StatisticsQuery(
    Instant from, Instant to, Optional<String> queue, Optional<String> agent) {

  public StatisticsQuery {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(agent, "agent");
  }

  /** The whole workspace's intervals in {@code [from, to)}. */
  public static StatisticsQuery between(Instant from, Instant to) {
    return new StatisticsQuery(from, to, Optional.empty(), Optional.empty());
  }

  /** This query for task queue {@code queue}. */
  public StatisticsQuery forQueue(String queue) {
    return new StatisticsQuery(from, to, Optional.of(queue), agent);
  }

  /** This query for agent {@code agent}. */
  public StatisticsQuery forAgent(String agent) {
    return new StatisticsQuery(from, to, queue, Optional.of(agent));
  }
}
