package io.switchboard.routing;

import io.switchboard.selector.Selector;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A deliberately simple router for differential testing: plain lists, linear scans, no indexes, no
 * shortcuts. It follows the routing rules of docs/design.md as docs/routing.md spells them out, and
 * records every offer it makes, so the real router's decisions can be compared step by step.
 *
 * <p>Strategy: longest idle, least occupied or highest {@code level} (integer attribute), each with
 * longest idle (idle-since, then the order of becoming idle, then creation) as tie-break.
 *
 * <p>Task queues ({@link Q}): a contact routed through one takes the queue's strategy when it
 * chooses an agent, stands among equal priority after the FIFO contacts and newest first if the
 * queue is LIFO, and is offered only to agents holding fewer than the queue's cap of its contacts;
 * the queue counts offers and outcomes.
 */
final class ReferenceRouter {

  enum Strat {
    LONGEST_IDLE,
    LEAST_OCCUPIED,
    HIGHEST_LEVEL
  }

  /** A task queue's rules and counters. */
  static final class Q {
    String name;
    boolean lifo;
    Strat strat; // null: the router's
    int cap; // 0: none
    long threshold;
    long offered;
    long accepted;
    long rejected;
    long offersTimedOut;
    long answered;
    long within;
    long abandoned;
    long timedOut;
  }

  static final class A {
    String id;
    long serial;
    Map<String, Object> attrs;
    Map<String, Integer> cap;
    Map<String, Integer> load = new LinkedHashMap<>();
    Presence presence = Presence.offline();
    int wrapUps;
    long idleSince;
    long idleSeq;
    int misses;
    List<R> pending = new ArrayList<>();
    int active;
    Map<String, Integer> qload = new LinkedHashMap<>();
    String activity;

    int qload(String q) {
      return qload.getOrDefault(q, 0);
    }

    int load(String ch) {
      return load.getOrDefault(ch, 0);
    }

    int total() {
      return load.values().stream().mapToInt(Integer::intValue).sum();
    }

    boolean eligible(String ch) {
      return presence.isAvailable() && wrapUps == 0 && load(ch) < cap.getOrDefault(ch, 0);
    }

    boolean idle() {
      return presence.isAvailable() && wrapUps == 0 && total() == 0;
    }
  }

  static final class C {
    String id;
    String channel;
    Selector req;
    int priority;
    long seq;
    long created;
    List<long[]> stepsAfter = new ArrayList<>();
    List<Selector> stepsReq = new ArrayList<>();
    long deadline = Long.MAX_VALUE;
    ContactState state = ContactState.QUEUED;
    int step;
    A agent;
    R res;
    String queue;
    boolean answered;
    // a workflow's contact: its targets, the one it is in (step), since when (entry)
    Map<String, Object> attrs = Map.of();
    String workflow;
    List<Stage> stages;
    long entry;
    int gen;
    boolean transferred;
    String only; // the preferred agent, while its stage lasts
    boolean never; // a contact.<attr> reference it cannot resolve: no agent matches
    Map<A, Integer> rest = new LinkedHashMap<>(); // agents that refused it: rests in force
  }

  /**
   * One stage of a workflow's contact: a target (or the preferred agent's stage before them),
   * entered {@code due} ms after the contact entered the workflow, unless skipped to earlier.
   */
  record Stage(
      String queue,
      Selector req,
      String only,
      boolean never,
      Integer priority,
      long due,
      boolean skip) {}

  /** A workflow target: {@code extra} may hold one {@code contact.<ref>} reference. */
  record WTarget(
      String queue, String extra, String ref, Integer priority, long timeout, boolean skip) {}

  record WFilter(String expression, List<WTarget> targets) {}

  /** A workflow; {@code preferred} null for no preferred agent. */
  record WFlow(
      String name,
      List<WFilter> filters,
      List<WTarget> defaults,
      String preferred,
      long preferredTimeout) {}

  static final class R {
    String id;
    C contact;
    A agent;
    long expires;
    ReservationState state = ReservationState.PENDING;
  }

  record T(long due, long seq, String kind, Object target, int step, int gen) {}

  /** One decision: contact offered to agent. */
  record Offer(String reservationId, String contactId, String agentId) {}

