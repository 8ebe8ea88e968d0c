package io.switchboard.queue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The messages of one queue and every structure that finds them: by id, in delivery order ({@link
 * Ordering}), by the time they become visible (delayed and leased messages), by expiry, and by
 * arrival (oldest age, load shedding). All state transitions go through here so the structures and
 * the per-state counts never disagree. Not thread-safe: the owning queue holds its lock.
 */
final class MessageTable {

  private static final Comparator<StoredMessage> BY_VISIBLE_AT =
      (a, b) -> {
        int c = Long.compare(a.visibleAt, b.visibleAt);
        return c != 0 ? c : Long.compare(a.serial, b.serial);
      };

  private static final Comparator<StoredMessage> BY_SENT_AT =
      (a, b) -> {
        int c = Long.compare(a.sentAt, b.sentAt);
        return c != 0 ? c : Long.compare(a.serial, b.serial);
      };

  final List<StoredMessage> newlyEligible = new ArrayList<>();
  private final LongObjectMap<StoredMessage> byId = new LongObjectMap<>();
  private final TreeSet<StoredMessage> timed = new TreeSet<>(BY_VISIBLE_AT);
  private final ExpiryIndex expiry = new ExpiryIndex();
  private final LongList arrivals = new LongList();

  /**
   * Messages moved in from another queue, by send time. Sends arrive in send-time order, so the
   * oldest message is the first live arrival or the first of these, which may be older.
   */
  private final TreeSet<StoredMessage> movedIn = new TreeSet<>(BY_SENT_AT);

  private final TreeMap<Integer, long[]> byPriority = new TreeMap<>(Comparator.reverseOrder());
  private Ordering ordering;
  private long available;
  private long delayed;
  private long inFlight;

  MessageTable(boolean grouped, Order order) {
    ordering =
        grouped
            ? new GroupedOrdering(newlyEligible)
            : new StandardOrdering(Ordering.comparator(order), newlyEligible);
  }

  Ordering ordering() {
    return ordering;
  }

  /** Re-sorts a standard queue for a new order. */
  void reorderAll(Order order) {
    if (ordering instanceof GroupedOrdering) {
      return;
    }
    ordering = new StandardOrdering(Ordering.comparator(order), newlyEligible);
    byId.forEachValue(ordering::added);
    newlyEligible.clear();
  }

  StoredMessage get(long serial) {
    return byId.get(serial);
  }

  long size() {
    return byId.size();
  }

  long available() {
    return available;
  }

  long delayed() {
    return delayed;
  }

  long inFlight() {
    return inFlight;
  }

  /** Adds a message whose state, visibleAt and expiresAt are set. */
  void insert(StoredMessage m) {
    byId.put(m.serial, m);
    count(m.state, 1);
    countPriority(m.priority, 1);
    if (m.isTimed()) {
      timed.add(m);
    }
    ordering.added(m);
    expiry.add(m.expiresAt, m.serial);
    arrivals.add(m.serial);
  }

  /** Adds a message moved in from another queue (its send time may precede earlier arrivals). */
  void insertMoved(StoredMessage m) {
    insert(m);
    movedIn.add(m);
  }

  /** Takes a message out of the queue, whatever its state. */
  void detach(StoredMessage m) {
    if (!movedIn.isEmpty()) {
      movedIn.remove(m);
    }
    ordering.removed(m);
    if (m.isTimed()) {
      timed.remove(m);
    }
    byId.remove(m.serial);
    count(m.state, -1);
    countPriority(m.priority, -1);
  }

  /** Picks up to {@code max} eligible messages in order; the caller leases each one. */
  List<StoredMessage> take(int max, MessageFilter filter) {
    List<StoredMessage> out = new ArrayList<>(Math.min(max, 16));
    ordering.take(max, filter, out);
    return out;
  }

  /** Leases a message just taken: in flight until {@code now + visibilityMillis}. */
  void lease(StoredMessage m, long now, long visibilityMillis) {
    count(StoredMessage.AVAILABLE, -1);
    count(StoredMessage.IN_FLIGHT, 1);
    m.state = StoredMessage.IN_FLIGHT;
    m.receiveCount++;
    m.leaseEpoch++;
    if (m.firstReceivedAt == 0) {
      m.firstReceivedAt = now;
    }
    m.leasedAt = now;
    m.visibleAt = now + visibilityMillis;
    timed.add(m);
  }

  /** Moves a message to {@code state}; for DELAYED and IN_FLIGHT, visible again at visibleAt. */
  void setState(StoredMessage m, byte state, long visibleAt) {
    byte from = m.state;
    if (m.isTimed()) {
      timed.remove(m);
    }
    count(from, -1);
    count(state, 1);
    m.state = state;
    m.visibleAt = state == StoredMessage.AVAILABLE ? 0 : visibleAt;
    if (m.isTimed()) {
      timed.add(m);
    }
    ordering.stateChanged(m, from);
  }

