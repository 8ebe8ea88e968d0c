package io.switchboard.routing;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The live, cumulative counters of one task queue since its router started (or the queue was
 * defined): offers and their outcomes, and the contacts' outcomes with their waits. Only ever
 * increasing, under the router's lock, so a reader that keeps lasting figures (per interval) can
 * take differences of two {@link #snapshot}s.
 *
 * <p>A contact counts in the queue it is routed through when the event happens (after a transfer,
 * the new one); it is answered once, at its first accepted offer.
 */
final class TaskQueueCounters {

  /** Clock millis the counting started. */
  final long since;

  long offered;
  long accepted;
  long rejected;

  /** Offers that timed out (missed). */
  long offersTimedOut;

  long answered;
  long answeredWithinThreshold;
  long answerWaitMillis;
  long abandoned;

  /** Contacts that reached their maximum wait unanswered. */
  long timedOut;

  TaskQueueCounters(long since) {
    this.since = since;
  }

  void answered(long waitMillis, long thresholdMillis) {
    answered++;
    answerWaitMillis += waitMillis;
    if (waitMillis <= thresholdMillis) {
      answeredWithinThreshold++;
    }
  }

  TaskQueueStats snapshot(QueueRules rules, long now, int waiting, long longestWaitMillis) {
    long total = answered + abandoned + timedOut;
    return new TaskQueueStats(
        rules.name,
        Instant.ofEpochMilli(now),
        Instant.ofEpochMilli(since),
        Duration.ofMillis(rules.thresholdMillis),
        waiting,
        Duration.ofMillis(longestWaitMillis),
        offered,
        accepted,
        rejected,
        offersTimedOut,
        answered,
        answeredWithinThreshold,
        abandoned,
        timedOut,
        total == 0
            ? OptionalDouble.empty()
            : OptionalDouble.of((double) answeredWithinThreshold / total),
        answered == 0
            ? Optional.empty()
            : Optional.of(Duration.ofMillis(Math.round((double) answerWaitMillis / answered))));
  }
}
