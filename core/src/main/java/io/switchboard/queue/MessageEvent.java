package io.switchboard.queue;

import java.util.Objects;

/**
 * What became of a message that no call's answer tells: the engine dead-lettered it on its own (its
 * receives ran out, it expired), dropped it at expiry, or a redrive moved it. Told to the listeners
 * of {@link QueueEngine#onMessageEvent} once the change is made (stored, for a durable engine), so
 * that tracing can end the message's life in the trace where it began.
 */
public sealed interface MessageEvent {

  /** The queue the message left. */
  String queue();

  /** The message as it was placed (moves) or as it was when it left (drops). */
  Message message();

  /** Why a message was dead-lettered. */
  enum Cause {
    /** It was received {@code maxReceiveCount} times and its last lease ended without an ack. */
    MAX_RECEIVES,
    /** It expired in a queue whose {@code onExpire} is {@code DEAD_LETTER}. */
    EXPIRED,
    /** A call asked ({@code deadLetter}, {@code deadLetterById}). */
    REQUESTED
  }

  /**
   * Moved to the dead-letter queue {@code target} ({@code target} equals {@code queue} for a queue
   * that dead-letters to itself: the message stays, its receive count reset).
   */
  record DeadLettered(String queue, String target, Message message, Cause cause)
      implements MessageEvent {
    public DeadLettered {
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(target, "target");
      Objects.requireNonNull(message, "message");
      Objects.requireNonNull(cause, "cause");
    }
  }

  /** Moved out of the dead-letter queue {@code queue} to {@code target} by a redrive or restore. */
  record Redriven(String queue, String target, Message message) implements MessageEvent {
    public Redriven {
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(target, "target");
      Objects.requireNonNull(message, "message");
    }
  }

  /** Expired and dropped (its queue's {@code onExpire} is {@code DELETE}). */
  record Expired(String queue, Message message) implements MessageEvent {
    public Expired {
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(message, "message");
    }
  }
}
