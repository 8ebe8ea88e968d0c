package io.switchboard.queue;

import java.util.Objects;

/**
 * What {@link QueueEngine#ensureQueue} did.
 *
 * @param queue the queue as it is now
 * @param created true when this call created it, false when it existed with the same configuration
 */
public record QueueCreation(QueueInfo queue, boolean created) {
  public QueueCreation {
    Objects.requireNonNull(queue, "queue");
  }
}
