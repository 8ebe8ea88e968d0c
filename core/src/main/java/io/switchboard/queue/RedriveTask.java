package io.switchboard.queue;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A running or finished move of messages out of a dead-letter queue. It moves the messages that
 * were in the source when it started, in delivery order, and no others.
 *
 * @param id task id, for cancel
 * @param source the dead-letter queue
 * @param destination the named destination, or absent for "back where each came from"
 * @param maxPerSecond rate limit, if any
 * @param status running, completed, cancelled or failed
 * @param moved messages moved so far
 * @param toMove messages that were in the source at start
 * @param startedAt when it started
 * @param failureReason why it failed, or why some messages could not be moved
 */
public record RedriveTask(
    String id,
    String source,
    Optional<String> destination,
    OptionalInt maxPerSecond,
    Status status,
    long moved,
    long toMove,
    Instant startedAt,
    Optional<String> failureReason) {

  /** Lifecycle of a redrive task. */
  public enum Status {
    RUNNING,
    COMPLETED,
    CANCELLED,
    FAILED
  }
}
