package io.switchboard.queue;

/** Where a message stands. The last three are only seen while the queue keeps history. */
public enum MessageState {
  /** Sent with a delay, or released with one; not yet receivable. */
  DELAYED,
  /** Receivable now. */
  AVAILABLE,
  /** Leased to a consumer until its visibility timeout runs out. */
  IN_FLIGHT,
  /** Moved to the dead-letter queue (seen in the source queue's history). */
  DEAD_LETTERED,
  /** Acknowledged (kept in history). */
  COMPLETED,
  /** Reported failed by its consumer (kept in history). */
  FAILED;

  /** The lower-case name used on the wire, e.g. {@code in_flight}. */
  public String wireName() {
    return wireName;
  }

  private final String wireName = name().toLowerCase(java.util.Locale.ROOT);
}
