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

  /** The rules of the workspace's task queues, by name ({@link Router#taskQueues}). */
  final java.util.Map<String, QueueRules> queues = new java.util.HashMap<>();

  /** The journal's side, or null for a router that keeps nothing. */
  final @Nullable RouterStore store;

  /** The lasting statistics, fed by {@link #emit}; null until the router sets them. */
  @Nullable IntervalStats intervals;

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

  /** The rules of task queue {@code queue}, or null for none (or a queue the router has not). */
  @Nullable QueueRules rules(@Nullable String queue) {
    return queue == null ? null : queues.get(queue);
  }

  /** The live counters of task queue {@code queue}, or null. */
  @Nullable TaskQueueCounters counters(@Nullable String queue) {
    QueueRules rules = rules(queue);
    return rules == null ? null : rules.counters;
  }

  void emit(EventLog.EventFactory factory) {
    RoutingEvent event = events.append(now, factory);
    if (intervals != null) {
      intervals.on(event, now);
    }
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
