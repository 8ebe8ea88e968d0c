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
  }

  static final class R {
    String id;
    C contact;
    A agent;
    long expires;
    ReservationState state = ReservationState.PENDING;
  }

  record T(long due, long seq, String kind, Object target, int step) {}

  /** One decision: contact offered to agent. */
  record Offer(String reservationId, String contactId, String agentId) {}

  final Strat strat;
  final long offerTimeout;
  final int missLimit;
  final boolean autoAccept;
  final long defaultWrapUp;
  long now;
  final Map<String, A> agents = new LinkedHashMap<>();
  final Map<String, C> contacts = new LinkedHashMap<>();
  final Map<String, R> reservations = new LinkedHashMap<>();
  final List<T> timers = new ArrayList<>();
  final List<Offer> offers = new ArrayList<>();
  final Map<String, Q> queues = new LinkedHashMap<>();
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
    timers.add(new T(due, ++timerSeqs, kind, target, step));
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

  // ---- matching ------------------------------------------------------------------------

  private void settleContact(C c) {
    A best = null;
    for (A a : agents.values()) {
      if (a.eligible(c.channel)
          && admits(a, c)
          && matches(c.req, a)
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
            && matches(c.req, a)
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

  private void offer(C c, A a) {
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
          requeue(r.contact);
          a.misses++;
          if (missLimit > 0 && a.misses >= missLimit && a.presence.isAvailable()) {
            mutate(
                a,
                () -> {
                  addLoad(a, r.contact.channel, -1);
                  a.presence = Presence.away("missed");
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
    A a = new A();
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
    A a = agents.get(id);
    if (a.presence.equals(p)) {
      return;
    }
    mutate(
        a,
        () -> {
          a.presence = p;
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
    c.step = c.stepsReq.size();
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
    c.state = ContactState.QUEUED;
    offer(c, agents.get(aid));
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
    for (A a : agents.values()) {
      Map<String, Integer> qload = new LinkedHashMap<>(a.qload);
      qload.values().removeIf(v -> v == 0);
      if (!qload.equals(held.getOrDefault(a, Map.of()))) {
        throw new AssertionError(
            "agent " + a.id + " counts " + qload + " per queue but holds " + held.get(a));
      }
      for (C c : queued) {
        if (a.eligible(c.channel) && admits(a, c) && matches(c.req, a)) {
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
