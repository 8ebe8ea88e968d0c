package io.switchboard.queue;

import io.switchboard.internal.LongObjectMap;
import io.switchboard.queue.spi.Partitions;
import io.switchboard.queue.spi.Place;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The messages of one queue and every structure that finds them: by id, in delivery order ({@link
 * Ordering}), by the time they become visible (delayed and leased messages), by expiry, and by
 * arrival (oldest age, load shedding). All state transitions go through here so the structures and
 * the per-state counts never disagree. Not thread-safe: the owning queue holds its lock.
 */
final class MessageTable {

  private static final Comparator<StoredMessage> BY_SENT_AT =
      (a, b) -> {
        int c = Long.compare(a.sentAt, b.sentAt);
        return c != 0 ? c : Long.compare(a.serial, b.serial);
      };

  final List<StoredMessage> newlyEligible = new ArrayList<>();
  private final LongObjectMap<StoredMessage> byId = new LongObjectMap<>();
  private final LongFunction<@Nullable StoredMessage> live = byId::get;

  /**
   * When delayed and leased messages become available: (visibleAt, serial) entries, not removed
   * when the message leaves or changes state ({@link DueIndex}), so a lease and its ack cost an
   * append and nothing else.
   */
  private final DueIndex timers = new DueIndex(m -> m.isTimed() ? m.visibleAt : DueIndex.NOT_DUE);

  private final DueIndex expiry = new DueIndex(m -> m.expiresAt);

  /**
   * The serials of the timers due at {@link #firingAt} taken out of {@link #timers} to fire, in
   * serial order: timers due in the same millisecond fire in the order of their messages' serials,
   * whatever the order they were set in.
   */
  private final LongList firing = new LongList(2);

  private long firingAt;
  private final LongList arrivals = new LongList(2);

  /**
   * Messages moved in from another queue, by send time. Sends arrive in send-time order, so the
   * oldest message is the first live arrival or the first of these, which may be older. Empty, it
   * is {@link #NO_MOVED_IN}, shared and never written ({@link #movedIn()} makes a set to add to).
   */
  private NavigableSet<StoredMessage> movedIn = NO_MOVED_IN;

  private static final NavigableSet<StoredMessage> NO_MOVED_IN = Collections.emptyNavigableSet();

  private NavigableSet<StoredMessage> movedIn() {
    if (movedIn == NO_MOVED_IN) {
      movedIn = new TreeSet<>(BY_SENT_AT);
    }
    return movedIn;
  }

  private final TreeMap<Integer, long[]> byPriority = new TreeMap<>(Comparator.reverseOrder());
  private final long[] priorityZero = new long[1];
  private final AttributeInterner interner = new AttributeInterner();
  private Ordering ordering;

  /**
   * The delayed and leased messages (those with a live entry in {@link #timers}) in delivery order,
   * so that a browse with {@code includeInvisible} and a redrive's snapshot go on from a place
   * instead of sorting.
   */
  private TreeSet<StoredMessage> invisible;

  private final HoldWork work;
  private long available;
  private long delayed;
  private long inFlight;

  /** Queued bytes of the messages in the table ({@link QueueLimits#charge}). */
  private long bytes;

  private final boolean grouped;

  /** The queue's limit per key ({@link #keyLimit(int)}); 0: none. */
  private int keyLimit;

  /**
   * The attributes a message's place is partitioned by ({@link Place#partition}): the indexed ones,
   * in name order, when the journal keeps places of a standard queue; else none.
   */
  private List<String> partitioned;

  /** The store's side of the queue's hot window, handed to each new ordering; null: none. */
  private StandardOrdering.@Nullable Cold cold;

  /**
   * Available messages that entered the table or changed place since the hot window last looked
   * ({@link #watched}); null without a hot window.
   */
  private @Nullable List<StoredMessage> watch;

  /**
   * Messages that entered the table delayed or became delayed since the hot window last looked
   * ({@link #watchedDelayed}); null without a hot window.
   */
  private @Nullable List<StoredMessage> watchDelayed;