  final Strat strat;
  final long offerTimeout;
  final int missLimit;
  final boolean autoAccept;
  final long defaultWrapUp;

  /** After a reject or a missed offer, how long the contact is not offered to that agent. */
  long restPeriod = 30_000;

  long now;
  final Map<String, A> agents = new LinkedHashMap<>();
  final Map<String, C> contacts = new LinkedHashMap<>();
  final Map<String, R> reservations = new LinkedHashMap<>();
  final List<T> timers = new ArrayList<>();
  final List<Offer> offers = new ArrayList<>();
  final Map<String, Q> queues = new LinkedHashMap<>();
  final Map<String, String> workerExpressions = new LinkedHashMap<>();
  final Map<String, WFlow> workflows = new LinkedHashMap<>();
  long serials;
  long seqs;
  long idleSeqs;
  long resSeqs;
  long timerSeqs;

  ReferenceRouter(
      Strat strat, long offerTimeout, int missLimit, boolean autoAccept, long defaultWrapUp) {
    this.strat = strat;
    this.offerTimeout = offerTimeout;
    this.missLimit = missLimit;
    this.autoAccept = autoAccept;
    this.defaultWrapUp = defaultWrapUp;
  }

  // ---- helpers -------------------------------------------------------------------------

  private void mutate(A a, Runnable change) {
    boolean was = a.idle();
    change.run();
    if (!was && a.idle()) {
      a.idleSince = now;
      a.idleSeq = ++idleSeqs;
    }
  }

  private void addLoad(A a, String ch, int d) {
    a.load.merge(ch, d, Integer::sum);
  }

  private void schedule(long due, String kind, Object target, int step) {
    schedule(due, kind, target, step, 0);
  }

  private void schedule(long due, String kind, Object target, int step, int gen) {
    timers.add(new T(due, ++timerSeqs, kind, target, step, gen));
  }

  private Q q(C c) {
    return c.queue == null ? null : queues.get(c.queue);
  }

  /** Whether the agent is below the cap of the contact's queue. */
  private boolean admits(A a, C c) {
    Q q = q(c);
    return q == null || q.cap == 0 || a.qload(q.name) < q.cap;
  }

  /** The order of service: priority, then FIFO contacts by arrival, then LIFO ones newest first. */
  private boolean before(C c, C best) {
    if (c.priority != best.priority) {
      return c.priority > best.priority;
    }
    boolean lifo = lifo(c);
    if (lifo != lifo(best)) {
      return !lifo;
    }
    return lifo ? c.seq > best.seq : c.seq < best.seq;
  }

  private boolean lifo(C c) {
    Q q = q(c);
    return q != null && q.lifo;
  }

  private Comparator<A> order(String ch, C c) {
    Q q = q(c);
    return order(ch, q == null || q.strat == null ? strat : q.strat);
  }

  private Comparator<A> order(String ch, Strat strat) {
    Comparator<A> idle =
        Comparator.<A>comparingLong(a -> a.idleSince)
            .thenComparingLong(a -> a.idleSeq)
            .thenComparingLong(a -> a.serial);
    return switch (strat) {
      case LONGEST_IDLE -> idle;
      case LEAST_OCCUPIED ->
          Comparator.<A>comparingDouble(a -> (double) a.load(ch) / a.cap.get(ch))
              .thenComparing(idle);
      case HIGHEST_LEVEL ->
          Comparator.<A>comparingLong(
                  a -> a.attrs.get("level") instanceof Number n ? -n.longValue() : Long.MAX_VALUE)
              .thenComparing(idle);
    };
  }

  private static boolean matches(Selector req, A a) {
    return req == null || req.matches(a.attrs::get);
  }

  /** Whether agent {@code a} satisfies what contact {@code c} requires now. */
  static boolean matches(C c, A a) {
    if (c.never) {
      return false;
    }
    if (c.only != null) {
      return c.only.equals(a.id);
    }
    return matches(c.req, a);
  }

  /** Whether {@code a} may take {@code c} now: it matches, and {@code c} does not rest from it. */
  private boolean may(C c, A a) {
    return matches(c, a) && !c.rest.containsKey(a);
  }

  /**
   * A refused offer: its contact rests from its agent for the rest period, until the timer that
   * ends the rest fires.
   */
  private void rest(R r) {
    r.contact.rest.merge(r.agent, 1, Integer::sum);
    schedule(now + restPeriod, "rest", r, 0);
  }

