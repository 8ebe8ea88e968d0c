package io.switchboard.queue;

/**
 * Stable codes for every error a caller can cause or meet. The names are part of the public API:
 * the HTTP layer puts them on the wire and clients switch on them, so they never change meaning.
 */
public enum ErrorCode {
  /** A field is missing, malformed or out of range. The message names the field and the range. */
  INVALID_ARGUMENT,
  /** A selector does not parse; the message gives the column and what was expected. */
  INVALID_SELECTOR,
  /** The named queue does not exist. */
  QUEUE_NOT_FOUND,
  /** A queue of that name exists with a different configuration. */
  QUEUE_ALREADY_EXISTS,
  /** The engine already holds its configured maximum number of queues. */
  TOO_MANY_QUEUES,
  /** No message with that id is in the queue. */
  MESSAGE_NOT_FOUND,
  /** The body plus attributes exceed the queue's maximum message size. */
  MESSAGE_TOO_LARGE,
  /** A batch holds more entries than allowed. */
  BATCH_TOO_LARGE,
  /** The receipt handle is malformed or was not issued by this queue. */
  RECEIPT_INVALID,
  /** The receipt handle belongs to an earlier receive; the message was received again since. */
  RECEIPT_STALE,
  /** The operation needs the message to be in flight (leased), and it is not. */
  MESSAGE_NOT_IN_FLIGHT,
  /** The queue is at its maximum depth and its overflow policy is {@code reject}. */
  QUEUE_FULL,
  /** The operation conflicts with the queue's kind or state (e.g. touch on a grouped queue). */
  CONFLICT,
  /** The redrive task does not exist. */
  TASK_NOT_FOUND,
  /** The engine cannot accept the operation now (closed, storage failure); retry later. */
  UNAVAILABLE,
  /**
   * The server holds its limit of queued bytes (all queues together, {@link
   * QueueLimits#maxQueuedBytes}); a send is refused until consumers take messages out. Retry later.
   */
  SERVER_FULL,
  /**
   * The queue has as many messages in flight (received and not yet acked) as it may ({@link
   * QueueLimits#maxInFlight}); a receive is refused until some are acked, released or expire. Retry
   * later.
   */
  OVER_LIMIT
}