  /** Messages put in the table so far, in any way (the queue's idle test: {@link #inserts}). */
  private long inserts;

  /** Messages changed by the current operation, when a journal needs to hear of them. */
  private final @Nullable List<StoredMessage> dirty;

  /**
   * When the journal keeps the orders ({@link io.switchboard.queue.spi.Journal#maintainsOrders}):
   * for each of {@link #dirty}, its place as last journaled (null: none in this queue), taken when
   * the operation first touched it.
   */
  private final @Nullable List<@Nullable Place> dirtyBefore;

  MessageTable(
      boolean grouped,
      Order order,
      Set<String> indexed,
      boolean journaling,
      boolean placements,
      HoldWork work) {
    this.grouped = grouped;
    this.work = work;
    this.ordering = newOrdering(order, indexed);
    this.invisible = new TreeSet<>(order());
    this.dirty = journaling ? new ArrayList<>() : null;
    this.dirtyBefore = journaling && placements ? new ArrayList<>() : null;
    this.partitioned = partitioned(indexed);
    byPriority.put(0, priorityZero);
  }

  private List<String> partitioned(Set<String> indexed) {
    return grouped || dirtyBefore == null ? List.of() : indexed.stream().sorted().toList();
  }

  /**
   * Sets the store's side of the queue's hot window: the ordering takes nothing a cold message
   * precedes, and the table notes the messages that enter or move ({@link #watched}).
   */
  void cold(StandardOrdering.Cold cold) {
    this.cold = cold;
    this.watch = new ArrayList<>();
    this.watchDelayed = new ArrayList<>();
    attachCold(ordering);
  }

  /** Hands the store's side of the hot window, when there is one, to {@code o}. */
  private void attachCold(Ordering o) {
    StandardOrdering.Cold c = cold;
    if (c == null) {
      return;
    }
    if (o instanceof StandardOrdering s) {
      s.cold(c);
    } else if (o instanceof GroupedOrdering g && c instanceof GroupedOrdering.Cold gc) {
      g.cold(gc);
    }
  }

  /**
   * The messages that became available or changed place since the last call (some may have left
   * since); the caller clears it. Empty without a hot window.
   */
  List<StoredMessage> watched() {
    List<StoredMessage> w = watch;
    return w == null ? List.of() : w;
  }

  /**
   * The messages that entered the table delayed or became delayed since the last call (some may
   * have left or changed since); the caller clears it. Empty without a hot window.
   */
  List<StoredMessage> watchedDelayed() {
    List<StoredMessage> w = watchDelayed;
    return w == null ? List.of() : w;
  }

  private void watch(StoredMessage m) {
    List<StoredMessage> w = watch;
    if (w != null && m.state == StoredMessage.AVAILABLE) {
      w.add(m);
    }
    List<StoredMessage> d = watchDelayed;
    if (d != null && m.state == StoredMessage.DELAYED) {
      d.add(m);
    }
  }

  /** The attribute partition of {@code m} as the journal files it; null when none. */
  @Nullable String partitionOf(StoredMessage m) {
    return partitioned.isEmpty() ? null : Partitions.encode(partitioned, m::attributeOrNull);
  }

  /** The attribute index of a standard queue that indexes attributes; else null. */
  @Nullable PartitionIndex index() {
    return ordering instanceof StandardOrdering s ? s.index() : null;
  }

  /** What the journal hears of one changed message. */
  @FunctionalInterface
  interface DirtySink {
    /**
     * {@code mark} is what to write (JOURNAL_FULL, _STATE, _DELETE); {@code before} its place as
     * last journaled, or null when there is none or the journal does not keep places.
     */
    void accept(StoredMessage m, byte mark, @Nullable Place before);
  }

  /** Whether the journal hears of every change of a message's place. */
  boolean placements() {
    return dirtyBefore != null;
  }

