package io.switchboard.routing;

import io.switchboard.routing.spi.RouterEntry;
import io.switchboard.routing.spi.RouterJournal;
import io.switchboard.routing.spi.StoredInterval;
import io.switchboard.routing.spi.StoredInterval.Scope;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The lasting statistics ({@code docs/routing.md}, "Statistics that last"): figures per 15-minute
 * interval, aligned to the epoch's quarter-hours on the router's clock, and since the router began,
 * for the workspace, each task queue (a contact's queue, if it has one) and each agent. Fed by the
 * router's events under its lock ({@link CallContext#emit}), it looks up the records an event names
 * for what the event does not carry (a contact's queue, arrival and answer times; an agent's
 * activity).
 *
 * <p>Every interval a call changed is stored with the call's batch ({@link #flush}), so the open
 * interval survives a restart as the records do. Memory holds the open interval and the cumulative
 * figures only (with a journal): the first call in a new interval <em>rolls</em> ({@link #roll}),
 * counting every stint in progress up to the boundary into the intervals it spans, so the closed
 * intervals are final, written with that call's batch and dropped from memory; a query reads them
 * back from the journal ({@link Partial#complete}). The stint in progress is the agent's stored
 * {@code activitySince}, counted from the last roll on ({@link #rolled}: after a restart, the
 * latest stored interval's start, which every roll stores), so it survives a restart too. Intervals
 * older than the retention are dropped from the store, one range per roll. A router without a
 * journal keeps its closed intervals in memory, the only place they are.
 */
final class IntervalStats {

  /** The interval length. */
  static final long INTERVAL_MILLIS = StoredInterval.LENGTH_MILLIS;

  /** The longest range one query may cover. */
  static final Duration MAX_RANGE = Duration.ofDays(31);

  private record Key(Scope scope, String name) {}

  /** A scope's figures in one interval ({@link StoredInterval#TOTAL}: since the router began). */
  private record Slot(long start, Key key) {}

  /**
   * One scope's figures in one interval, counted in place. Most buckets are an agent's activity
   * time alone, so the counts and the activity times are each allocated on first use, and the
   * activity times are two small arrays (an interval sees a handful of activities).
   */
  private static final class Bucket {
    private long @Nullable [] n;
    private String @Nullable [] names;

    /** Set with {@link #names}, the same length. */
    private long @Nullable [] millis;

    void count(int i, long delta) {
      if (n == null) {
        n = new long[13];
      }
      n[i] += delta;
    }

    void activity(String name, long ms) {
      String[] known = names;
      if (known == null) {
        names = new String[] {name};
        millis = new long[] {ms};
        return;
      }
      long[] times = Objects.requireNonNull(millis, "activity times are set with the names");
      for (int k = 0; k < known.length; k++) {
        if (known[k].equals(name)) {
          times[k] += ms;
          return;
        }
      }
      known = java.util.Arrays.copyOf(known, known.length + 1);
      times = java.util.Arrays.copyOf(times, times.length + 1);
      known[known.length - 1] = name;
      times[times.length - 1] = ms;
      names = known;
      millis = times;
    }

    IntervalFigures figures() {
      long[] v = n == null ? new long[13] : n;
      Map<String, Long> activity = new HashMap<>();
      if (names != null) {
        long[] times = Objects.requireNonNull(millis, "activity times are set with the names");
        for (int k = 0; k < names.length; k++) {
          activity.put(names[k], times[k]);
        }
      }
      return new IntervalFigures(
          v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12],
          activity);
    }

    Bucket copy() {
      Bucket c = new Bucket();
      c.n = n == null ? null : n.clone();
      c.names = names == null ? null : names.clone();
      c.millis = millis == null ? null : millis.clone();
      return c;
    }

    static Bucket of(IntervalFigures f) {
      Bucket b = new Bucket();
      long[] v = {
        f.arrived(),
        f.offered(),
        f.accepted(),
        f.rejected(),
        f.timedOut(),
        f.answered(),
        f.answeredWithinThreshold(),
        f.abandoned(),
        f.maxWaitExceeded(),
        f.handled(),
        f.handleMillis(),
        f.wrapUps(),
        f.wrapUpMillis()
      };
      for (int i = 0; i < v.length; i++) {
        if (v[i] != 0) {
          b.count(i, v[i]);
        }
      }
      f.activityMillis().forEach(b::activity);
      return b;
    }
  }

  // indexes into Bucket.n, in IntervalFigures' order
  private static final int ARRIVED = 0;
  private static final int OFFERED = 1;
  private static final int ACCEPTED = 2;
  private static final int REJECTED = 3;
  private static final int TIMED_OUT = 4;
  private static final int ANSWERED = 5;
  private static final int WITHIN = 6;
  private static final int ABANDONED = 7;
  private static final int MAX_WAIT = 8;
  private static final int HANDLED = 9;
  private static final int HANDLE_MS = 10;
  private static final int WRAP_UPS = 11;
  private static final int WRAP_MS = 12;

  /** An agent's activity stint in progress. */
  private record Stint(String activity, long since) {}

  private final long thresholdMillis;
  private final long retentionMillis;
  private final Function<String, ContactRecord> contacts;
  private final Function<String, AgentRecord> agents;

  /** The router's rules of a task queue (its threshold), or null ({@link CallContext#rules}). */
  private final Function<String, @Nullable QueueRules> rules;

  /**
   * Whether closed intervals stay in memory: for a router without a journal only, the one place
   * they are kept.
   */
  private final boolean keepClosed;

  /**
   * The intervals by start, then scope: the open one (from {@link #rolled} on); closed ones in the
   * call that closed them, until its {@link #flush}, or always if {@link #keepClosed}.
   */
  private final TreeMap<Long, Map<Key, Bucket>> intervals = new TreeMap<>();

  /**
   * The start of the open interval as of the last roll: every stint's time before it is counted.
   * {@link Long#MIN_VALUE} before the first roll of a router with nothing stored.
   */
  private long rolled = Long.MIN_VALUE;

  /** Since the router began. */
  private final Map<Key, Bucket> cumulative = new HashMap<>();

  private final Map<String, Stint> stints = new HashMap<>();

  /** Contacts in wrap-up: their handle and wrap-up times were counted when it began. */
  private final Set<String> inWrapUp = new HashSet<>();

  /**
   * Changed in the call in progress. Replaced rather than cleared after a call that changed many
   * ({@link #clearDirty}): a roll marks every agent in an activity, and a hash set's {@code
   * clear()} walks its whole table, so clearing a set once grown to 100,000 slots cost every later
   * call ~0.5 ms (the routing-at-scale bench's p50 went from 18 to 575 µs).
   */
  private Set<Slot> dirty = new LinkedHashSet<>();

  /** Past this many slots, {@link #clearDirty} replaces the set instead of clearing it. */
  private static final int DIRTY_KEPT = 64;

  private final List<RouterEntry> deletes = new ArrayList<>();

  IntervalStats(
      long thresholdMillis,
      long retentionMillis,
      boolean keepClosed,
      Function<String, ContactRecord> contacts,
      Function<String, AgentRecord> agents,
      Function<String, @Nullable QueueRules> rules) {
    this.keepClosed = keepClosed;
    this.thresholdMillis = thresholdMillis;
    this.retentionMillis = retentionMillis;
    this.contacts = contacts;
    this.agents = agents;
    this.rules = rules;
  }

  static long intervalStart(long millis) {
    return Math.floorDiv(millis, INTERVAL_MILLIS) * INTERVAL_MILLIS;
  }

  // ---- recovery ----------------------------------------------------------------------------

  void restore(
      List<StoredInterval> stored,
      Iterable<AgentRecord> liveAgents,
      Iterable<ContactRecord> liveContacts) {
    // the latest stored interval was open at the last roll (which stores it): stints are
    // counted up to its start
    for (StoredInterval s : stored) {
      if (s.start() != StoredInterval.TOTAL) {
        rolled = Math.max(rolled, s.start());
      }
    }
    for (StoredInterval s : stored) {
      if (s.start() == StoredInterval.TOTAL) {
        cumulative.put(new Key(s.scope(), s.name()), Bucket.of(s.figures()));
      } else if (s.start() == rolled) {
        intervals
            .computeIfAbsent(s.start(), k -> new HashMap<>())
            .put(new Key(s.scope(), s.name()), Bucket.of(s.figures()));
      }
    }
    for (AgentRecord a : liveAgents) {
      if (a.activity != null) {
        stints.put(a.id, new Stint(a.activity, a.activitySince));
      }
    }
    for (ContactRecord c : liveContacts) {
      if (c.state == ContactState.WRAP_UP) {
        inWrapUp.add(c.id);
      }
    }
  }

  // ---- counting ----------------------------------------------------------------------------

  /** Under the router's lock: counts what {@code event} says happened at {@code now}. */
  void on(RoutingEvent event, long now) {
    roll(now);
    switch (event) {
      case RoutingEvent.ContactQueued e -> {
        ContactRecord c = contacts.apply(e.contact().id());
        add(now, c.queue, null, ARRIVED, 1);
      }
      case RoutingEvent.ReservationOffered e -> {
        ContactRecord c = contacts.apply(e.reservation().contactId());
        add(now, c.queue, e.reservation().agentId(), OFFERED, 1);
      }
      case RoutingEvent.ReservationAccepted e -> {
        ContactRecord c = contacts.apply(e.contactId());
        add(now, c.queue, e.agentId(), ACCEPTED, 1);
        if (c.answeredAt == now) {
          add(now, c.queue, e.agentId(), ANSWERED, 1);
          if (now - c.createdAt <= threshold(c.queue)) {
            add(now, c.queue, e.agentId(), WITHIN, 1);
          }
        }
      }
      case RoutingEvent.ReservationRejected e ->
          add(now, contacts.apply(e.contactId()).queue, e.agentId(), REJECTED, 1);
      case RoutingEvent.ReservationTimedOut e ->
          add(now, contacts.apply(e.contactId()).queue, e.agentId(), TIMED_OUT, 1);
      case RoutingEvent.ContactAbandoned e ->
          add(now, contacts.apply(e.contactId()).queue, null, ABANDONED, 1);
      case RoutingEvent.ContactTimedOut e ->
          add(now, contacts.apply(e.contactId()).queue, null, MAX_WAIT, 1);
      case RoutingEvent.ContactWrapUp e -> {
        ContactRecord c = contacts.apply(e.contactId());
        handled(now, c, e.agentId());
        add(now, c.queue, e.agentId(), WRAP_UPS, 1);
        add(now, c.queue, e.agentId(), WRAP_MS, e.until().toEpochMilli() - now);
        inWrapUp.add(c.id);
      }
      case RoutingEvent.ContactCompleted e -> {
        if (!inWrapUp.remove(e.contactId())) {
          handled(now, contacts.apply(e.contactId()), e.agentId());
        }
      }
      case RoutingEvent.AgentCreated e -> activity(agents.apply(e.agent().id()), now);
      case RoutingEvent.AgentUpdated e -> activity(agents.apply(e.agent().id()), now);
      case RoutingEvent.AgentPresenceChanged e -> activity(agents.apply(e.agentId()), now);
      case RoutingEvent.AgentRemoved e -> {
        Stint s = stints.remove(e.agentId());
        if (s != null) {
          addActivity(e.agentId(), s.activity(), Math.max(s.since(), rolled), now);
        }
      }
      default -> {
        // escalations, updates, cancellations, transfers, cancelled offers: not counted
      }
    }
  }

  private void handled(long now, ContactRecord c, String agent) {
    add(now, c.queue, agent, HANDLED, 1);
    if (c.answeredAt >= 0) {
      add(now, c.queue, agent, HANDLE_MS, now - c.answeredAt);
    }
  }

  /** The queue's own threshold (its rules default to the workspace's), or the workspace's. */
  private long threshold(@Nullable String queue) {
    QueueRules r = queue == null ? null : rules.apply(queue);
    return r == null ? thresholdMillis : r.thresholdMillis;
  }

  /** Counts {@code n} of figure {@code i} for the workspace, the queue and the agent (if any). */
  private void add(long now, @Nullable String queue, @Nullable String agent, int i, long n) {
    // never into a closed interval (a clock behind the last roll, as after a failover to a server
    // whose clock is late): its stored figures are final and memory no longer has them
    long start = Math.max(intervalStart(now), rolled);
    bucket(start, Scope.WORKSPACE, "").count(i, n);
    bucket(StoredInterval.TOTAL, Scope.WORKSPACE, "").count(i, n);
    if (queue != null) {
      bucket(start, Scope.QUEUE, queue).count(i, n);
      bucket(StoredInterval.TOTAL, Scope.QUEUE, queue).count(i, n);
    }
    if (agent != null) {
      bucket(start, Scope.AGENT, agent).count(i, n);
      bucket(StoredInterval.TOTAL, Scope.AGENT, agent).count(i, n);
    }
  }

  private Bucket bucket(long start, Scope scope, String name) {
    Key key = new Key(scope, name);
    Map<Key, Bucket> in =
        start == StoredInterval.TOTAL
            ? cumulative
            : intervals.computeIfAbsent(start, k -> new HashMap<>());
    dirty.add(new Slot(start, key));
    return in.computeIfAbsent(key, k -> new Bucket());
  }

  /** The agent's activity may have changed: the stint that ended is counted. */
  private void activity(AgentRecord agent, long now) {
    Stint s = stints.get(agent.id);
    if (s != null && s.activity().equals(agent.activity) && s.since() == agent.activitySince) {
      return;
    }
    if (s != null) {
      addActivity(agent.id, s.activity(), Math.max(s.since(), rolled), now);
    }
    stints.put(agent.id, new Stint(agent.activity, agent.activitySince));
  }

  /** Adds the stint [from, to) in {@code activity}, split at interval boundaries. */
  private void addActivity(String agent, String activity, long from, long to) {
    if (to <= from) {
      return;
    }
    bucket(StoredInterval.TOTAL, Scope.WORKSPACE, "").activity(activity, to - from);
    bucket(StoredInterval.TOTAL, Scope.AGENT, agent).activity(activity, to - from);
    split(
        from,
        to,
        (start, ms) -> {
          bucket(start, Scope.WORKSPACE, "").activity(activity, ms);
          bucket(start, Scope.AGENT, agent).activity(activity, ms);
        });
  }

  private interface Piece {
    void add(long start, long millis);
  }

  /** Calls {@code piece} for each interval [from, to) overlaps, within the retention. */
  private void split(long from, long to, Piece piece) {
    long first = Math.max(from, intervalStart(to) - retentionMillis);
    for (long start = intervalStart(first); start < to; start += INTERVAL_MILLIS) {
      long a = Math.max(first, start);
      long b = Math.min(to, start + INTERVAL_MILLIS);
      if (b > a) {
        piece.add(start, b - a);
      }
    }
  }

  /**
   * The first call in a new interval closes the intervals before it: every stint in progress is
   * counted up to the boundary (so the closed intervals are final and the stint goes on from the
   * boundary), the new interval's workspace figures are put even if empty (the latest stored start
   * is where a restarted router goes on counting stints), and the intervals past the retention are
   * dropped from the store.
   */
  void roll(long now) {
    long start = intervalStart(now);
    if (start <= rolled) {
      return;
    }
    for (var e : stints.entrySet()) {
      Stint s = e.getValue();
      addActivity(e.getKey(), s.activity(), Math.max(s.since(), rolled), start);
    }
    rolled = start;
    bucket(start, Scope.WORKSPACE, "");
    deletes.add(new RouterEntry.IntervalsDropped(start - retentionMillis));
  }

  /** How many scopes' intervals memory holds, closed ones included (tests: the heap stays flat). */
  int heldBuckets() {
    int n = 0;
    for (Map<Key, Bucket> in : intervals.values()) {
      n += in.size();
    }
    return n;
  }

  // ---- storing -----------------------------------------------------------------------------

  /**
   * Whether the call in progress changed figures or dropped intervals (rolling first, so a call
   * that counted nothing still closes the intervals past).
   */
  boolean changed(long now) {
    roll(now);
    return !dirty.isEmpty() || !deletes.isEmpty();
  }

  /**
   * At the end of a call: adds the puts of the intervals the call changed, and the drop of those
   * past the retention, to {@code batch}; then forgets the closed intervals (stored now).
   */
  void flush(long now, List<RouterEntry> batch) {
    roll(now);
    for (Slot d : dirty) {
      Map<Key, Bucket> in =
          d.start() == StoredInterval.TOTAL ? cumulative : intervals.get(d.start());
      Bucket b = in == null ? null : in.get(d.key());
      if (b != null) {
        batch.add(
            new RouterEntry.IntervalPut(
                new StoredInterval(d.start(), d.key().scope(), d.key().name(), b.figures())));
      }
    }
    batch.addAll(deletes);
    clearDirty();
    deletes.clear();
    forgetClosed();
  }

  /** Forgets what the call changed, for a router that stores nothing. */
  void forgetChanges(long now) {
    roll(now);
    clearDirty();
    deletes.clear();
    forgetClosed();
  }

  private void clearDirty() {
    if (dirty.size() > DIRTY_KEPT) {
      dirty = new LinkedHashSet<>();
    } else {
      dirty.clear();
    }
  }

  /** Drops the closed intervals from memory: those past the retention, or all with a journal. */
  private void forgetClosed() {
    long keepFrom = keepClosed ? rolled - retentionMillis : rolled;
    intervals.headMap(keepFrom).clear();
  }

  // ---- querying ----------------------------------------------------------------------------

  /**
   * Under the router's lock, the query checked: what memory holds of the answer (the open interval,
   * with the stints in progress up to now, and the cumulative figures); {@link Partial#complete}
   * adds the closed intervals from the journal once the lock is released and the call's batch
   * appended.
   */
  Partial report(StatisticsQuery q, long now) {
    roll(now);
    Key key =
        q.queue().isPresent()
            ? new Key(Scope.QUEUE, q.queue().get())
            : q.agent().isPresent()
                ? new Key(Scope.AGENT, q.agent().get())
                : new Key(Scope.WORKSPACE, "");
    long from = intervalStart(q.from().toEpochMilli());
    long to = q.to().toEpochMilli();
    TreeMap<Long, Bucket> out = new TreeMap<>();
    intervals
        .subMap(from, true, to, false)
        .forEach(
            (start, byKey) -> {
              Bucket b = byKey.get(key);
              if (b != null) {
                out.put(start, b.copy());
              }
            });
    Bucket total = cumulative.getOrDefault(key, new Bucket()).copy();
    if (key.scope() != Scope.QUEUE) {
      // the stints in progress, up to now (their time before the last roll is counted)
      stints.forEach(
          (agent, s) -> {
            if (key.scope() == Scope.WORKSPACE || key.name().equals(agent)) {
              long since = Math.max(s.since(), rolled);
              total.activity(s.activity(), Math.max(0, now - since));
              if (since < now && rolled >= from && rolled < to) {
                out.computeIfAbsent(rolled, k -> new Bucket()).activity(s.activity(), now - since);
              }
            }
          });
    }
    Map<Long, IntervalFigures> held = new TreeMap<>();
    out.forEach((start, b) -> held.put(start, b.figures()));
    return new Partial(
        q, key.scope(), key.name(), keepClosed ? from : rolled, held, total.figures());
  }

  /**
   * What memory held of a statistics answer: the intervals from {@code storedBefore} on, and the
   * cumulative figures; the intervals before it are in the journal.
   */
  record Partial(
      StatisticsQuery query,
      Scope scope,
      String name,
      long storedBefore,
      Map<Long, IntervalFigures> held,
      IntervalFigures cumulative) {

    /** The answer, with the closed intervals {@code journal} holds (none: a router without). */
    StatisticsReport complete(@Nullable RouterJournal journal) {
      TreeMap<Long, IntervalFigures> all = new TreeMap<>();
      long from = intervalStart(query.from().toEpochMilli());
      long to = Math.min(query.to().toEpochMilli(), storedBefore);
      if (journal != null && from < to) {
        for (StoredInterval s : journal.intervals(from, to, scope, name)) {
          all.put(s.start(), s.figures());
        }
      }
      all.putAll(held);
      List<StatisticsReport.Interval> list = new ArrayList<>(all.size());
      IntervalFigures sum = IntervalFigures.ZERO;
      for (var e : all.entrySet()) {
        IntervalFigures f = e.getValue();
        if (f.equals(IntervalFigures.ZERO)) {
          continue; // a roll's marker: nothing counted
        }
        list.add(
            new StatisticsReport.Interval(
                Instant.ofEpochMilli(e.getKey()),
                Instant.ofEpochMilli(e.getKey() + INTERVAL_MILLIS),
                f));
        sum = sum.plus(f);
      }
      return new StatisticsReport(
          query.from(), query.to(), query.queue(), query.agent(), list, sum, cumulative);
    }
  }

  /** Whether anything was ever counted for the queue. */
  boolean knowsQueue(String queue) {
    return cumulative.containsKey(new Key(Scope.QUEUE, queue));
  }

  /** Whether anything was ever counted for the agent, or it is in an activity now. */
  boolean knowsAgent(String agent) {
    return cumulative.containsKey(new Key(Scope.AGENT, agent)) || stints.containsKey(agent);
  }
}
