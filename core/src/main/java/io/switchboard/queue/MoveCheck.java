package io.switchboard.queue;

import org.jspecify.annotations.Nullable;

/**
 * Asked before a move into a second queue that no request makes at that moment, whether it may
 * still be made: whoever arranged it may meanwhile have lost the right to put messages into that
 * queue.
 *
 * <ul>
 *   <li>A redrive task asks {@link #refusal} before each message it moves. A refused move stops the
 *       task ({@link RedriveTask.Status#FAILED}, the refusal as its {@code failureReason}); the
 *       refused message and every one not moved yet stay in the dead-letter queue, where they were.
 *   <li>The engine asks {@link #deadLetterRefusal} before it dead-letters a message on its own (its
 *       lease ended after its {@code maxReceiveCount}th receive, or it expired in an {@code
 *       onExpire: deadLetter} queue). A refused move leaves the message in its queue (see {@link
 *       #deadLetterRefusal}).
 * </ul>
 *
 * <p>It is asked on the thread that moves (a caller's request, or the engine's housekeeping),
 * perhaps inside a storage transaction, and for {@link #deadLetterRefusal} holding the source
 * queue's lock: it must be quick and must not call the engine's queue operations.
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

  /**
   * Null if the engine may dead-letter message {@code messageId} of {@code source} into its
   * dead-letter target {@code target} on its own; else why not. A refused move changes nothing but
   * this: a message whose lease ended after its last allowed receive stays in {@code source},
   * available, keeping its receive count (its next lease end asks again); an expired one stays as
   * it was, with its expiry put off by {@link
   * io.switchboard.queue.spi.DeadLetterRules#REFUSED_EXPIRY_RETRY_MILLIS} (then asked again). Moves
   * made on request (dead-letter by lease or id) are not asked: the request was checked.
   */
  default @Nullable String deadLetterRefusal(String source, String target, String messageId) {
    return null;
  }
}