  // ---- matching ------------------------------------------------------------------------

  private void settleContact(C c) {
    A best = null;
    for (A a : agents.values()) {
      if (a.eligible(c.channel)
          && admits(a, c)
          && may(c, a)
          && (best == null || order(c.channel, c).compare(a, best) < 0)) {
        best = a;
      }
    }
    if (best != null) {
      offer(c, best);
    }
  }

  private void settleAgent(A a) {
    while (true) {
      C best = null;
      for (C c : contacts.values()) {
        if (c.state == ContactState.QUEUED
            && a.eligible(c.channel)
            && admits(a, c)
            && may(c, a)
            && (best == null || before(c, best))) {
          best = c;
        }
      }
      if (best == null) {
        return;
      }
      offer(best, a);
    }
  }

  /**
   * Checked at each offer the rules make (not a transfer to a named agent): the agent may take the
   * contact now (eligible, below the queue's cap, matching the contact's current stage: so a
   * preferred agent's stage offers to that agent only), and no waiting contact the agent could take
   * comes before it (no skipping).
   */
  private void offer(C c, A a) {
    if (!a.eligible(c.channel) || !admits(a, c) || !may(c, a)) {
      throw new AssertionError("contact " + c.id + " offered to " + a.id + ", who may not take it");
    }
    for (C other : contacts.values()) {
      if (other != c
          && other.state == ContactState.QUEUED
          && a.eligible(other.channel)
          && admits(a, other)
          && may(other, a)
          && before(other, c)) {
        throw new AssertionError(
            "contact " + c.id + " offered to " + a.id + " before " + other.id + " (skipping)");
      }
    }
    offerAnyway(c, a);
  }

  private void offerAnyway(C c, A a) {
    R r = new R();
    r.id = "res-" + ++resSeqs;
    r.contact = c;
    r.agent = a;
    r.expires = now + offerTimeout;
    reservations.put(r.id, r);
    c.state = ContactState.OFFERED;
    c.agent = a;
    c.res = r;
    mutate(
        a,
        () -> {
          addLoad(a, c.channel, 1);
          a.pending.add(r);
        });
    if (c.queue != null) {
      a.qload.merge(c.queue, 1, Integer::sum);
    }
    if (q(c) != null) {
      q(c).offered++;
    }
    offers.add(new Offer(r.id, c.id, a.id));
    if (autoAccept) {
      accept(r);
    } else {
      schedule(r.expires, "offer", r, 0);
    }
  }

  private void accept(R r) {
    r.state = ReservationState.ACCEPTED;
    r.agent.pending.remove(r);
    r.agent.active++;
    r.agent.misses = 0;
    r.contact.state = ContactState.ASSIGNED;
    Q q = q(r.contact);
    if (q != null) {
      q.accepted++;
    }
    if (!r.contact.answered) {
      r.contact.answered = true;
      long wait = now - r.contact.created;
      if (q != null) {
        q.answered++;
        q.within += wait <= q.threshold ? 1 : 0;
      }
    }
  }

  private void requeue(C c) {
    c.agent = null;
    c.res = null;
    if (now >= c.deadline) {
      timedOut(c);
      return;
    }
    c.state = ContactState.QUEUED;
    settleContact(c);
  }

  private void timedOut(C c) {
    c.state = ContactState.TIMED_OUT;
    if (q(c) != null) {
      q(c).timedOut++;
    }
  }

  private void release(A a, C c) {
    release(a, c, c.queue);
  }

  /** Frees the slot held for {@code c} when it was routed through {@code queue}. */
  private void release(A a, C c, String queue) {
    mutate(a, () -> addLoad(a, c.channel, -1));
    if (queue != null) {
      a.qload.merge(queue, -1, Integer::sum);
    }
    settleAgent(a);
  }

  private void close(R r, ReservationState how) {
    r.state = how;
    r.agent.pending.remove(r);
  }

  private void withdraw(A a) {
    for (R r : List.copyOf(a.pending)) {
      close(r, ReservationState.CANCELLED);
      requeue(r.contact);
      release(a, r.contact);
    }
  }

