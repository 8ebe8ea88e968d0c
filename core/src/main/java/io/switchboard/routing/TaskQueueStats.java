package io.switchboard.routing;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Live figures of one task queue ({@link Router#taskQueueStats}): counts since {@code since} (the
 * router's start or the queue's creation, not kept across restarts), and the waiting contacts now.
 *
 * @param queue the task queue
 * @param at when the figures were taken
 * @param since when counting started
 * @param serviceLevelThreshold the queue's "answered within" (its own, else the workspace's)
 * @param waiting contacts of the queue queued now
 * @param longestWait how long the longest-waiting of them has waited (zero when none)
 * @param offered offers made of the queue's contacts
 * @param accepted offers accepted
 * @param rejected offers rejected
 * @param offersTimedOut offers that timed out unanswered by the agent
 * @param answered contacts answered (their first accepted offer)
 * @param answeredWithinThreshold of those, answered within the threshold of their arrival
 * @param abandoned contacts whose caller left before an answer
 * @param timedOut contacts that reached their maximum wait unanswered
 * @param serviceLevel answered within the threshold / (answered + abandoned + timed out), empty
 *     before any
 * @param averageSpeedOfAnswer the mean wait of the answered contacts, empty before any
 */
public record TaskQueueStats(
    String queue,
    Instant at,
    Instant since,
    Duration serviceLevelThreshold,
    int waiting,
    Duration longestWait,
    long offered,
    long accepted,
    long rejected,
    long offersTimedOut,
    long answered,
    long answeredWithinThreshold,
    long abandoned,
    long timedOut,
    OptionalDouble serviceLevel,
    Optional<Duration> averageSpeedOfAnswer) {

  public TaskQueueStats {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(since, "since");
    Objects.requireNonNull(serviceLevelThreshold, "serviceLevelThreshold");
    Objects.requireNonNull(longestWait, "longestWait");
    Objects.requireNonNull(serviceLevel, "serviceLevel");
    Objects.requireNonNull(averageSpeedOfAnswer, "averageSpeedOfAnswer");
  }
}
