package io.switchboard.server.http;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Counts the engine-bound requests in flight, long polls apart, so that a stop can let ordinary
 * requests finish, then close the engine (which answers blocked long polls with nothing), then wait
 * for those answers. Once draining, it admits nothing new.
 *
 * <p>A request is admitted as ordinary work; its route declares it a long poll ({@link #longPoll})
 * once it knows, which for some routes is only after reading the body (an SQS {@code
 * ReceiveMessage}). The move is one step under the lock, so a stop waiting for ordinary work sees
 * the request either there or among the long polls, never in neither.
 *
 * <p>A lock and a condition rather than {@code synchronized}: the callers are virtual threads.
 */
public final class RequestGate {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final int maxPolls;
  private boolean draining;
  private int busy;
  private int polls;
  private long pollsRefused;

  /**
   * @param maxPolls the most long polls at once ({@code max-long-polls}); one more is refused
   */
  public RequestGate(int maxPolls) {
    this.maxPolls = maxPolls;
  }

  /** Admits a request as ordinary work, or refuses it (false) once draining. */
  public boolean enter() {
    lock.lock();
    try {
      if (draining) {
        return false;
      }
      busy++;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Moves an admitted request from ordinary work to the long polls: a stop no longer waits for it
   * before closing the engine, which ends it. Call at most once per request. False, and the request
   * stays ordinary work, when {@code max-long-polls} are waiting already: the caller refuses it.
   */
  public boolean longPoll() {
    lock.lock();
    try {
      if (polls >= maxPolls) {
        pollsRefused++;
        return false;
      }
      busy--;
      polls++;
      changed.signalAll();
      return true;
    } finally {
      lock.unlock();
    }
  }

  public int maxPolls() {
    return maxPolls;
  }

  /** Long polls waiting now. */
  public int polls() {
    lock.lock();
    try {
      return polls;
    } finally {
      lock.unlock();
    }
  }

  /** Long polls refused since the start, over {@code max-long-polls}. */
  public long pollsRefused() {
    lock.lock();
    try {
      return pollsRefused;
    } finally {
      lock.unlock();
    }
  }

  /**
   * A request admitted by {@link #enter} ends; {@code poll} if it was moved by {@link #longPoll}.
   */
  public void exit(boolean poll) {
    lock.lock();
    try {
      if (poll) {
        polls--;
      } else {
        busy--;
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  public void drain() {
    lock.lock();
    try {
      draining = true;
    } finally {
      lock.unlock();
    }
  }

  public boolean draining() {
    lock.lock();
    try {
      return draining;
    } finally {
      lock.unlock();
    }
  }

  /** Waits until no ordinary request is in flight; false if the time ran out first. */
  public boolean awaitBusy(Duration timeout) throws InterruptedException {
    return await(timeout, false);
  }

  /** Waits until no long poll is in flight; false if the time ran out first. */
  public boolean awaitPolls(Duration timeout) throws InterruptedException {
    return await(timeout, true);
  }

  private boolean await(Duration timeout, boolean poll) throws InterruptedException {
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while ((poll ? polls : busy) > 0) {
        if (nanos <= 0) {
          return false;
        }
        nanos = changed.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  public int inFlight() {
    lock.lock();
    try {
      return busy + polls;
    } finally {
      lock.unlock();
    }
  }
}