  // ---- operations (the caller guarantees they are valid) ---------------------------------

  void advanceTo(long time) {
    now = time;
    while (true) {
      T next = null;
      for (T t : timers) {
        if (t.due <= now
            && (next == null || t.due < next.due || (t.due == next.due && t.seq < next.seq))) {
          next = t;
        }
      }
      if (next == null) {
        return;
      }
      timers.remove(next);
      fire(next);
    }
  }

  private void fire(T t) {
    switch (t.kind) {
      case "offer" -> {
        R r = (R) t.target;
        if (r.state == ReservationState.PENDING) {
          A a = r.agent;
          close(r, ReservationState.TIMED_OUT);
          if (q(r.contact) != null) {
            q(r.contact).offersTimedOut++;
          }
          rest(r);
          requeue(r.contact);
          a.misses++;
          if (missLimit > 0 && a.misses >= missLimit && a.presence.isAvailable()) {
            mutate(
                a,
                () -> {
                  addLoad(a, r.contact.channel, -1);
                  a.presence = Presence.away("missed");
                  a.activity = "away";
                });
            if (r.contact.queue != null) {
              a.qload.merge(r.contact.queue, -1, Integer::sum);
            }
            withdraw(a);
          } else {
            release(a, r.contact);
          }
        }
      }
      case "escalation" -> {
        C c = (C) t.target;
        if ((c.state == ContactState.QUEUED || c.state == ContactState.OFFERED)
            && c.step < t.step) {
          c.req = c.stepsReq.get(t.step - 1);
          c.step = t.step;
          if (c.state == ContactState.QUEUED) {
            settleContact(c);
          }
        }
      }
      case "target" -> {
        C c = (C) t.target;
        if ((c.state == ContactState.QUEUED || c.state == ContactState.OFFERED)
            && t.gen == c.gen
            && c.step < t.step) {
          escalateStage(c, t.step);
        }
      }
      case "rest" -> {
        R r = (R) t.target;
        C c = r.contact;
        A a = r.agent;
        c.rest.merge(a, -1, (x, y) -> x + y == 0 ? null : x + y);
        if (!c.rest.containsKey(a)
            && c.state == ContactState.QUEUED
            && agents.get(a.id) == a
            && a.eligible(c.channel)) {
          settleAgent(a);
        }
      }
      case "maxwait" -> {
        C c = (C) t.target;
        if (c.state == ContactState.QUEUED && now >= c.deadline) {
          timedOut(c);
        }
      }
      case "wrapup" -> {
        C c = (C) t.target;
        if (c.state == ContactState.WRAP_UP) {
          finish(c, true);
        }
      }
      default -> throw new AssertionError(t.kind);
    }
  }

  void createAgent(String id, Map<String, Object> attrs, Map<String, Integer> cap, Presence p) {
    createAgent(id, attrs, cap, p, p.kind().name().toLowerCase(java.util.Locale.ROOT));
  }

  void createAgent(
      String id, Map<String, Object> attrs, Map<String, Integer> cap, Presence p, String activity) {
    A a = new A();
    a.activity = activity;
    a.id = id;
    a.serial = ++serials;
    a.attrs = attrs;
    a.cap = cap;
    a.idleSince = now;
    a.idleSeq = ++idleSeqs;
    agents.put(id, a);
    mutate(a, () -> a.presence = p);
    settleAgent(a);
  }

  void updateAttributes(String id, Map<String, Object> attrs) {
    A a = agents.get(id);
    a.attrs = attrs;
    settleAgent(a);
  }

  void presence(String id, Presence p) {
    presence(id, p, p.kind().name().toLowerCase(java.util.Locale.ROOT));
  }

  /** An agent moves to activity {@code name}, whose presence is {@code p}. */
  void activity(String id, String name, Presence p) {
    A a = agents.get(id);
    if (a.presence.equals(p)) {
      a.activity = name;
      return;
    }
    presence(id, p, name);
  }

  private void presence(String id, Presence p, String label) {
    A a = agents.get(id);
    if (a.presence.equals(p)) {
      return;
    }
    mutate(
        a,
        () -> {
          a.presence = p;
          a.activity = label;
          if (p.isAvailable()) {
            a.misses = 0;
          }
        });
    if (p.isAvailable()) {
      settleAgent(a);
    } else {
      withdraw(a);
    }
  }

