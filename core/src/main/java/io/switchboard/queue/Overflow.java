package io.switchboard.queue;

/** What a send does when the queue is at its maximum depth. */
public enum Overflow {
  /** Refuse the send with {@link ErrorCode#QUEUE_FULL}; nothing is enqueued. */
  REJECT,
  /**
   * Make room by dropping the oldest messages that are not in flight (load shedding); they are
   * counted as shed.
   */
  DROP_OLDEST
}
