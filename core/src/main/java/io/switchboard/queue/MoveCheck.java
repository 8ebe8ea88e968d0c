package io.switchboard.queue;

import org.jspecify.annotations.Nullable;

/**
 * Asked by a redrive task before each message it moves whether the move may still be made: a task
 * moves messages for as long as it runs, and whoever started it may meanwhile have lost the right
 * to put messages into the queue it moves them to. A refused move stops the task ({@link
 * RedriveTask.Status#FAILED}, the refusal as its {@code failureReason}); the refused message and
 * every one not moved yet stay in the dead-letter queue, where they were.
 *
 * <p>It is asked on the thread that moves (a caller's starting the task, or the engine's
 * housekeeping), perhaps inside a storage transaction but never holding a queue's lock: it must be
 * quick and must not call the engine's queue operations.
 */
@FunctionalInterface
public interface MoveCheck {

  /** Allows every move. */
  MoveCheck NONE = (task, source, target) -> null;

  /**
   * Null if task {@code taskId} may move a message from {@code source} to {@code target}; else why
   * not, as the task's failure reason (naming the target and what is missing).
   */
  @Nullable String refusal(String taskId, String source, String target);
}
