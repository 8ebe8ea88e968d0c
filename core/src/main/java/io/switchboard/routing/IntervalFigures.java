package io.switchboard.routing;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What was counted in one statistics interval (or over a range, or since the router began) for a
 * workspace, a task queue or an agent ({@code docs/routing.md}, "Statistics that last"). Counts are
 * attributed to the interval in which the event happened; the handle time and wrap-up time of a
 * contact to the interval in which its agent completed it; time in an activity is split across the
 * intervals it spans.
 *
 * @param arrived contacts that arrived (created)
 * @param offered offers made (reservations)
 * @param accepted offers accepted
 * @param rejected offers rejected
 * @param timedOut offers not answered within the offer timeout
 * @param answered contacts answered (first accept only; a transferred contact is answered once)
 * @param answeredWithinThreshold of those, answered within the service-level threshold: the task
 *     queue's own, or the workspace's
 * @param abandoned contacts whose caller left before an answer
 * @param maxWaitExceeded contacts that waited past their maximum wait
 * @param handled contacts completed by their agent
 * @param handleMillis the sum of their handle times, from first answer to completion (before
 *     wrap-up)
 * @param wrapUps completed contacts that had a wrap-up
 * @param wrapUpMillis the sum of those wrap-up times
 * @param activityMillis agent time spent in each activity (presence), by activity name
 */
public record IntervalFigures(
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
    long handleMillis,
    long wrapUps,
    long wrapUpMillis,
    Map<String, Long> activityMillis) {

  /** Nothing counted. */
  public static final IntervalFigures ZERO =
      new IntervalFigures(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Map.of());

  public IntervalFigures {
    activityMillis = Map.copyOf(Objects.requireNonNull(activityMillis, "activityMillis"));
  }

  /** This and {@code other} added up. */
  public IntervalFigures plus(IntervalFigures other) {
    Map<String, Long> activity = new TreeMap<>(activityMillis);
    other.activityMillis.forEach((name, ms) -> activity.merge(name, ms, Long::sum));
    return new IntervalFigures(
        arrived + other.arrived,
        offered + other.offered,
        accepted + other.accepted,
        rejected + other.rejected,
        timedOut + other.timedOut,
        answered + other.answered,
        answeredWithinThreshold + other.answeredWithinThreshold,
        abandoned + other.abandoned,
        maxWaitExceeded + other.maxWaitExceeded,
        handled + other.handled,
        handleMillis + other.handleMillis,
        wrapUps + other.wrapUps,
        wrapUpMillis + other.wrapUpMillis,
        activity);
  }
}
