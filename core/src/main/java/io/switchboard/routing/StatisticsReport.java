package io.switchboard.routing;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The answer to a {@link StatisticsQuery}: the intervals in the range with something counted,
 * oldest first (the open one includes activity time up to now), their sum, and the figures since
 * the router began (kept whatever the retention).
 */
public record StatisticsReport(
    Instant from,
    Instant to,
    Optional<String> queue,
    Optional<String> agent,
    List<Interval> intervals,
    IntervalFigures totals,
    IntervalFigures cumulative) {

  public StatisticsReport {
    intervals = List.copyOf(intervals);
  }

  /** One interval, {@code [start, end)}. */
  public record Interval(Instant start, Instant end, IntervalFigures figures) {}
}
