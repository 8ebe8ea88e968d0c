package io.switchboard.server;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Counts the engine-bound requests in flight, long polls apart, so that a stop can let ordinary
 * requests finish, then close the engine (which answers blocked long polls with nothing), then wait
 * for those answers. Once draining, it admits nothing new.
 *
 * <p>A lock and a condition rather than {@code synchronized}: the callers are virtual threads.
 */
final class RequestGate {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private boolean draining;
  private int busy;
  private int polls;

  /** Admits a request, or refuses it (false) once draining. */
  boolean enter(boolean poll) {
    lock.lock();
    try {
      if (draining) {
        return false;
      }
      if (poll) {
        polls++;
      } else {
        busy++;
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  void exit(boolean poll) {
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

  void drain() {
    lock.lock();
    try {
      draining = true;
    } finally {
      lock.unlock();
    }
  }

  boolean draining() {
    lock.lock();
    try {
      return draining;
    } finally {
      lock.unlock();
    }
  }

  /** Waits until no ordinary request is in flight; false if the time ran out first. */
  boolean awaitBusy(Duration timeout) throws InterruptedException {
    return await(timeout, false);
  }

  /** Waits until no long poll is in flight; false if the time ran out first. */
  boolean awaitPolls(Duration timeout) throws InterruptedException {
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

  int inFlight() {
    lock.lock();
    try {
      return busy + polls;
    } finally {
      lock.unlock();
    }
  }
}
