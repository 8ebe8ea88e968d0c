package io.switchboard.client.wire;

import io.switchboard.routing.IntervalFigures;
import io.switchboard.routing.StatisticsReport;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The lasting routing statistics' answer ({@code GET /v1/routing/statistics}, {@code GET
 * /v1/workspaces/{workspace}/statistics}; {@code docs/api.md}) as records bound by Jackson ({@link
 * Json}): the server writes one, the client reads it back. Times are ISO-8601 instants, durations
 * milliseconds ({@code ...Millis}). Public for the server; not part of the client API.
 */
public final class StatisticsWire {

  private StatisticsWire() {}

  /** {@link IntervalFigures} on the wire; activity times sorted by name. */
  public record Figures(
      long arrived,
      long offered,
      long accepted,
      long rejected,
      long timedOut,
      long answered,
      long answeredWithinThreshold,
      long abandoned,
      long maxWaitExceeded,
      long handled,
      long handleTimeMillis,
      long wrapUps,
      long wrapUpTimeMillis,
      @Nullable Map<String, Long> activityTimeMillis) {

    public static Figures of(IntervalFigures f) {
      return new Figures(
          f.arrived(),
          f.offered(),
          f.accepted(),
          f.rejected(),
          f.timedOut(),
          f.answered(),
          f.answeredWithinThreshold(),
          f.abandoned(),
          f.maxWaitExceeded(),
          f.handled(),
          f.handleMillis(),
          f.wrapUps(),
          f.wrapUpMillis(),
          new TreeMap<>(f.activityMillis()));
    }

    public IntervalFigures toFigures() {
      return new IntervalFigures(
          arrived,
          offered,
          accepted,
          rejected,
          timedOut,
          answered,
          answeredWithinThreshold,
          abandoned,
          maxWaitExceeded,
          handled,
          handleTimeMillis,
          wrapUps,
          wrapUpTimeMillis,
          activityTimeMillis == null ? Map.of() : activityTimeMillis);
    }
  }

  /** One 15-minute interval, {@code [start, end)}. */
  public record Interval(@Nullable String start, @Nullable String end, @Nullable Figures figures) {}

  /** The whole answer. */
  public record Report(
      @Nullable String from,
      @Nullable String to,
      @Nullable String queue,
      @Nullable String agent,
      @Nullable List<Interval> intervals,
      @Nullable Figures totals,
      @Nullable Figures cumulative) {

    public static Report of(StatisticsReport r) {
      return new Report(
          r.from().toString(),
          r.to().toString(),
          r.queue().orElse(null),
          r.agent().orElse(null),
          r.intervals().stream()
              .map(
                  i ->
                      new Interval(
                          i.start().toString(), i.end().toString(), Figures.of(i.figures())))
              .toList(),
          Figures.of(r.totals()),
          Figures.of(r.cumulative()));
    }

    public StatisticsReport toReport() {
      return new StatisticsReport(
          Instant.parse(from),
          Instant.parse(to),
          Optional.ofNullable(queue),
          Optional.ofNullable(agent),
          Json.items(intervals).stream()
              .map(
                  i ->
                      new StatisticsReport.Interval(
                          Instant.parse(i.start()),
                          Instant.parse(i.end()),
                          Objects.requireNonNull(i.figures(), "figures").toFigures()))
              .toList(),
          Objects.requireNonNull(totals, "totals").toFigures(),
          Objects.requireNonNull(cumulative, "cumulative").toFigures());
    }
  }
}
