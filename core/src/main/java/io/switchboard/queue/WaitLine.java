package io.switchboard.queue;

import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

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
    List<Message> take(
        int max,
        @Nullable MessageFilter filter,
        long visibilityMillis,
        long now,
        @Nullable Scan scan);

    /** A filtered scan with this lock hold's budget. */
    Scan newScan();

    /** Whether anything at all is eligible. */
    boolean hasEligible();

    /** Whether this message is still in the queue and eligible. */
    boolean isEligible(StoredMessage m);
  }

  private static final Set<Waiter> NONE_YET = Collections.emptySet();

  /** In line order; {@link #NONE_YET}, shared, until the first waiter (most queues have none). */
  private Set<Waiter> waiters = NONE_YET;

  void add(Waiter w) {
    if (waiters == NONE_YET) {
      waiters = new LinkedHashSet<>();
    }
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

  /**
   * Hands the newly eligible messages ({@code fresh}, then cleared) to waiters in line. Filters are
   * tested within one scan budget for the whole handover: once it is spent, the filtered waiters
   * not yet served are woken to look for themselves ({@link Waiter#requestRescan}), each in its own
   * lock holds, so a line of costly filters never makes one send hold the lock long.
   */
  void dispatch(List<StoredMessage> fresh, Queue queue, long now) {
    if (waiters.isEmpty() || fresh.isEmpty()) {
      fresh.clear();
      return;
    }
    Scan scan = null;
    Iterator<Waiter> it = waiters.iterator();
    while (it.hasNext() && queue.hasEligible()) {
      Waiter w = it.next();
      if (w.filter != null) {
        if (scan == null) {
          scan = queue.newScan();
        }
        if (scan.spent()) {
          w.requestRescan();
          continue;
        }
        if (!acceptsAny(w.filter, fresh, queue, now, scan)) {
          if (scan.spent()) {
            w.requestRescan();
          }
          continue;
        }
        scan.restart();
      }
      List<Message> got = queue.take(w.maxMessages, w.filter, w.visibilityMillis, now, scan);
      if (!got.isEmpty()) {
        it.remove();
        w.complete(got);
      } else if (w.filter != null && Objects.requireNonNull(scan).spent()) {
        w.requestRescan();
      }
    }
    fresh.clear();
  }

  private static boolean acceptsAny(
      MessageFilter filter, List<StoredMessage> fresh, Queue queue, long now, Scan scan) {
    for (StoredMessage m : fresh) {
      if (queue.isEligible(m)) {
        if (filter.test(m, now)) {
          return true;
        }
        if (scan.charge(m)) {
          return false;
        }
      }
    }
    return false;
  }

  /**
   * Wakes the filtered waiters to look for themselves, each in its own lock hold: a key came under
   * its limit, and a message of it other than its best may match their filter.
   */
  void rescanFiltered() {
    for (Waiter w : waiters) {
      if (w.filter != null) {
        w.requestRescan();
      }
    }
  }

  /** Takes {@code w} out of the line to serve it with what its own scan found. */
  boolean remove(Waiter w) {
    boolean wasFirst = isFirst(w);
    boolean removed = waiters.remove(w);
    if (removed && wasFirst) {
      wakeFirst();
    }
    return removed;
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
