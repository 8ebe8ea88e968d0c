package io.switchboard.bench.filter;

import java.util.List;

/** One system under test: a queue it can fill, take one matching message from, and append to. */
interface Target extends AutoCloseable {

  /** A short name for tables and CSV. */
  String name();

  /** Sends {@code messages} in order; returns when all are enqueued. */
  void fill(List<Workload.Msg> messages) throws Exception;

  /**
   * One filtered receive of at most one message plus its acknowledgement, timed with {@link
   * System#nanoTime()}; fails if nothing matched.
   */
  long receiveAndAckNanos() throws Exception;

  /** Sends one message to the tail (untimed); returns when it is enqueued. */
  void send(Workload.Msg message) throws Exception;

  /** Messages in the queue now. */
  long depth() throws Exception;

  @Override
  void close() throws Exception;
}
