package io.switchboard.server.config;

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
   * A send is answered once written to the operating system; the log is synced every 10 ms, so a
   * power loss may lose the last 10 ms of sends (a crash of the process alone loses nothing).
   */
  BATCH,
  /** Written without fsync; the operating system decides when. */
  NONE
}
