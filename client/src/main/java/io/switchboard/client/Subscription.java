package io.switchboard.client;

import java.util.concurrent.CompletableFuture;

/**
 * A consumer's open stream ({@link SwitchboardClient#consume}): the server pushes messages to its
 * handler as they become available, never more than its credit unsettled at once.
 */
public interface Subscription extends AutoCloseable {

  /** Sets the credit (1 up to the server's {@code grpc-max-credit}). */
  void credit(int credit);

  /**
   * Completes when the stream has ended: normally after {@link #close}, or with a {@link
   * SwitchboardException} when the server ended it (the queue was deleted, the server stopped, a
   * refusal such as {@code FORBIDDEN} at open).
   */
  CompletableFuture<Void> done();

  /**
   * Ends the stream and waits (up to the client's request timeout) until the server has released
   * the messages it still held leased, so they are available to other consumers when this returns.
   */
  @Override
  void close();
}
