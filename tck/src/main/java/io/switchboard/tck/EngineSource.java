package io.switchboard.tck;

import io.switchboard.queue.QueueEngine;
import io.switchboard.time.ManualClock;
import org.opentest4j.TestAbortedException;

/** How a contract gets engines: fresh ones, and (durable engines) the same one reopened. */
public interface EngineSource {

  /** A fresh, empty engine whose every timer reads {@code clock}. */
  QueueEngine newEngine(ManualClock clock);

  /** Like {@link #newEngine(ManualClock)}, holding at most {@code maxQueues} queues. */
  QueueEngine newEngine(ManualClock clock, int maxQueues);

  /**
   * Closes {@code engine} and opens it again on the same storage, as after a crash or a restart.
   * Engines that keep nothing leave the default, which skips restart scenarios.
   */
  default QueueEngine restart(QueueEngine engine) {
    throw new TestAbortedException("this engine keeps nothing across a restart");
  }

  /**
   * A second engine open at the same time on the same storage as {@code engine}, as a second server
   * sharing a database would be. Engines whose storage belongs to one engine leave the default,
   * which skips the scenarios that need one.
   */
  default QueueEngine peer(QueueEngine engine) {
    throw new TestAbortedException("this engine does not share its storage with another");
  }
}
