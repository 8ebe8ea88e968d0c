package io.switchboard.queue;

/** How a queue breaks ties between messages of equal priority. */
public enum Order {
  /** Oldest first. */
  FIFO,
  /** Newest first: under a backlog, fresh work wins and old work waits, then expires. */
  LIFO
}
