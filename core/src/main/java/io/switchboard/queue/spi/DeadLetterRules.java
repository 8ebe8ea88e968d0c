package io.switchboard.queue.spi;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;

/**
 * When a message is dead-lettered, and what a redrive or restore may do: the same decisions and
 * error texts in every engine.
 */
public final class DeadLetterRules {

  private DeadLetterRules() {}

  /**
   * How long an expired message whose move to the dead-letter target was refused ({@link
   * io.switchboard.queue.MoveCheck#deadLetterRefusal}) stays before its move is asked again: one
   * minute, so that a restored grant takes effect soon and a refused one costs one check a minute
   * per message.
   */
  public static final long REFUSED_EXPIRY_RETRY_MILLIS = 60_000;

  /** Whether a message received {@code receiveCount} times goes to the dead-letter target. */
  public static boolean exhausted(QueueConfig config, int receiveCount) {
    return config.deadLetter().isPresent()
        && receiveCount >= config.deadLetter().get().maxReceiveCount();
  }

  /**
   * Whether the queue is its own dead-letter target (SQS accepts such a redrive policy). Then
   * dead-lettering a message does not move it: it stays in its place, available at once (as a
   * release without delay), with its receive count reset to 0 and everything else kept (expiry,
   * dead-letter source, receipt); it is counted as dead-lettered (decisions.md, 2026-11-25).
   */
  public static boolean deadLettersToItself(String queue, QueueConfig config) {
    return config.deadLetter().isPresent() && config.deadLetter().get().target().equals(queue);
  }

  /** Refuses (CONFLICT) to dead-letter on request in a queue that has no dead-letter target. */
  public static void requireTarget(String queue, QueueConfig config) {
    if (config.deadLetter().isEmpty()) {
      throw new QueueException(
          ErrorCode.CONFLICT, "queue '" + queue + "' has no dead-letter target");
    }
  }

  /** Refuses (CONFLICT) a second running redrive of {@code source}. */
  public static QueueException alreadyRedriving(String source, String taskId) {
    return new QueueException(
        ErrorCode.CONFLICT,
        "queue '" + source + "' already has a running redrive task '" + taskId + "'");
  }

  /**
   * Checks a redrive's named destination: another queue of the same kind (grouped or standard) as
   * the source.
   */
  public static void checkDestination(String source, boolean sourceGrouped, QueueInfo destination) {
    if (destination.grouped() != sourceGrouped || destination.name().equals(source)) {
      throw QueueException.invalid(
          "redrive destination must be another queue of the same kind (grouped or"
              + " standard) as '"
              + source
              + "', got '"
              + destination.name()
              + "'");
    }
  }

  /** Refuses (CONFLICT) to restore a message that came into the queue otherwise. */
  public static QueueException notDeadLettered(String id) {
    return new QueueException(
        ErrorCode.CONFLICT,
        "message '"
            + id
            + "' was not dead-lettered from another queue; redrive it to a named"
            + " destination instead");
  }

  /** Refuses (CONFLICT) to restore a message while it is leased. */
  public static QueueException leasedOnRestore(String id) {
    return new QueueException(
        ErrorCode.CONFLICT, "message '" + id + "' is leased; restore it after its lease ends");
  }
}
