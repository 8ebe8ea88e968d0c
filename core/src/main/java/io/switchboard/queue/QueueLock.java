package io.switchboard.queue;

import io.switchboard.time.TimeSource;
import java.util.Collection;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A queue's lock that measures how long it is held: every outermost hold's length goes to the
 * engine's {@link LockHolds}, so the engine can tell (and tests can assert) the longest time one
 * operation kept others out (DESIGN.md, "Bounded work per request"), in the engine's {@link
 * TimeSource#nanoTime}, and the entries it examined ({@link #work}).
 *
 * <p>A scan that pauses between holds calls {@link #stepAside} after unlocking: the lock is not
 * fair (fairness would cost every operation), so without it the scanner would take the lock again
 * before the threads it woke, and a long scan would still starve senders.
 */
final class QueueLock extends ReentrantLock {

  private static final int MAX_YIELDS = 1000;

  private final LockHolds holds;
  private final TimeSource time;
  private long acquiredAt;

  /** What the current hold has examined; reset by each outermost {@link #lock}. */
  final HoldWork work = new HoldWork();

  QueueLock(LockHolds holds, TimeSource time) {
    this.holds = holds;
    this.time = time;
  }

  @Override
  public void lock() {
    super.lock();
    if (getHoldCount() == 1) {
      acquiredAt = time.nanoTime();
      work.reset();
    }
  }

  @Override
  public void unlock() {
    if (isHeldByCurrentThread() && getHoldCount() == 1) {
      holds.record(time.nanoTime() - acquiredAt, work.examined());
    }
    super.unlock();
  }

  /**
   * Called without the lock: lets the threads queued for it now take it before the caller takes it
   * again. Bounded: gives up after a thousand yields, however many keep arriving.
   */
  void stepAside() {
    Collection<Thread> queued = getQueuedThreads();
    for (int i = 0; i < MAX_YIELDS && !queued.isEmpty(); i++) {
      Thread.yield();
      queued.removeIf(t -> !hasQueuedThread(t));
    }
  }
}