  /**
   * Hands every message changed since the last call to {@code sink} with what the journal must
   * write: the whole message, its mutable state, or its deletion; then forgets them.
   */
  void drainDirty(DirtySink sink) {
    if (dirty == null || dirty.isEmpty()) {
      return;
    }
    for (int i = 0; i < dirty.size(); i++) {
      StoredMessage m = dirty.get(i);
      byte mark = m.journalMark;
      m.journalMark = StoredMessage.JOURNAL_NONE;
      if (mark != StoredMessage.JOURNAL_NONE) {
        sink.accept(m, mark, dirtyBefore == null ? null : dirtyBefore.get(i));
      }
    }
    dirty.clear();
    if (dirtyBefore != null) {
      dirtyBefore.clear();
    }
  }

  private void mark(StoredMessage m, byte mark) {
    if (dirty == null) {
      return;
    }
    if (m.journalMark == StoredMessage.JOURNAL_NONE) {
      dirty.add(m);
      if (dirtyBefore != null) {
        dirtyBefore.add(place(m));
      }
    }
    if (mark != StoredMessage.JOURNAL_STATE || m.journalMark == StoredMessage.JOURNAL_NONE) {
      m.journalMark = mark;
    }
  }

  /** Marks a message entering the table, whose place in this queue was {@code before}. */
  private void markInsert(StoredMessage m, @Nullable Place before) {
    if (dirty == null) {
      return;
    }
    if (m.journalMark == StoredMessage.JOURNAL_NONE) {
      dirty.add(m);
      if (dirtyBefore != null) {
        dirtyBefore.add(before);
      }
    }
    m.journalMark = StoredMessage.JOURNAL_FULL;
  }

  /** The place of {@code m} as it stands, in no attribute partition. */
  static Place placeOf(StoredMessage m) {
    return new Place(m.state, m.priority, m.seq, m.visibleAt, m.expiresAt, m.sentAt, m.groupId);
  }

  /** The place of {@code m} as it stands, in its attribute partition as this queue files it. */
  Place place(StoredMessage m) {
    return new Place(
        m.state, m.priority, m.seq, m.visibleAt, m.expiresAt, m.sentAt, m.groupId, partitionOf(m));
  }

  /**
   * The place a move writes for {@code m} in its target, in the same append as its departure: as it
   * is, available, in its attribute partition there ({@code partition}, as the target files it).
   * The target's first change of it replaces that place.
   */
  static Place movedPlaceOf(StoredMessage m, @Nullable String partition) {
    return new Place(
        StoredMessage.AVAILABLE, m.priority, m.seq, 0, m.expiresAt, m.sentAt, m.groupId, partition);
  }

  private Ordering newOrdering(Order order, Set<String> indexed) {
    Ordering o =
        grouped
            ? new GroupedOrdering(indexed, newlyEligible, work)
            : new StandardOrdering(Ordering.comparator(order), indexed, newlyEligible, work);
    o.keyLimit(keyLimit);
    return o;
  }

  /** Sets the queue's limit per key (its {@code keyLimit}; 0: none), now and for any rebuild. */
  void keyLimit(int limit) {
    if (limit != keyLimit) {
      keyLimit = limit;
      ordering.keyLimit(limit);
    }
  }

  Ordering ordering() {
    return ordering;
  }

  /** Rebuilds the ordering for a new order or a new set of indexed attributes. */
  void rebuild(Order order, Set<String> indexed) {
    List<String> next = partitioned(indexed);
    if (!next.equals(partitioned)) {
      // every available message changes partition: its place is journaled again (before: as
      // filed under the old attributes)
      byId.forEachValue(
          m -> {
            if (m.state == StoredMessage.AVAILABLE) {
              mark(m, StoredMessage.JOURNAL_STATE);
            }
          });
      partitioned = next;
    }
    ordering = newOrdering(order, indexed);
    attachCold(ordering);
    TreeSet<StoredMessage> invisibleNow = new TreeSet<>(order());
    invisibleNow.addAll(invisible);
    invisible = invisibleNow;
    List<StoredMessage> all = new ArrayList<>(byId.size());
    byId.forEachValue(all::add);
    all.sort(Comparator.comparingLong(m -> m.seq));
    all.forEach(ordering::added);
    newlyEligible.clear();
  }