  void removeAgent(String id) {
    A a = agents.get(id);
    mutate(a, () -> a.presence = Presence.offline());
    withdraw(a);
    agents.remove(id);
  }

  void createContact(
      String id,
      String channel,
      Selector req,
      int priority,
      List<Long> stepAfter,
      List<Selector> stepReq,
      long maxWait,
      String queue) {
    C c = new C();
    c.queue = queue;
    c.id = id;
    c.channel = channel;
    c.req = req;
    c.priority = priority;
    c.seq = ++seqs;
    c.created = now;
    c.stepsReq.addAll(stepReq);
    contacts.put(id, c);
    for (int i = 0; i < stepAfter.size(); i++) {
      schedule(now + stepAfter.get(i), "escalation", c, i + 1);
    }
    if (maxWait > 0) {
      c.deadline = now + maxWait;
      schedule(c.deadline, "maxwait", c, 0);
    }
    settleContact(c);
  }

  void accept(String rid) {
    accept(reservations.get(rid));
  }

  void reject(String rid) {
    R r = reservations.get(rid);
    close(r, ReservationState.REJECTED);
    if (q(r.contact) != null) {
      q(r.contact).rejected++;
    }
    rest(r);
    requeue(r.contact);
    release(r.agent, r.contact);
  }

  void abandon(String cid) {
    C c = contacts.get(cid);
    if (q(c) != null) {
      q(c).abandoned++;
    }
    leaveLine(c);
  }

  private void leaveLine(C c) {
    A offered = c.agent;
    if (c.state == ContactState.OFFERED) {
      close(c.res, ReservationState.CANCELLED);
    }
    c.agent = null;
    c.res = null;
    c.state = ContactState.ABANDONED;
    if (offered != null) {
      release(offered, c);
    }
  }

  /** A waiting contact's priority and/or requirement (changeReq false: unchanged). */
  void change(String cid, int priority, boolean changeReq, Selector req) {
    C c = contacts.get(cid);
    c.priority = priority;
    if (changeReq) {
      c.req = req;
      if (c.state == ContactState.QUEUED) {
        settleContact(c);
      }
    }
  }

  void cancel(String cid) {
    C c = contacts.get(cid);
    leaveLine(c);
    c.state = ContactState.CANCELLED;
  }

  /** An assigned contact to a queue: waits under {@code req}, steps dropped, no maximum wait. */
  void transfer(String cid, String queue, Selector req) {
    C c = contacts.get(cid);
    A from = leave(c);
    String held = c.queue;
    c.queue = queue;
    c.req = req;
    c.only = null;
    c.never = false;
    c.step = c.stages == null ? c.stepsReq.size() : c.stages.size() - 1;
    c.transferred = true;
    c.state = ContactState.QUEUED;
    settleContact(c);
    release(from, c, held);
  }

  /** Defines or redefines a task queue; every agent then takes what it may now take. */
  void queue(String name, boolean lifo, Strat strat, int cap, long threshold) {
    Q q = queues.computeIfAbsent(name, n -> new Q());
    q.name = name;
    q.lifo = lifo;
    q.strat = strat;
    q.cap = cap;
    q.threshold = threshold;
    for (A a : agents.values()) {
      settleAgent(a);
    }
  }

  /** An assigned contact offered to agent {@code aid}, which the caller checked can take it. */
  void transferToAgent(String cid, String aid) {
    C c = contacts.get(cid);
    A from = leave(c);
    c.step = c.stages == null ? c.stepsReq.size() : c.stages.size() - 1; // steps dropped
    c.transferred = true;
    c.state = ContactState.QUEUED;
    offerAnyway(c, agents.get(aid));
    release(from, c);
  }

  private A leave(C c) {
    A from = c.agent;
    from.active--;
    c.agent = null;
    c.res = null;
    c.deadline = Long.MAX_VALUE;
    return from;
  }

  // ---- workflows -----------------------------------------------------------------------

