package io.switchboard.queue;

import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The receives blocked on one queue, in arrival order. Whoever makes messages eligible calls {@link
 * #dispatch}, under the queue's lock, which hands them to the first waiters whose filter accepts
 * one of them (first come, first served among those that match: a selective waiter never holds back
 * a later one it does not compete with). The first waiter in line also parks only until the queue's
 * next timer, so timers wake exactly one thread.
 */
final class WaitLine {

  /** What a handover needs from the queue. */
  interface Queue {
    /** Takes and leases eligible messages for a waiter; empty when none. */
    List<Message> take(int max, MessageFilter filter, long visibilityMillis, long now);

    /** Whether anything at all is eligible. */
    boolean hasEligible();

    /** Whether this message is still in the queue and eligible. */
    boolean isEligible(StoredMessage m);
  }

  private final LinkedHashSet<Waiter> waiters = new LinkedHashSet<>();

  void add(Waiter w) {
    waiters.add(w);
  }

  int size() {
    return waiters.size();
  }

  /** Gives up a wait (deadline or interrupt); false if a handover beat it. */
  boolean abandon(Waiter w) {
    boolean wasFirst = isFirst(w);
    boolean removed = waiters.remove(w);
    if (removed) {
      w.complete(List.of());
      if (wasFirst) {
        wakeFirst();
      }
    }
    return removed;
  }

  /** Whether {@code w} is first in line, and so the one that wakes for timers. */
  boolean isFirst(Waiter w) {
    return !waiters.isEmpty() && waiters.iterator().next() == w;
  }

  /** Hands the newly eligible messages ({@code fresh}, then cleared) to waiters in line. */
  void dispatch(List<StoredMessage> fresh, Queue queue, long now) {
    if (waiters.isEmpty() || fresh.isEmpty()) {
      fresh.clear();
      return;
    }
    Iterator<Waiter> it = waiters.iterator();
    while (it.hasNext() && queue.hasEligible()) {
      Waiter w = it.next();
      if (!acceptsAny(w.filter, fresh, queue, now)) {
        continue;
      }
      List<Message> got = queue.take(w.maxMessages, w.filter, w.visibilityMillis, now);
      if (!got.isEmpty()) {
        it.remove();
        w.complete(got);
      }
    }
    fresh.clear();
  }

  private static boolean acceptsAny(
      MessageFilter filter, List<StoredMessage> fresh, Queue queue, long now) {
    for (StoredMessage m : fresh) {
      if (queue.isEligible(m) && (filter == null || filter.test(m, now))) {
        return true;
      }
    }
    return false;
  }

  /** Ends the waits whose deadline has come, empty-handed. */
  void expire(long now) {
    if (waiters.isEmpty()) {
      return;
    }
    Iterator<Waiter> it = waiters.iterator();
    while (it.hasNext()) {
      Waiter w = it.next();
      if (w.deadline <= now) {
        it.remove();
        w.complete(List.of());
      }
    }
  }

  /** The first waiter parks until the next timer; wake it when that may have moved earlier. */
  void wakeFirst() {
    if (!waiters.isEmpty()) {
      LockSupport.unpark(waiters.iterator().next().thread);
    }
  }

  /** Ends every wait (queue deleted or engine closed). */
  void releaseAll() {
    for (Waiter w : waiters) {
      w.complete(List.of());
    }
    waiters.clear();
  }
}
