package io.switchboard.queue;

import io.switchboard.queue.spi.FairShareRules;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Fair scheduling across tenants in a standard queue, as Amazon SQS fair queues do ({@link
 * FairShareRules}). A tenant is a message group id; a message without one is a tenant of its own. A
 * tenant is <em>noisy</em> while it holds at least 30 messages in flight and more than 10% of the
 * queue's in-flight messages (AWS's concurrency-share rule). An unfiltered receive then takes the
 * best available message of a quiet tenant before any message of a noisy one; only when every
 * tenant with an available message is noisy does it take from the noisy tenant with the fewest
 * messages in flight. Nothing is dropped or delayed: order among quiet tenants, and within a
 * tenant, stays the queue's order.
 *
 * <p>Kept by {@link StandardOrdering} once a message with a group id enters the queue (a queue that
 * never sees one pays nothing): per tenant, its available messages in order and its in-flight
 * count; and the set of tenant heads (each tenant's best available message). At most nine tenants
 * are noisy at once (each holds more than a tenth of the in-flight messages), so finding the best
 * quiet head walks past at most nine heads.
 *
 * <p>With a hot window ({@link HotWindow}) a tenant may also have cold messages, only in the store:
 * the window keeps each tenant's best message in the heap (its {@link Tenant#cold} and {@link
 * Tenant#boundary} say how much of its line the heap holds), so the choice here is the same.
 *
 * <p>With a limit per key (the queue's {@code keyLimit}, {@code docs/design.md}, "Limits per key"),
 * a tenant holding that many messages in flight is <em>held</em>: its head leaves the set of heads,
 * so no receive takes from it and none walks its messages, until one of them settles and it is
 * under its limit again (its head is then newly eligible, for blocked receives).
 */
final class FairShare {

  /**
   * One tenant: its available messages in the heap, its messages in flight and, with a hot window
   * ({@link HotWindow}), how many of its available messages are only in the store ({@code cold}:
   * all of them sort after its bound, the later of the queue's window boundary and {@code
   * boundary}).
   */
  static final class Tenant {
    final String id;
    final TreeSet<StoredMessage> available;
    int inFlight;

    /** Available messages of the tenant kept only in the store. */
    long cold;

    /**
     * While {@link #cold} is above zero: the last message of the tenant's line the heap holds with
     * every one before it (a copy), or null when that is the queue's window boundary.
     */
    @Nullable StoredMessage boundary;

    Tenant(String id, Comparator<StoredMessage> order) {
      this.id = id;
      this.available = new TreeSet<>(order);
    }
  }

  private final Comparator<StoredMessage> order;
  private final Map<String, Tenant> tenants = new HashMap<>();

  /**
   * Every ungrouped available message, and the best available message of each group that is not
   * held by the limit per key.
   */
  private final TreeSet<StoredMessage> heads;

  /**
   * Tenants with cold messages whose messages in the heap may have run out since the hot window
   * last looked ({@link #touched}).
   */
  private final java.util.Set<Tenant> touched = new java.util.LinkedHashSet<>();

  /** The most messages of one tenant in flight; 0: no limit. */
  private int limit;

  /** Tenants with a message available that are held at their limit. */
  private int held;

  FairShare(
      Comparator<StoredMessage> order, Iterable<StoredMessage> ungroupedAvailable, int limit) {
    this.order = order;
    this.heads = new TreeSet<>(order);
    this.limit = limit;
    for (StoredMessage m : ungroupedAvailable) {
      heads.add(m);
    }
  }

  private boolean atLimit(Tenant t) {
    return limit > 0 && t.inFlight >= limit;
  }

  /**
   * Takes {@code t}'s head out of the heads (or of the held count) before a change to {@code t}.
   */
  private void detach(Tenant t) {
    if (t.available.isEmpty()) {
      return;
    }
    if (atLimit(t)) {
      held--;
    } else {
      heads.remove(t.available.first());
    }
  }

  /** Puts {@code t}'s head back after a change; true when it is a head now. */
  private boolean attach(Tenant t) {
    if (t.available.isEmpty()) {
      return false;
    }
    if (atLimit(t)) {
      held++;
      return false;
    }
    heads.add(t.available.first());
    return true;
  }

  /** {@code m} became available (its key fields are final until it leaves). */
  void enter(StoredMessage m) {
    if (m.groupId == null) {
      heads.add(m);
      return;
    }
    Tenant t = tenants.computeIfAbsent(m.groupId, k -> new Tenant(k, order));
    detach(t);
    t.available.add(m);
    attach(t);
  }

  /** {@code m} is no longer available. */
  void leave(StoredMessage m) {
    if (m.groupId == null) {
      heads.remove(m);
      return;
    }
    Tenant t = tenants.get(m.groupId);
    if (t == null || t.available.isEmpty()) {
      return;
    }
    detach(t);
    t.available.remove(m);
    attach(t);
    if (t.cold > 0) {
      touched.add(t);
    }
    dropIfIdle(m.groupId, t);
  }

  /**
   * One more ({@code +1}) or one fewer ({@code -1}) message of {@code m}'s tenant in flight;
   * returns the tenant's head when this took it under its limit (newly eligible), else null.
   */
  @Nullable StoredMessage inFlight(StoredMessage m, int delta) {
    if (m.groupId == null) {
      return null;
    }
    Tenant t = tenants.computeIfAbsent(m.groupId, k -> new Tenant(k, order));
    boolean wasHeld = atLimit(t) && !t.available.isEmpty();
    detach(t);
    t.inFlight += delta;
    boolean isHead = attach(t);
    dropIfIdle(m.groupId, t);
    return wasHeld && isHead ? t.available.first() : null;
  }

  /**
   * Sets the limit per tenant (0: none); the heads of tenants it no longer holds go to {@code
   * newlyEligible}. Visits the tenants with something available or in flight, not the messages.
   */
  void limit(int next, List<StoredMessage> newlyEligible) {
    for (Tenant t : tenants.values()) {
      detach(t);
    }
    limit = next;
    for (Tenant t : tenants.values()) {
      if (attach(t)) {
        newlyEligible.add(t.available.first());
      }
    }
  }

  /** Whether a limit per tenant is set. */
  boolean limiting() {
    return limit > 0;
  }

  /** Whether some tenant at its limit has a message available (which receives pass over). */
  boolean anyHeld() {
    return held > 0;
  }

  /** Whether {@code m}'s tenant is at its limit. */
  boolean held(StoredMessage m) {
    if (limit == 0 || m.groupId == null) {
      return false;
    }
    Tenant t = tenants.get(m.groupId);
    return t != null && atLimit(t);
  }

  /**
   * Whether one more message of {@code m}'s tenant may go in flight, counting {@code takenNow}
   * (messages per tenant the current receive took so far, not yet counted in flight).
   */
  boolean admits(StoredMessage m, Map<String, Integer> takenNow) {
    if (limit == 0 || m.groupId == null) {
      return true;
    }
    Tenant t = tenants.get(m.groupId);
    int n = (t == null ? 0 : t.inFlight) + takenNow.getOrDefault(m.groupId, 0);
    return n < limit;
  }

  /** Whether a tenant with a message available is not held: something is eligible. */
  boolean anyHead() {
    return !heads.isEmpty();
  }

  private void dropIfIdle(String id, Tenant t) {
    if (t.inFlight <= 0 && t.available.isEmpty() && t.cold <= 0) {
      tenants.remove(id);
    }
  }

  // ---- the hot window's side: tenants with cold messages ({@link HotWindow}) -------------------

  /** The tenant {@code id}, made when it has none yet. */
  Tenant tenant(String id) {
    return tenants.computeIfAbsent(id, k -> new Tenant(k, order));
  }

  /** The tenant {@code id}, or null. */
  @Nullable Tenant tenantOrNull(String id) {
    return tenants.get(id);
  }

  /** Notes that {@code t}, which has cold messages, may have run out of messages in the heap. */
  void touch(Tenant t) {
    touched.add(t);
  }

  /** The tenants noted since the last call ({@link #touch}, a leave); the set is emptied. */
  List<Tenant> touched() {
    if (touched.isEmpty()) {
      return List.of();
    }
    List<Tenant> out = List.copyOf(touched);
    touched.clear();
    return out;
  }

  /** Whether some tenant was noted since the last {@link #touched}. */
  boolean anyTouched() {
    return !touched.isEmpty();
  }

  /** Whether {@code m} is its tenant's best available message, or has no tenant (its own). */
  boolean isHead(StoredMessage m) {
    if (m.groupId == null) {
      return true;
    }
    Tenant t = tenants.get(m.groupId);
    return t != null && !t.available.isEmpty() && t.available.first() == m;
  }

  /** Heads the heap holds: every ungrouped available message and each tenant's best. */
  long headCount() {
    return (long) heads.size() + held;
  }

  /** {@code t}'s cold messages are all in the heap, or gone: it forgets its bound. */
  void whole(Tenant t) {
    t.cold = 0;
    t.boundary = null;
    dropIfIdle(t.id, t);
  }

  /** No tenant has cold messages any more (all read back, or purged). */
  void clearCold() {
    for (Tenant t : List.copyOf(tenants.values())) {
      whole(t);
    }
    touched.clear();
  }

  /**
   * The message an unfiltered receive takes next, given {@code first}, the best available message,
   * and the queue's in-flight count: {@code first} unless its tenant is held or noisy; else the
   * best head of a quiet tenant; else the head of the noisy tenant with the fewest messages in
   * flight; null when every tenant with a message available is held.
   */
  @Nullable StoredMessage choose(StoredMessage first, long queueInFlight) {
    if (!held(first) && !noisy(first, queueInFlight)) {
      return first;
    }
    StoredMessage leastBusy = null;
    int leastInFlight = Integer.MAX_VALUE;
    for (StoredMessage head : heads) {
      if (!noisy(head, queueInFlight)) {
        return head;
      }
      int n = Objects.requireNonNull(tenants.get(head.groupId)).inFlight;
      if (n < leastInFlight) {
        leastInFlight = n;
        leastBusy = head;
      }
    }
    return leastBusy;
  }

  private boolean noisy(StoredMessage m, long queueInFlight) {
    if (m.groupId == null) {
      return false;
    }
    Tenant t = tenants.get(m.groupId);
    return t != null && FairShareRules.noisy(t.inFlight, queueInFlight);
  }

  /** Tenants (groups) with a message available or in flight (tests). */
  int tenantCount() {
    return tenants.size();
  }
}