  /**
   * The stages of a contact with {@code attrs} routed by {@code w}: the first filter whose
   * expression matches takes it (else the defaults); a preferred agent named by the contact comes
   * first, in the first target's queue; each target requires its queue's worker expression AND its
   * extra expression, whose {@code contact.<ref>} is replaced by the contact's value (a missing or
   * list value: no agent matches). Stage k is due at the sum of the timeouts before it.
   */
  List<Stage> route(WFlow w, Map<String, Object> attrs) {
    List<WTarget> targets = w.defaults();
    for (WFilter f : w.filters()) {
      if (Selector.parse(f.expression()).matches(attrs::get)) {
        targets = f.targets();
        break;
      }
    }
    List<Stage> stages = new ArrayList<>();
    long due = 0;
    if (w.preferred() != null && attrs.get(w.preferred()) instanceof String agent) {
      stages.add(new Stage(targets.get(0).queue(), null, agent, false, null, 0, false));
      due = w.preferredTimeout();
    }
    for (WTarget t : targets) {
      String expression = workerExpressions.get(t.queue());
      boolean never = false;
      String extra = t.extra();
      if (extra != null && t.ref() != null) {
        Object value = attrs.get(t.ref());
        if (value instanceof String v) {
          extra = extra.replace("contact." + t.ref(), "'" + v + "'");
        } else if (value instanceof Number n) {
          extra = extra.replace("contact." + t.ref(), n.toString());
        } else {
          never = true;
        }
      }
      String both =
          expression == null
              ? extra
              : extra == null ? expression : "(" + expression + ") AND (" + extra + ")";
      stages.add(
          new Stage(
              t.queue(),
              both == null || never ? null : Selector.parse(both),
              null,
              never,
              t.priority(),
              due,
              t.skip()));
      due += t.timeout();
    }
    return stages;
  }

  /** A contact created through workflow {@code workflow}. */
  void createRouted(
      String id,
      String channel,
      Map<String, Object> attrs,
      int priority,
      long maxWait,
      String workflow) {
    C c = new C();
    c.id = id;
    c.channel = channel;
    c.attrs = attrs;
    c.workflow = workflow;
    c.priority = priority;
    c.seq = ++seqs;
    c.created = now;
    contacts.put(id, c);
    routeAgain(c, workflows.get(workflow));
    if (maxWait > 0) {
      c.deadline = now + maxWait;
      schedule(c.deadline, "maxwait", c, 0);
    }
    enter(c, c.stages.get(0).skip());
  }

  /** Sets the contact's stages, enters the first (timers from now); the caller enters it. */
  private A routeAgain(C c, WFlow w) {
    c.stages = route(w, c.attrs);
    c.entry = now;
    c.gen++;
    c.transferred = false;
    A moved = apply(c, 0);
    for (int k = 1; k < c.stages.size(); k++) {
      schedule(now + c.stages.get(k).due(), "target", c, k, c.gen);
    }
    return moved;
  }

  /**
   * The attributes of a waiting workflow contact change: the workflow routes it again from its
   * first target, keeping its arrival; {@code priority} as the new base. Nothing happens to the
   * contact's route if its workflow is gone (the caller passes none then).
   */
  void reroute(String cid, Map<String, Object> attrs, int priority) {
    C c = contacts.get(cid);
    c.attrs = attrs;
    c.priority = priority;
    boolean queued = c.state == ContactState.QUEUED;
    A moved = routeAgain(c, workflows.get(c.workflow));
    A offeredTo = c.agent;
    if (queued) {
      enter(c, c.stages.get(0).skip());
    } else if (offeredTo != null && !matches(c, offeredTo)) {
      // the agent does not match the new route: its offer is withdrawn
      close(c.res, ReservationState.CANCELLED);
      c.agent = null;
      c.res = null;
      String held = c.queue;
      if (now >= c.deadline) {
        timedOut(c);
      } else {
        c.state = ContactState.QUEUED;
        enter(c, c.stages.get(0).skip());
      }
      release(offeredTo, c, held);
    } else if (moved != null) {
      settleAgent(moved);
    }
  }

  /** Stage {@code k} becomes the contact's; returns the agent whose queue count it moved. */
  private A apply(C c, int k) {
    Stage s = c.stages.get(k);
    c.step = k;
    c.req = s.req();
    c.only = s.only();
    c.never = s.never();
    if (s.priority() != null) {
      c.priority = s.priority();
    }
    A a = c.agent;
    if (a == null || s.queue().equals(c.queue)) {
      c.queue = s.queue();
      return null;
    }
    a.qload.merge(c.queue, -1, Integer::sum);
    a.qload.merge(s.queue(), 1, Integer::sum);
    c.queue = s.queue();
    return a;
  }