  void setPriority(StoredMessage m, int priority) {
    countPriority(m.priority, -1);
    countPriority(priority, 1);
    ordering.reorder(m, () -> m.priority = priority);
  }

  void setSeq(StoredMessage m, long seq) {
    ordering.reorder(m, () -> m.seq = seq);
  }

  /** The earliest time a timer (visibility or expiry) falls due; Long.MAX_VALUE if none. */
  long nextDue() {
    long t = timed.isEmpty() ? Long.MAX_VALUE : timed.first().visibleAt;
    return Math.min(t, expiry.nextDue());
  }

  /** The earliest expiry time in the index (possibly of a message gone); Long.MAX_VALUE if none. */
  long nextExpiryDue() {
    return expiry.nextDue();
  }

  /** The first delayed or leased message whose visibility time has come, or null. */
  StoredMessage firstVisibleBy(long now) {
    if (timed.isEmpty()) {
      return null;
    }
    StoredMessage m = timed.first();
    return m.visibleAt <= now ? m : null;
  }

  /** Every live message whose expiry time has come, in expiry order. */
  List<StoredMessage> expiredBy(long now) {
    if (expiry.nextDue() > now) {
      return List.of();
    }
    List<StoredMessage> out = new ArrayList<>();
    expiry.pollDue(
        now,
        (due, serial) -> {
          StoredMessage m = byId.get(serial);
          if (m != null && m.expiresAt == due) {
            out.add(m);
          }
        });
    return out;
  }

  /** The oldest message by arrival that is not in flight (for load shedding), or null. */
  StoredMessage oldestNotInFlight() {
    dropDeadArrivals();
    for (int i = 0; i < arrivals.size(); i++) {
      StoredMessage m = byId.get(arrivals.get(i));
      if (m != null && m.state != StoredMessage.IN_FLIGHT) {
        return m;
      }
    }
    return null;
  }

  /** Send time of the oldest message by arrival, or -1 when empty. */
  long oldestSentAt() {
    dropDeadArrivals();
    long oldest = arrivals.isEmpty() ? -1 : byId.get(arrivals.peekFirst()).sentAt;
    if (!movedIn.isEmpty() && (oldest < 0 || movedIn.first().sentAt < oldest)) {
      oldest = movedIn.first().sentAt;
    }
    return oldest;
  }

  private void dropDeadArrivals() {
    while (!arrivals.isEmpty() && byId.get(arrivals.peekFirst()) == null) {
      arrivals.pollFirst();
    }
  }

  /** Drops index entries of messages gone, once they outnumber the live ones. */
  void compact() {
    long live = byId.size();
    if (expiry.needsCompaction(live)) {
      expiry.rebuild(index -> byId.forEachValue(m -> index.add(m.expiresAt, m.serial)));
    }
    if (arrivals.size() > 2 * live + 1024) {
      arrivals.retainIf(serial -> byId.get(serial) != null);
    }
  }

  /** Every live message, unordered. */
  void forEach(java.util.function.Consumer<StoredMessage> action) {
    byId.forEachValue(action);
  }

  /** Delayed and leased messages, by visibility time. */
  Iterable<StoredMessage> timed() {
    return timed;
  }

  Comparator<StoredMessage> order() {
    return ordering instanceof GroupedOrdering
        ? Ordering.comparator(Order.FIFO)
        : ((StandardOrdering) ordering).comparator();
  }

  /** Per priority, highest first: messages in the queue in any state. */
  java.util.Map<Integer, Long> countsByPriority() {
    java.util.Map<Integer, Long> out = new java.util.LinkedHashMap<>();
    byPriority.forEach((p, n) -> out.put(p, n[0]));
    return out;
  }

  void clear() {
    byId.clear();
    ordering.clear();
    timed.clear();
    expiry.clear();
    arrivals.clear();
    movedIn.clear();
    byPriority.clear();
    newlyEligible.clear();
    available = 0;
    delayed = 0;
    inFlight = 0;
  }

  private void count(byte state, int delta) {
    switch (state) {
      case StoredMessage.AVAILABLE -> available += delta;
      case StoredMessage.DELAYED -> delayed += delta;
      default -> inFlight += delta;
    }
  }

  private void countPriority(int priority, int delta) {
    long[] n = byPriority.computeIfAbsent(priority, p -> new long[1]);
    n[0] += delta;
    if (n[0] == 0) {
      byPriority.remove(priority);
    }
  }
}
