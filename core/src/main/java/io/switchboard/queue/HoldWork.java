package io.switchboard.queue;

/**
 * What the current hold of a queue's lock has examined: each message a scan tested, a walk passed
 * over, a browse page or a redrive's snapshot read. Its {@link QueueLock} starts it at zero with
 * every outermost hold and hands the count to the engine's {@link LockHolds} when the hold ends, so
 * that "bounded work per request" is measured in work, not only in wall time. Touched only by the
 * thread holding the lock.
 */
final class HoldWork {

  private long examined;

  /** Counts {@code n} more entries examined in this hold. */
  void examined(long n) {
    examined += n;
  }

  long examined() {
    return examined;
  }

  void reset() {
    examined = 0;
  }
}