  @Nullable StoredMessage get(long serial) {
    return byId.get(serial);
  }

  long size() {
    return byId.size();
  }

  /** How many messages were put in the table since it was made. */
  long inserts() {
    return inserts;
  }

  /** Queued bytes of the messages in the table: bodies, attributes and bookkeeping. */
  long bytes() {
    return bytes;
  }

  /** What {@code m} is charged in {@link #bytes()}. */
  static long charge(StoredMessage m) {
    return QueueLimits.charge(m.body.length + AttributeMap.bytes(m.attributes));
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

  /** How many messages a filtered scan could test now: the eligible ones. */
  long eligible() {
    return ordering.eligibleCount();
  }

  /** Adds a message whose state, visibleAt and expiresAt are set. */
  void insert(StoredMessage m) {
    insert(m, true);
  }

  /**
   * Adds a message; {@code journal} false when its record is already written (a send). Its
   * attributes are shared with equal ones of other messages from here until it leaves.
   */
  void insert(StoredMessage m, boolean journal) {
    insert(m, journal, null);
  }

  private void insert(StoredMessage m, boolean journal, @Nullable Place before) {
    inserts++;
    if (journal) {
      markInsert(m, before);
    }
    interner.hold(m.attributes);
    byId.put(m.serial, m);
    bytes += charge(m);
    count(m.state, 1);
    countPriority(m.priority, 1);
    if (m.isTimed()) {
      timers.add(m.visibleAt, m.serial);
      invisible.add(m);
    }
    ordering.added(m);
    watch(m);
    expiry.add(m.expiresAt, m.serial);
    arrivals.add(m.serial);
  }

  /** Puts off a message's expiry to {@code expiresAt}, whatever its state (journaled whole). */
  void setExpiry(StoredMessage m, long expiresAt) {
    mark(m, StoredMessage.JOURNAL_FULL);
    m.expiresAt = expiresAt;
    expiry.add(expiresAt, m.serial);
  }

  /**
   * Adds a message moved in from another queue (its send time may precede earlier arrivals); {@code
   * before} is the place the move journaled for it here (null: none).
   */
  void insertMoved(StoredMessage m, @Nullable Place before) {
    insert(m, true, before);
    movedIn().add(m);
  }

  /** Takes a message out of the queue, whatever its state. */
  void detach(StoredMessage m) {
    mark(m, StoredMessage.JOURNAL_DELETE);
    forget(m);
  }

  /**
   * Takes a message out of the heap without journaling anything: it stays in the store as last
   * journaled ({@link HotWindow}, which counts it as cold).
   */
  void forget(StoredMessage m) {
    if (!movedIn.isEmpty()) {
      movedIn.remove(m);
    }
    ordering.removed(m);
    if (m.isTimed()) {
      invisible.remove(m); // its timer entry goes stale with it
    }
    byId.remove(m.serial);
    bytes -= charge(m);
    count(m.state, -1);
    countPriority(m.priority, -1);
    interner.release(m.attributes);
  }

  /**
   * Puts a message read back from the store into the heap, without journaling it ({@link
   * HotWindow}); it may be older than messages that arrived before it.
   */
  void install(StoredMessage m) {
    insert(m, false, null);
    movedIn().add(m);
  }

  /** The last available message in delivery order of a standard queue, or null. */
  @Nullable StoredMessage lastAvailable() {
    return ((StandardOrdering) ordering).last();
  }

  /** Whether receives of this standard queue are fair across message groups. */
  boolean fair() {
    return ordering instanceof StandardOrdering s && s.fair();
  }

  /**
   * Picks up to {@code max} eligible messages in order; the caller leases each one. A filtered take
   * spends at most {@code scan}'s budget.
   */
  List<StoredMessage> take(
      int max, @Nullable MessageFilter filter, long now, @Nullable Scan scan, AnswerBudget budget) {
    List<StoredMessage> out = new ArrayList<>(Math.min(max, 16));
    ordering.take(max, filter, now, out, scan, budget);
    return out;
  }

  /** Leases a message just taken: in flight until {@code now + visibilityMillis}. */
  void lease(StoredMessage m, long now, long visibilityMillis) {
    mark(m, StoredMessage.JOURNAL_STATE);
    count(StoredMessage.AVAILABLE, -1);
    count(StoredMessage.IN_FLIGHT, 1);
    m.state = StoredMessage.IN_FLIGHT;
    m.receiveCount++;
    m.leaseEpoch++;
    m.leaseTag = null;
    if (m.firstReceivedAt == 0) {
      m.firstReceivedAt = now;
    }
    m.leasedAt = now;
    m.visibleAt = now + visibilityMillis;
    timers.add(m.visibleAt, m.serial);
    invisible.add(m);
  }

  /** Moves a message to {@code state}; for DELAYED and IN_FLIGHT, visible again at visibleAt. */
  void setState(StoredMessage m, byte state, long visibleAt) {
    mark(m, StoredMessage.JOURNAL_STATE);
    byte from = m.state;
    if (m.isTimed()) {
      invisible.remove(m); // its timer entry goes stale below (the state or visibleAt changes)
    }
    count(from, -1);
    count(state, 1);
    m.state = state;
    m.visibleAt = state == StoredMessage.AVAILABLE ? 0 : visibleAt;
    if (m.isTimed()) {
      timers.add(m.visibleAt, m.serial);
      invisible.add(m);
    }
    ordering.stateChanged(m, from);
    watch(m);
  }

  void setPriority(StoredMessage m, int priority) {
    mark(m, StoredMessage.JOURNAL_STATE);
    countPriority(m.priority, -1);
    countPriority(priority, 1);
    reorder(m, () -> m.priority = priority);
  }

  void setAttributes(StoredMessage m, Object[] attributes) {
    mark(m, StoredMessage.JOURNAL_FULL);
    interner.release(m.attributes);
    interner.hold(attributes);
    bytes += AttributeMap.bytes(attributes) - AttributeMap.bytes(m.attributes);
    reorder(m, () -> m.attributes = attributes);
  }

  void setSeq(StoredMessage m, long seq) {
    mark(m, StoredMessage.JOURNAL_STATE);
    reorder(m, () -> m.seq = seq);
  }

  /** Runs {@code change} (which may alter priority or seq) keeping every ordered set sorted. */
  private void reorder(StoredMessage m, Runnable change) {
    boolean hidden = m.isTimed() && invisible.remove(m);
    ordering.reorder(m, change);
    if (hidden) {
      invisible.add(m);
    }
    watch(m);
  }

  /** The earliest time a timer (visibility or expiry) falls due; Long.MAX_VALUE if none. */
  long nextDue() {
    StoredMessage first = timers.first(live);
    long t = first == null ? Long.MAX_VALUE : first.visibleAt;
    if (!firing.isEmpty()) {
      t = Math.min(t, firingAt);
    }
    return Math.min(t, expiry.nextDue());
  }

  /** The earliest expiry time in the index (possibly of a message gone); Long.MAX_VALUE if none. */
  long nextExpiryDue() {
    return expiry.nextDue();
  }

  /** The first delayed or leased message whose visibility time has come, or null. */
  @Nullable StoredMessage firstVisibleBy(long now) {
    while (true) {
      while (!firing.isEmpty()) {
        StoredMessage m = byId.get(firing.peekFirst());
        if (m != null && m.isTimed() && m.visibleAt == firingAt) {
          return m; // the caller changes it, so the next call passes over it
        }
        firing.pollFirst();
      }
      StoredMessage head = timers.first(live);
      if (head == null || head.visibleAt > now) {
        return null;
      }
      firingAt = head.visibleAt;
      timers.pollAt(firingAt, firing);
      firing.sort();
    }
  }

  /** Every live message whose expiry time has come. */
  List<StoredMessage> expiredBy(long now) {
    if (expiry.nextDue() > now) {
      return List.of();
    }
    List<StoredMessage> out = new ArrayList<>();
    java.util.Set<Long> seen = new java.util.HashSet<>();
    expiry.pollDue(
        now,
        (due, serial) -> {
          StoredMessage m = byId.get(serial);
          // a message may have two live entries (its expiry set twice to one time, or read back
          // from the store by the hot window): it expires once
          if (m != null && m.expiresAt == due && seen.add(serial)) {
            out.add(m);
          }
        });
    return out;
  }

  /** The oldest message by arrival that is not in flight (for load shedding), or null. */
  @Nullable StoredMessage oldestNotInFlight() {
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
    long oldest =
        arrivals.isEmpty() ? -1 : Objects.requireNonNull(byId.get(arrivals.peekFirst())).sentAt;
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
    expiry.compact(live, this.live);
    timers.compact(delayed + inFlight, this.live);
    if (arrivals.size() > 2 * live + 1024) {
      arrivals.retainIf(serial -> byId.get(serial) != null);
    }
  }

  /** Every live message, unordered. */
  void forEach(java.util.function.Consumer<StoredMessage> action) {
    byId.forEachValue(action);
  }

  /** Delayed and leased messages in delivery order strictly after {@code after} (null: all). */
  Iterable<StoredMessage> invisibleAfter(@Nullable StoredMessage after) {
    return after == null ? invisible : invisible.tailSet(after, false);
  }

  /**
   * Every message, in any state, in delivery order strictly after {@code after} (null: from the
   * start): a lazy merge of two ordered sets, so a reader pays for what it reads.
   */
  Iterable<StoredMessage> inOrder(@Nullable StoredMessage after) {
    return BrowseMerge.merge(ordering.candidates(after, null), invisibleAfter(after), order());
  }

  Comparator<StoredMessage> order() {
    return ordering instanceof GroupedOrdering
        ? Ordering.comparator(Order.FIFO)
        : ((StandardOrdering) ordering).comparator();
  }

  /**
   * The group id to store for a new message: the string its group's messages already share when the
   * group has messages, else {@code groupId} itself. Nothing is kept for a group beyond its
   * messages.
   */
  String sharedGroupId(String groupId) {
    return ordering instanceof GroupedOrdering g ? g.canonicalGroupId(groupId) : groupId;
  }

  /**
   * Message groups the ordering keeps: with a message in a grouped queue; available or in flight in
   * a standard (fair) queue (tests).
   */
  int groupCount() {
    return switch (ordering) {
      case GroupedOrdering g -> g.groupCount();
      case StandardOrdering s -> s.fairGroupCount();
    };
  }

  /** Distinct attribute names and values shared among the queue's messages (tests). */
  int sharedAttributeCount() {
    return interner.size();
  }

  /** Per priority, highest first: messages in the queue in any state. */
  java.util.Map<Integer, Long> countsByPriority() {
    java.util.Map<Integer, Long> out = new java.util.LinkedHashMap<>();
    byPriority.forEach(
        (p, n) -> {
          if (n[0] != 0) {
            out.put(p, n[0]);
          }
        });
    return out;
  }

  /** Forgets every message; the caller journals that as one entry (purge, delete). */
  void clear() {
    byId.clear();
    interner.clear();
    ordering.clear();
    timers.clear();
    firing.clear();
    invisible.clear();
    expiry.clear();
    arrivals.clear();
    movedIn = NO_MOVED_IN;
    byPriority.clear();
    priorityZero[0] = 0;
    byPriority.put(0, priorityZero);
    newlyEligible.clear();
    if (watch != null) {
      watch.clear();
    }
    if (watchDelayed != null) {
      watchDelayed.clear();
    }
    available = 0;
    delayed = 0;
    inFlight = 0;
    bytes = 0;
  }

  private void count(byte state, int delta) {
    switch (state) {
      case StoredMessage.AVAILABLE -> available += delta;
      case StoredMessage.DELAYED -> delayed += delta;
      default -> inFlight += delta;
    }
  }

  /** Entries that drop to zero stay (a shallow queue would otherwise churn the tree). */
  private void countPriority(int priority, int delta) {
    long[] n =
        priority == 0 ? priorityZero : byPriority.computeIfAbsent(priority, p -> new long[1]);
    n[0] += delta;
  }
}