  private void enter(C c, boolean skip) {
    settleContact(c);
    if (skip && c.state == ContactState.QUEUED && c.step < c.stages.size() - 1) {
      escalateStage(c, c.step + 1);
    }
  }

  private void escalateStage(C c, int k) {
    boolean queued = c.state == ContactState.QUEUED;
    A moved = apply(c, k);
    if (queued) {
      enter(c, c.stages.get(k).skip());
    } else if (moved != null) {
      settleAgent(moved);
    }
  }

  /**
   * Target order and timeouts, for every waiting workflow contact not answered yet: each stage it
   * passed was due or skippable, the next one is not due yet.
   */
  private void checkStages(C c) {
    if (c.stages == null || c.transferred || c.answered) { // timers lapse while assigned
      return;
    }
    for (int k = 1; k <= c.step; k++) {
      if (c.entry + c.stages.get(k).due() > now && !c.stages.get(k - 1).skip()) {
        throw new AssertionError(
            "contact " + c.id + " left stage " + (k - 1) + " before its timeout");
      }
    }
    if (c.step + 1 < c.stages.size() && c.entry + c.stages.get(c.step + 1).due() <= now) {
      throw new AssertionError(
          "contact " + c.id + " still in stage " + c.step + " past its timeout");
    }
  }

  /** Completes an assigned contact; wrapUp -1 for the default. */
  void complete(String cid, long wrapUp) {
    C c = contacts.get(cid);
    long wrap = wrapUp < 0 ? defaultWrapUp : wrapUp;
    if (wrap == 0) {
      finish(c, false);
    } else {
      c.state = ContactState.WRAP_UP;
      A a = c.agent;
      mutate(a, () -> a.wrapUps++);
      schedule(now + wrap, "wrapup", c, 0);
    }
  }

  private void finish(C c, boolean wasWrapUp) {
    A a = c.agent;
    c.state = ContactState.COMPLETED;
    mutate(
        a,
        () -> {
          if (wasWrapUp) {
            a.wrapUps--;
          }
          a.active--;
          addLoad(a, c.channel, -1);
        });
    if (c.queue != null) {
      a.qload.merge(c.queue, -1, Integer::sum);
    }
    settleAgent(a);
  }

  /**
   * Checked by brute force: work conservation (no eligible agent below a queue's cap matches a
   * queued contact of it), and each agent's count per queue is the contacts of the queue it holds
   * (the cap itself is checked at each offer, which the caller compares with the router's).
   */
  void checkInvariants() {
    List<C> queued =
        contacts.values().stream().filter(c -> c.state == ContactState.QUEUED).toList();
    Map<A, Map<String, Integer>> held = new LinkedHashMap<>();
    for (C c : contacts.values()) {
      boolean holds =
          c.state == ContactState.OFFERED
              || c.state == ContactState.ASSIGNED
              || c.state == ContactState.WRAP_UP;
      if (holds && c.queue != null) {
        held.computeIfAbsent(c.agent, x -> new LinkedHashMap<>()).merge(c.queue, 1, Integer::sum);
      }
    }
    for (C c : contacts.values()) {
      if (c.state == ContactState.QUEUED || c.state == ContactState.OFFERED) {
        checkStages(c);
      }
    }
    for (A a : agents.values()) {
      Map<String, Integer> qload = new LinkedHashMap<>(a.qload);
      qload.values().removeIf(v -> v == 0);
      if (!qload.equals(held.getOrDefault(a, Map.of()))) {
        throw new AssertionError(
            "agent " + a.id + " counts " + qload + " per queue but holds " + held.get(a));
      }
      for (C c : queued) {
        if (a.eligible(c.channel) && admits(a, c) && may(c, a)) {
          throw new AssertionError(
              "agent " + a.id + " is eligible and idle while contact " + c.id + " waits");
        }
      }
      for (Map.Entry<String, Integer> e : a.load.entrySet()) {
        if (e.getValue() < 0) {
          throw new AssertionError("negative load " + a.id);
        }
      }
    }
  }
}
