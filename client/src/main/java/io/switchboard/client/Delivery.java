package io.switchboard.client;

import io.switchboard.queue.Message;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A message a {@link Subscription} pushed, and how to settle it on the same stream. Each settle
 * completes once the server answered it: normally, or with a {@link SwitchboardException} naming
 * the error (e.g. {@code RECEIPT_STALE} when the lease ran out and the message was delivered
 * again). May be called from any thread.
 */
public interface Delivery {

  /** The message, with its receipt. */
  Message message();

  /** Deletes it; its credit comes back. */
  CompletableFuture<Void> ack();

  /** Hands it back, available again after {@code delay}; its credit comes back. */
  CompletableFuture<Void> release(Duration delay);

  /** Hands it back at once. */
  default CompletableFuture<Void> release() {
    return release(Duration.ZERO);
  }

  /** Makes its lease run {@code visibilityTimeout} from now; it keeps its credit. */
  CompletableFuture<Void> extend(Duration visibilityTimeout);
}
