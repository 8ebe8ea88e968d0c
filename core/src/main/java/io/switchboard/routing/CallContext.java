package io.switchboard.routing;

import io.switchboard.time.Scheduler;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What every change made during one router call shares: the call's time, the event log, the
 * journal's marks ({@link RouterStore}), the timers and the live statistics. {@link MemoryRouter}
 * sets {@link #now} under its lock at the start of each call; {@link AgentBook}, {@link
 * ContactBook} and {@link Matcher} change state through it, so that every change happens "now", is
 * an event, and is marked for the journal.
 */
final class CallContext {

  final RouterSettings settings;
  final EventLog events;
  final Timers timers = new Timers();
  final LiveStats stats;

  /** The journal's side, or null for a router that keeps nothing. */
  final @Nullable RouterStore store;

  /** The clock time of the call in progress; every change in it happens "now". */
  long now;

  /**
   * What fires timers between calls (the clock's timer thread, or its advances); null in recovery.
   */
  Scheduler.@Nullable Repeating timerDriver;

  CallContext(RouterSettings settings, @Nullable RouterStore store) {
    this.settings = settings;
    this.store = store;
    this.events = new EventLog(settings.eventHistory());
    this.stats = new LiveStats(settings.serviceLevelMillis(), settings.windowMillis());
  }

  void emit(EventLog.EventFactory factory) {
    events.append(now, factory);
  }

  /** Schedules a timer, waking the timer thread if it falls due before the thread would wake. */
  long schedule(long due, Timers.Kind kind, Object target, int step) {
    long seq = timers.schedule(due, kind, target, step);
    if (timerDriver != null) {
      timerDriver.wakeBy(due);
    }
    return seq;
  }

  void touch(AgentRecord agent) {
    if (store != null) {
      store.touch(agent);
    }
  }

  void touch(ContactRecord contact) {
    if (store != null) {
      store.touch(contact);
    }
  }

  void touch(ReservationRecord reservation) {
    if (store != null) {
      store.touch(reservation);
    }
  }

  static Instant at(long millis) {
    return Instant.ofEpochMilli(millis);
  }
}
