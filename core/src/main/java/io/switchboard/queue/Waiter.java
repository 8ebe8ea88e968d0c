package io.switchboard.queue;

import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * A receive blocked in a long poll. Waiters queue up in arrival order; whoever makes a message
 * eligible (a send, a release, a timer) hands it over under the queue's lock to the first waiter
 * whose filter accepts it, then unparks that waiter. The handover is the lease: a waiter that wakes
 * finds its messages already taken for it, so none can be stolen by a later receive.
 */
final class Waiter {

  final int maxMessages;
  final long visibilityMillis;
  final @Nullable MessageFilter filter;
  final long deadline;
  final Thread thread = Thread.currentThread();

  private volatile boolean done;
  private volatile boolean rescan;
  private volatile List<Message> result = List.of();

  Waiter(int maxMessages, long visibilityMillis, @Nullable MessageFilter filter, long deadline) {
    this.maxMessages = maxMessages;
    this.visibilityMillis = visibilityMillis;
    this.filter = filter;
    this.deadline = deadline;
  }

  /** Completes the wait with {@code messages} (possibly none) and wakes the waiting thread. */
  void complete(List<Message> messages) {
    result = messages;
    done = true;
    LockSupport.unpark(thread);
  }

  /**
   * Asks the waiting thread to scan the queue itself: a handover ran out of budget before it could
   * tell whether this waiter's filter matches what became eligible.
   */
  void requestRescan() {
    rescan = true;
    LockSupport.unpark(thread);
  }

  /** Whether a rescan is asked for and not yet taken; leaves the request in place. */
  boolean rescanAsked() {
    return rescan;
  }

  /** Whether a rescan was asked for since the last call. */
  boolean takeRescan() {
    if (!rescan) {
      return false;
    }
    rescan = false;
    return true;
  }

  boolean done() {
    return done;
  }

  List<Message> result() {
    return result;
  }
}
