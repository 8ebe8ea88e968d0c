package io.switchboard.queue;

/** What happens to a message whose retention or time to live runs out. */
public enum ExpiryAction {
  DELETE,
  /** Move it to the queue's dead-letter target. Needs a dead-letter policy. */
  DEAD_LETTER
}
