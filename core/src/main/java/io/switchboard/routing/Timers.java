package io.switchboard.routing;

import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;

/**
 * Every pending timer in one priority queue ordered by due time, then by the order of scheduling.
 * Timers are never removed when they become moot (an offer accepted before its timeout); instead
 * each timer carries what it expects to find, and {@link Matcher#fireDueTimers} drops it on firing
 * if the target moved on. The queue therefore holds at most one stale entry per ended offer,
 * contact escalation step, maximum wait or wrap-up, each dropped when it falls due.
 */
final class Timers {

  enum Kind {
    OFFER_TIMEOUT,
    ESCALATION,
    MAX_WAIT,
    WRAP_UP_END,
    REST_END
  }

  /**
   * One timer. {@code target} is a {@link ReservationRecord} for offer timeouts and rest ends, a
   * {@link ContactRecord} otherwise; {@code step} is the escalation step it applies.
   */
  record Timer(long due, long seq, Kind kind, Object target, int step) {}

  private final PriorityQueue<Timer> queue =
      new PriorityQueue<>(
          (a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
  private long seq;

  /** Schedules a timer; returns its order number. */
  long schedule(long due, Kind kind, Object target, int step) {
    queue.add(new Timer(due, ++seq, kind, target, step));
    return seq;
  }

  /** Puts back a timer recovered from the store, with its original order number. */
  void restore(long due, long timerSeq, Kind kind, Object target, int step) {
    queue.add(new Timer(due, timerSeq, kind, target, step));
  }

  /** The last order number handed out. */
  long seq() {
    return seq;
  }

  /** Continues numbering after {@code last}, on recovery. */
  void continueAfter(long last) {
    seq = Math.max(seq, last);
  }

  /** The next timer due at or before {@code now}, removed; null if none. */
  @Nullable Timer pollDue(long now) {
    Timer head = queue.peek();
    return head != null && head.due <= now ? queue.poll() : null;
  }

  /** When the next timer falls due; Long.MAX_VALUE if none. */
  long nextDue() {
    Timer head = queue.peek();
    return head == null ? Long.MAX_VALUE : head.due;
  }
}
