package io.switchboard.server;

/**
 * When a durable store acknowledges a write. Only meaningful with a data directory; the in-memory
 * mode keeps nothing.
 */
public enum Durability {
  /**
   * A send is answered after its record is on disk (group commit: concurrent sends share fsyncs).
   */
  SYNC,
  /**
   * Records are flushed in batches on a short timer; a crash may lose the last few milliseconds.
   */
  BATCH,
  /** Written without fsync; the operating system decides when. */
  NONE
}
