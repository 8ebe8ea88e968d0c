package io.switchboard.queue;

import io.switchboard.queue.spi.FairShareRules;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

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
 */
final class FairShare {

  private static final class Tenant {
    final TreeSet<StoredMessage> available;
    int inFlight;

    Tenant(Comparator<StoredMessage> order) {
      this.available = new TreeSet<>(order);
    }
  }

  private final Comparator<StoredMessage> order;
  private final Map<String, Tenant> tenants = new HashMap<>();

  /** Every ungrouped available message, and the best available message of each group. */
  private final TreeSet<StoredMessage> heads;

  FairShare(Comparator<StoredMessage> order, Iterable<StoredMessage> ungroupedAvailable) {
    this.order = order;
    this.heads = new TreeSet<>(order);
    for (StoredMessage m : ungroupedAvailable) {
      heads.add(m);
    }
  }

  /** {@code m} became available (its key fields are final until it leaves). */
  void enter(StoredMessage m) {
    if (m.groupId == null) {
      heads.add(m);
      return;
    }
    Tenant t = tenants.computeIfAbsent(m.groupId, k -> new Tenant(order));
    StoredMessage head = t.available.isEmpty() ? null : t.available.first();
    t.available.add(m);
    if (head == null) {
      heads.add(m);
    } else if (order.compare(m, head) < 0) {
      heads.remove(head);
      heads.add(m);
    }
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
    boolean wasHead = t.available.first() == m;
    t.available.remove(m);
    if (wasHead) {
      heads.remove(m);
      if (!t.available.isEmpty()) {
        heads.add(t.available.first());
      }
    }
    dropIfIdle(m.groupId, t);
  }

  /** One more ({@code +1}) or one fewer ({@code -1}) message of {@code m}'s tenant in flight. */
  void inFlight(StoredMessage m, int delta) {
    if (m.groupId == null) {
      return;
    }
    Tenant t = tenants.computeIfAbsent(m.groupId, k -> new Tenant(order));
    t.inFlight += delta;
    dropIfIdle(m.groupId, t);
  }

  private void dropIfIdle(String id, Tenant t) {
    if (t.inFlight <= 0 && t.available.isEmpty()) {
      tenants.remove(id);
    }
  }

  /**
   * The message an unfiltered receive takes next, given {@code first}, the best available message,
   * and the queue's in-flight count: {@code first} unless its tenant is noisy; else the best head
   * of a quiet tenant; else the head of the noisy tenant with the fewest messages in flight.
   */
  StoredMessage choose(StoredMessage first, long queueInFlight) {
    if (!noisy(first, queueInFlight)) {
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
    return leastBusy != null ? leastBusy : first;
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
