package io.switchboard.queue;

/** Where a deduplication id must be unique within the five-minute window. */
public enum DedupScope {
  QUEUE,
  /** Per message group: the same id in two groups is two messages. */
  GROUP
}
