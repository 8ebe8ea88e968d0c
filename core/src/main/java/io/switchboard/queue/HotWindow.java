package io.switchboard.queue;

import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.Orders;
import io.switchboard.queue.spi.Place;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The hot window of a standard queue whose journal keeps every waiting message's place in the
 * queue's orders (docs/design.md, "A backlog bigger than memory"): the heap holds at most {@code
 * 2W} available messages, a prefix of the queue's delivery order; the available messages after it
 * are <em>cold</em>, kept only in the store, and read back from {@link Orders} in pages of {@code
 * W} when the window runs low. In-flight messages always stay in the heap.
 *
 * <p>Delayed messages keep a window of their own over the store's timer order ({@code T}: due time,
 * then serial), when the store keeps their delivery order too ({@link Orders#keepsDelayedOrder}):
 * at most {@code 2W} in the heap, a prefix of the timer order; the rest are <em>cold delayed</em>,
 * after {@link #delayedBoundaryAt}. The heap keeps a floor at or before the earliest due time among
 * them: when it falls due, the messages due are read in ({@link #promoteDelayed}) and their timers
 * fire in the heap at their time; a window below {@code W/2} reads its next page ahead at the end
 * of an operation.
 *
 * <p>The invariant: while {@link #cold} is above zero, every available message in the heap sorts at
 * or before {@link #boundary} in delivery order, except for the moments between a by-id operation
 * reading a cold message in ({@link #promote}) and the end of that operation ({@link #settle}); no
 * message is taken in between. Demotion only forgets (the store already holds the message as the
 * journal last wrote it); every read first appends what the queue changed so far, and the store's
 * reads wait for its writer, so a read never sees a state older than the heap's.
 *
 * <p>A filtered receive the attribute index answers reads the matching partitions' own lines from
 * the store ({@link #refill(PartitionIndex.Partition)}): each partition with cold messages has a
 * bound, the later of {@link #boundary} and its own, up to which the heap holds all of it. A queue
 * whose receives need the whole backlog in sight (a filter the index cannot answer, a fair queue
 * with cold messages without a group id) is <em>pinned</em>: its cold messages are read back and it
 * keeps every message in the heap from then on, as without a window. A browse and a redrive's
 * snapshot read the order from the store, hot and cold alike ({@link #availableAfter}), without
 * keeping what they read. Not thread-safe: the owning queue holds its lock, and no other queue's.
 *
 * <p>A fair queue (a standard queue that received a group id, {@link FairShare}) keeps each
 * tenant's first messages in the heap, up to its bound (the later of {@link #boundary} and the
 * tenant's own), and every available message without a group id; a tenant whose messages in the
 * heap run out while some are cold reads the next page of its line in the store's {@code F} order
 * ({@link #tenantsReady}) before the next choice, so the fair choice runs in the heap over every
 * tenant's best message.
 *
 * <p>A grouped queue keeps a window per message group instead ({@link GroupedOrdering}): every
 * group with messages has its first ones in the heap, up to its <em>hot end</em>, and the rest of
 * its line only in the store, read in pages of the store's {@code G} order when a receive's batch
 * reaches the end or the group's messages in the heap are all gone ({@link #extend}). A line past
 * {@code 2k} messages in the heap ({@link #groupWindow}) forgets all but its first {@code k}.
 * Delayed and in-flight messages of a grouped queue stay in the heap.
 */
final class HotWindow implements StandardOrdering.Cold, GroupedOrdering.Cold {

  /**
   * Serials read per page when looking for cold messages in the expiry and arrival orders, and the
   * most of a queue's window a restart reads before the queue serves.
   */
  private static final int PAGE = 256;

  /** Set by {@link #reorder} when it forgot the window: {@link #reordered} reads it again. */
  private boolean rereadAfterReorder;

  /** The most messages a page of one attribute partition holds. */
  static final int PARTITION_PAGE = 64;

  private final String queue;

  /** The most available messages the window keeps: the engine's {@code hotWindow}. */
  private final int maxWindow;

  private final HotBudget budget;
  private final Orders orders;
  private final MessageTable table;
  private final QueueJournal journal;
  private Order order;

  /** Available messages in the store that are neither in the heap nor sends still being written. */
  private long cold;

  /** Of {@link #cold}, those without a group id (a fair queue keeps all of those in the heap). */
  private long coldUngrouped;

  private final TreeMap<Integer, long[]> coldByPriority = new TreeMap<>(Comparator.reverseOrder());

  /** A copy of the last available message kept in the heap; null while nothing is cold. */
  private @Nullable StoredMessage boundary;

  /** At or before the earliest expiry of a cold message; Long.MAX_VALUE while nothing is cold. */
  private long coldExpiryFloor = Long.MAX_VALUE;

  /** Delayed messages in the store that are not in the heap (nor sends still being written). */
  private long coldDelayed;

  private final TreeMap<Integer, long[]> coldDelayedByPriority =
      new TreeMap<>(Comparator.reverseOrder());

  /**
   * The timer-order place ({@code visibleAt}, serial) every cold delayed message sorts after;
   * {@code delayedBoundaryAt} is Long.MIN_VALUE when they may start at the beginning of the order.
   */
  private long delayedBoundaryAt = Long.MIN_VALUE;

  private long delayedBoundarySerial = Long.MIN_VALUE;

  /** At or before the earliest due time of a cold delayed message; Long.MAX_VALUE when none. */
  private long coldDelayedFloor = Long.MAX_VALUE;

  /** Whether delayed messages are windowed: the store keeps their delivery order. */
  private final boolean delayedWindowed;

  /** Whether the queue is grouped: windowed per message group ({@link #extend}). */
  private final boolean grouped;

  /** Sends whose records are written (or being written) but that are not in the queue yet. */
  private final Map<Long, StoredMessage> sending = new HashMap<>();

  private boolean pinned;

  /** What the queue last reported to the {@link #budget}: its hot bytes and whether it waits. */
  private long reportedHot;

  private boolean reportedWaiting;

  /**
   * What an available message of this queue weighs, on average, when last seen ({@link #charge}).
   */
  private long charge = QueueLimits.charge(1024);

  HotWindow(
      String queue,
      int maxWindow,
      HotBudget budget,
      Orders orders,
      MessageTable table,
      QueueJournal journal,
      Order order) {
    this.queue = queue;
    this.maxWindow = maxWindow;
    this.budget = budget;
    this.orders = orders;
    this.table = table;
    this.journal = journal;
    this.order = order;
    this.grouped = table.ordering() instanceof GroupedOrdering;
    this.delayedWindowed = !grouped && orders.keepsDelayedOrder();
    table.cold(this);
  }

  /**
   * The attribute index whose partitions keep their own windows: when the queue indexes attributes
   * and the store keeps each partition's line and count; else null (a filtered receive over cold
   * messages then pins the queue).
   */
  private @Nullable PartitionIndex partitions() {
    return orders.keepsPartitions() ? table.index() : null;
  }

  /** Available messages kept only in the store. */
  long cold() {
    return cold;
  }

  /** Delayed messages kept only in the store. */
  long coldDelayed() {
    return coldDelayed;
  }

  /** Whether the queue still keeps only a window in the heap (not pinned). */
  boolean windowed() {
    return !pinned;
  }

  /**
   * The window now: the engine's {@code hotWindow}, or fewer when the queue's share of the hot
   * budget holds fewer of its messages ({@link HotBudget#window}).
   */
  int window() {
    return budget.window(maxWindow, charge());
  }

  /** What one message of the queue weighs on average, as {@link QueueLimits#charge} counts. */
  private long charge() {
    long n = table.size();
    if (n > 0) {
      charge = Math.max(1, table.bytes() / n);
    }
    return charge;
  }

  /**
   * When the next cold message may expire or a cold delayed message fall due; Long.MAX_VALUE when
   * none is cold.
   */
  long nextDue() {
    long t = cold > 0 || coldDelayed > 0 ? coldExpiryFloor : Long.MAX_VALUE;
    return coldDelayed > 0 ? Math.min(t, coldDelayedFloor) : t;
  }

  /** Per priority, the cold messages (non-zero counts only), added into {@code counts}. */
  void addCountsByPriority(Map<Integer, Long> counts) {
    for (TreeMap<Integer, long[]> byPriority : List.of(coldByPriority, coldDelayedByPriority)) {
      byPriority.forEach(
          (p, n) -> {
            if (n[0] != 0) {
              counts.merge(p, n[0], Long::sum);
            }
          });
    }
  }

  // ---- sends in flight to the store --------------------------------------------------------

  void sending(List<StoredMessage> messages) {
    for (StoredMessage m : messages) {
      sending.put(m.serial, m);
    }
  }

  void sent(List<StoredMessage> messages) {
    for (StoredMessage m : messages) {
      sending.remove(m.serial);
    }
  }

  // ---- the window ----------------------------------------------------------------------------

  /**
   * Demotes what the window must not hold: every available message after the boundary while
   * messages are cold, and the last {@code W} when it holds more than {@code 2W}; a fair queue
   * keeps its tenants' heads besides ({@link #settleFair}). Reads nothing.
   */
  void settle() {
    List<StoredMessage> watched = table.watched();
    if (pinned) {
      watched.clear();
      table.watchedDelayed().clear();
      return;
    }
    if (grouped) {
      settleGroups();
      return;
    }
    FairShare fair = fairShare();
    if (fair != null) {
      if (!orders.keepsTenants() || coldUngrouped > 0) {
        // no tenant lines to read, or cold messages without a group id (each a tenant of its own,
        // found only by reading the whole order): the queue keeps every message in the heap
        watched.clear();
        table.watchedDelayed().clear();
        pin();
        return;
      }
      settleFair(fair);
      return;
    }
    settleDelayed();
    Comparator<StoredMessage> cmp = table.order();
    StoredMessage b = boundary;
    PartitionIndex parts = partitions();
    if (cold > 0 && b != null && parts == null) {
      for (StoredMessage last = table.lastAvailable();
          last != null && cmp.compare(last, b) > 0;
          last = table.lastAvailable()) {
        demote(last);
      }
    } else if (cold > 0 && b != null && parts != null) {
      // what entered or moved past the window's boundary stays only where its partition's window
      // needs it (a partition's page read ahead of the queue's window); the rest is forgotten
      for (StoredMessage m : List.copyOf(watched)) {
        if (table.get(m.serial) == m
            && m.state == StoredMessage.AVAILABLE
            && cmp.compare(m, b) > 0
            && !neededBy(parts.partitionOf(m), m, cmp)) {
          demote(m);
        }
      }
    }
    watched.clear();
    long hot = table.eligible();
    int window = window();
    if (hot > 2L * window) {
      shrinkTo(window);
    }
  }

  // ---- a fair queue: a line per tenant (the store's F order) -----------------------------------

  /** The fair share across tenants of a standard queue that received a group id; else null. */
  private @Nullable FairShare fairShare() {
    return !grouped && table.ordering() instanceof StandardOrdering s ? s.fairShare() : null;
  }

  /** Whether the queue is fair and windowed: each tenant's best message is in the heap. */
  private boolean fairWindowed() {
    return !pinned
        && !grouped
        && coldUngrouped == 0
        && orders.keepsTenants()
        && fairShare() != null;
  }

  /**
   * As {@link #settle} for a fair queue: what entered or moved past the window's boundary is
   * forgotten unless it is its tenant's best message, a message without a group id (a tenant of its
   * own), or within its tenant's or its partition's held prefix; a window holding more than {@code
   * 2W} messages besides the heads forgets the last of those. Reads nothing.
   */
  private void settleFair(FairShare f) {
    settleDelayed();
    List<StoredMessage> watched = table.watched();
    Comparator<StoredMessage> cmp = table.order();
    StoredMessage b = boundary;
    PartitionIndex parts = partitions();
    if (cold > 0) {
      for (StoredMessage m : List.copyOf(watched)) {
        if (table.get(m.serial) != m
            || m.state != StoredMessage.AVAILABLE
            || (b != null && cmp.compare(m, b) <= 0)) {
          continue;
        }
        if (f.isHead(m)) {
          FairShare.Tenant t = m.groupId == null ? null : f.tenantOrNull(m.groupId);
          if (t != null && t.cold > 0) {
            f.touch(t); // its cold messages may sort before it: checked before the next choice
          }
        } else if (!neededByTenant(f, m, cmp)
            && !(parts != null && neededBy(parts.partitionOf(m), m, cmp))) {
          demote(m);
        }
      }
    }
    watched.clear();
    int window = window();
    if (table.eligible() - f.headCount() > 2L * window) {
      shrinkFair(f, window);
    }
  }

  /** Whether {@code m} lies in the prefix of its tenant's line that the heap holds whole. */
  private static boolean neededByTenant(
      FairShare f, StoredMessage m, Comparator<StoredMessage> cmp) {
    if (m.groupId == null) {
      return true;
    }
    FairShare.Tenant t = f.tenantOrNull(m.groupId);
    StoredMessage b = t == null ? null : t.boundary;
    return t != null && t.cold > 0 && b != null && cmp.compare(m, b) <= 0;
  }

  /**
   * Forgets the last available messages that are not heads (each tenant's best, every message
   * without a group id) until {@code window} such are left; the boundary moves before the first
   * forgotten, never past where it stood while messages were cold.
   */
  private void shrinkFair(FairShare f, int window) {
    StandardOrdering s = (StandardOrdering) table.ordering();
    long ordinary = table.eligible() - f.headCount();
    if (ordinary <= window) {
      return;
    }
    List<StoredMessage> victims = new java.util.ArrayList<>();
    for (Iterator<StoredMessage> it = s.descending(); it.hasNext() && ordinary > window; ) {
      StoredMessage m = it.next();
      if (!f.isHead(m)) {
        victims.add(m);
        ordinary--;
      }
    }
    if (victims.isEmpty()) {
      return;
    }
    boolean wasCold = cold > 0;
    StoredMessage before = boundary;
    for (StoredMessage m : victims) {
      demote(m);
    }
    StoredMessage previous = s.lower(victims.get(victims.size() - 1));
    StoredMessage next = previous == null ? null : keyOf(previous);
    if (!wasCold) {
      boundary = next;
    } else if (before != null && next != null) {
      boundary = table.order().compare(next, before) > 0 ? before : next;
    } else {
      boundary = null; // the cold messages may start at the beginning of the order
    }
  }

  /**
   * Where tenant {@code t}'s cold messages start after: the later of its bound and the window's.
   */
  private @Nullable StoredMessage boundOf(FairShare.Tenant t) {
    StoredMessage a = boundary;
    StoredMessage b = t.boundary;
    if (a == null || b == null) {
      return a == null ? b : a;
    }
    return table.order().compare(a, b) >= 0 ? a : b;
  }

  /** Whether the heap holds {@code t}'s best available message. */
  private boolean hasHead(FairShare.Tenant t) {
    if (t.cold <= 0) {
      return true;
    }
    if (t.available.isEmpty()) {
      return false;
    }
    StoredMessage bound = boundOf(t);
    return bound != null && table.order().compare(t.available.first(), bound) <= 0;
  }

  @Override
  public void tenantsReady() {
    FairShare f = fairShare();
    if (f == null || pinned || !f.anyTouched()) {
      return;
    }
    for (FairShare.Tenant t : f.touched()) {
      while (!hasHead(t)) {
        extendTenant(f, t);
      }
    }
  }

  /**
   * Reads the next page of tenant {@code t}'s line after its bound: {@code k} keys of the store's
   * {@code F} order ({@code k} the smaller of the window and 10), then their records in one batched
   * read; its bound moves to the last one read, and a page shorter than asked leaves none of it
   * cold.
   */
  private void extendTenant(FairShare f, FairShare.Tenant t) {
    journal.flush();
    int limit = groupWindow() + sending.size();
    StoredMessage from = boundOf(t);
    List<Long> serials =
        orders.tenant(
            queue,
            order,
            t.id,
            from == null
                ? null
                : new Orders.After(
                    from.serial,
                    new Place(
                        MessageRecord.AVAILABLE,
                        from.priority,
                        from.seq,
                        0,
                        from.expiresAt,
                        from.sentAt,
                        t.id)),
            limit);
    StoredMessage last = installPage(serials, true);
    if (serials.size() < limit) {
      f.whole(t); // read to the end of its line: the heap holds all of it
    } else if (last != null) {
      if (t.cold > 0) {
        t.boundary = keyOf(last);
      }
    } else {
      throw new IllegalStateException(
          "the order index of queue '"
              + queue
              + "' names no available message of tenant '"
              + t.id
              + "' after its bound");
    }
  }

  // ---- the window of delayed messages (the timer order) ----------------------------------------

  /**
   * Demotes the delayed messages the heap must not hold: every one after the delayed boundary while
   * delayed messages are cold, and the last {@code W} in timer order when more than {@code 2W} are
   * held. Reads nothing.
   */
  private void settleDelayed() {
    List<StoredMessage> watched = table.watchedDelayed();
    if (!delayedWindowed) {
      watched.clear();
      return;
    }
    if (coldDelayed > 0) {
      for (StoredMessage m : watched) {
        if (table.get(m.serial) == m
            && m.state == StoredMessage.DELAYED
            && afterDelayedBoundary(m.visibleAt, m.serial)) {
          demoteDelayed(m);
        }
      }
    }
    watched.clear();
    int window = window();
    if (table.delayed() > 2L * window) {
      shrinkDelayedTo(window);
    }
  }

  /** Whether timer-order place ({@code at}, {@code serial}) lies after the delayed boundary. */
  private boolean afterDelayedBoundary(long at, long serial) {
    return at > delayedBoundaryAt || (at == delayedBoundaryAt && serial > delayedBoundarySerial);
  }

  /**
   * Demotes the last delayed messages in timer order until {@code window} are left; the boundary
   * moves to the last one kept. One pass over the heap's messages, once per {@code W} delayed.
   */
  private void shrinkDelayedTo(int window) {
    if (!delayedWindowed || table.delayed() <= window) {
      return;
    }
    List<StoredMessage> held = new java.util.ArrayList<>((int) table.delayed());
    table.forEach(
        m -> {
          if (m.state == StoredMessage.DELAYED) {
            held.add(m);
          }
        });
    held.sort(BY_DUE);
    for (int i = held.size() - 1; i >= window; i--) {
      demoteDelayed(held.get(i));
    }
    StoredMessage last = held.get(window - 1);
    delayedBoundaryAt = last.visibleAt;
    delayedBoundarySerial = last.serial;
  }

  /** Timer order: due time, then serial. */
  private static final Comparator<StoredMessage> BY_DUE =
      Comparator.<StoredMessage>comparingLong(m -> m.visibleAt).thenComparingLong(m -> m.serial);

  private void demoteDelayed(StoredMessage m) {
    table.forget(m);
    coldDelayed++;
    count(coldDelayedByPriority, m.priority, 1);
    coldDelayedFloor = Math.min(coldDelayedFloor, m.visibleAt);
    coldExpiryFloor = Math.min(coldExpiryFloor, m.expiresAt);
  }

  /** Where a read of the timer order goes on after the delayed boundary; null: from the start. */
  private Orders.@Nullable After delayedAfter() {
    return delayedBoundaryAt == Long.MIN_VALUE
        ? null
        : new Orders.After(
            delayedBoundarySerial,
            new Place(MessageRecord.DELAYED, 0, 0, delayedBoundaryAt, 0, 0, null));
  }

  /**
   * Reads the next cold delayed messages after the delayed boundary into the heap, at most {@code
   * cap} (in one batched read), or only those due by {@code dueBy}; the boundary moves to the last
   * one read. Returns how many keys were read.
   */
  private int refillDelayed(int cap, long dueBy) {
    journal.flush();
    int limit = (int) Math.min((long) cap + sending.size(), Integer.MAX_VALUE);
    List<Long> serials = orders.delayed(queue, delayedAfter(), limit);
    List<Long> unknown = new java.util.ArrayList<>();
    for (long serial : serials) {
      if (table.get(serial) == null && !sending.containsKey(serial)) {
        unknown.add(serial);
      }
    }
    List<java.util.Optional<MessageRecord>> records = orders.readAll(queue, unknown);
    int next = 0;
    int read = 0;
    for (long serial : serials) {
      StoredMessage known = table.get(serial);
      if (known == null) {
        known = sending.get(serial);
      }
      long at;
      MessageRecord r = null;
      if (known != null) {
        at = known.visibleAt;
      } else {
        r = records.get(next++).orElse(null);
        if (r == null || r.state() != MessageRecord.DELAYED) {
          continue;
        }
        at = r.visibleAt();
      }
      if (at > dueBy) {
        coldDelayedFloor = at; // the first cold one is not due yet
        return read;
      }
      if (r != null) {
        install(r);
      }
      delayedBoundaryAt = at;
      delayedBoundarySerial = serial;
      read++;
    }
    if (serials.size() < limit) {
      clearDelayed(); // read to the end of the order: nothing is left cold
    } else if (coldDelayed > 0) {
      coldDelayedFloor = Math.max(coldDelayedFloor, delayedBoundaryAt);
    }
    return read;
  }

  private void refillDelayed(int cap) {
    refillDelayed(cap, Long.MAX_VALUE);
  }

  /**
   * Reads in a page of the cold delayed messages due by {@code now}, so that their timers fire in
   * the heap at their time; true when it read some (the caller fires them and calls again: a burst
   * due at once is read a page at a time, the window settling between pages). A store that cannot
   * be read leaves the floor, so the next operation tries again.
   */
  boolean promoteDelayed(long now) {
    if (pinned || coldDelayed == 0 || coldDelayedFloor > now) {
      return false;
    }
    settle(); // what the last page made available past the window's boundary goes cold again
    try {
      return refillDelayed(Math.max(HotBudget.MIN_WINDOW, window()), now) > 0;
    } catch (QueueException e) {
      return false;
    }
  }

  /**
   * The delayed and in-flight messages of the queue in delivery order strictly after {@code after}
   * (null: from the start): the leases from the heap, merged with the delayed messages read from
   * the store's delivery order of them ({@code D}), hot and cold alike, a cold one a copy not kept
   * (browse with the invisible messages, a redrive's snapshot). Valid while the caller holds the
   * queue's lock and changes nothing.
   */
  Iterable<StoredMessage> invisibleAfter(@Nullable StoredMessage after) {
    if (coldDelayed == 0) {
      return table.invisibleAfter(after);
    }
    Iterable<StoredMessage> heap = table.invisibleAfter(after);
    Iterable<StoredMessage> leases =
        () -> {
          Iterator<StoredMessage> all = heap.iterator();
          return new Iterator<>() {
            private @Nullable StoredMessage next;

            @Override
            public boolean hasNext() {
              while (next == null && all.hasNext()) {
                StoredMessage m = all.next();
                if (m.state == StoredMessage.IN_FLIGHT) {
                  next = m;
                }
              }
              return next != null;
            }

            @Override
            public StoredMessage next() {
              if (!hasNext()) {
                throw new NoSuchElementException();
              }
              StoredMessage m = java.util.Objects.requireNonNull(next);
              next = null;
              return m;
            }
          };
        };
    return BrowseMerge.merge(leases, inStore(after, StoredMessage.DELAYED), table.order());
  }

  /** Whether {@code m} lies in the prefix of partition {@code p} that the heap holds whole. */
  private static boolean neededBy(
      PartitionIndex.Partition p, StoredMessage m, Comparator<StoredMessage> cmp) {
    StoredMessage b = p.boundary;
    return p.cold > 0 && b != null && cmp.compare(m, b) <= 0;
  }

  /**
   * Demotes the last available messages until {@code window} are left; the boundary follows, but
   * never past where it stood while messages were cold (messages a partition read ahead of it may
   * remain after it).
   */
  private void shrinkTo(int window) {
    long hot = table.eligible();
    if (hot > window) {
      StoredMessage before = cold > 0 ? boundary : null;
      for (long i = hot - window; i > 0; i--) {
        demote(java.util.Objects.requireNonNull(table.lastAvailable()));
      }
      StoredMessage last = java.util.Objects.requireNonNull(table.lastAvailable());
      boundary = before != null && table.order().compare(last, before) > 0 ? before : keyOf(last);
    }
  }

  /**
   * Settles the window, then reads cold messages back until the heap holds {@code wanted} available
   * messages or nothing is cold. A filtered receive reads the pages of the partitions it matches as
   * its take reaches their bounds ({@link #refill(PartitionIndex.Partition)}); one the attribute
   * index cannot answer pins the queue first.
   */
  void fill(int wanted, @Nullable MessageFilter filter) {
    if (pinned) {
      return;
    }
    if (grouped) {
      settle();
      readStarved(); // every group's head is then in the heap: a filter sees heads only
      return;
    }
    if (filter != null) {
      if (cold > 0
          && !(partitions() != null
              && table.ordering() instanceof StandardOrdering s
              && s.indexServes(filter))) {
        pin(); // a filter the attribute index cannot answer walks the whole queue
        return;
      }
      settle(); // the partitions' lines are read as the take reaches their bounds
      return;
    }
    settle();
    tenantsReady(); // a fair queue: every tenant's best message in the heap before the choice
    while (!pinned && cold > 0 && table.eligible() < wanted) {
      refill();
    }
  }

  /** At the end of an operation: settles, and reads a page ahead when the window runs low. */
  void endOperation() {
    settle();
    if (grouped) {
      try {
        readStarved();
      } catch (QueueException e) {
        // the store cannot be read now: the next receive reads the groups' pages itself
      }
      report();
      return;
    }
    try {
      tenantsReady();
    } catch (QueueException e) {
      // the store cannot be read now: the next receive reads the tenants' pages itself
    }
    if (!pinned && cold > 0 && table.eligible() < Math.max(1, window() / 2)) {
      try {
        refill();
      } catch (QueueException e) {
        // the store cannot be read now: the next receive reads the page itself (and says so)
      }
    }
    if (!pinned && coldDelayed > 0 && table.delayed() < Math.max(1, window() / 2)) {
      try {
        refillDelayed(window());
      } catch (QueueException e) {
        // the store cannot be read now: the floor reads the due ones when they fall due
      }
    }
    report();
  }

  /**
   * Trims the window to its share of the budget when it keeps more ({@link HotBudget#trim}): a
   * window that grew while its queue had the heap to itself gives back what the queues that began
   * waiting since need. The caller ends the operation as any other.
   */
  void trim() {
    if (!pinned && !grouped && reportedHot > budget.share()) {
      FairShare f = fairShare();
      if (f != null) {
        shrinkFair(f, window());
      } else {
        shrinkTo(window());
      }
      shrinkDelayedTo(window());
    }
  }

  /** Tells the budget what the window keeps now: hot bytes, and whether the queue has waiting. */
  void report() {
    long held =
        grouped ? table.available() : table.eligible() + (delayedWindowed ? table.delayed() : 0);
    long hot = pinned ? 0 : held * charge();
    boolean waiting = !pinned && (cold > 0 || coldDelayed > 0 || held > 0);
    budget.report(queue, waiting, reportedWaiting, hot - reportedHot);
    reportedHot = hot;
    reportedWaiting = waiting;
  }

  /** The queue is gone: it no longer counts toward the budget. */
  void release() {
    budget.report(queue, false, reportedWaiting, -reportedHot);
    reportedHot = 0;
    reportedWaiting = false;
  }

  /**
   * Reads every cold available message back into the heap (for one operation; {@link #settle} lets
   * go).
   */
  void thaw() {
    while (cold > 0) {
      refill();
    }
  }

  /** Keeps every message of the queue in the heap from now on, delayed ones included. */
  void pin() {
    thaw();
    while (coldDelayed > 0
        && refillDelayed(Math.max(HotBudget.MIN_WINDOW, window()), Long.MAX_VALUE) > 0) {
      // a page at a time, until none is cold
    }
    pinned = true;
  }

  /**
   * The queue's order or indexed attributes changed; the heap re-sorts next ({@link #reordered}
   * after it). When only the order changed, a windowed queue forgets its window instead of reading
   * its backlog: the store's lines serve either order (LIFO reads each priority band backwards), so
   * every available message in the heap goes cold (they are all in the store: demotion writes
   * nothing) and {@link #reordered} reads the first page in the new order, as a restart does. A
   * change of the indexed attributes (every message's partition keys are rewritten), a fair queue
   * (its tenants' heads) and a pinned one read the cold messages back first, as before.
   */
  void reorder(Order next, boolean attributesChanged) {
    if (grouped) {
      thawGroups(); // its order is the groups' (FIFO), whatever the configuration says
      return;
    }
    if (attributesChanged || pinned || cold == 0 || fairShare() != null) {
      thaw();
      order = next;
      return;
    }
    for (StoredMessage m = table.lastAvailable(); m != null; m = table.lastAvailable()) {
      demote(m);
    }
    order = next;
    rereadAfterReorder = true;
  }

  /** After the heap re-sorted: a window forgotten by {@link #reorder} reads its first page. */
  void reordered() {
    if (!rereadAfterReorder) {
      return;
    }
    rereadAfterReorder = false;
    boundary = null;
    PartitionIndex parts = partitions();
    if (parts != null) {
      // the heap's partitions were made anew by the re-sort: their cold counts are the store's
      // (no available message is in the heap now), their windows start over
      for (PartitionIndex.Partition p : parts.all()) {
        p.cold = 0;
        p.boundary = null;
      }
    }
    readFirstPage();
    settle();
    report();
  }

  /**
   * With every available message cold and the boundary at the start (after recovery, or a change of
   * order): the catalogue of partitions from their counts (no message is read), then the window's
   * first page. The size of the queue's messages is known only once some are read: a first page of
   * a few teaches it, so a window of large messages is not read whole into a heap that cannot hold
   * it (the window is the budget's share in bytes over that size). Then one page: the rest of the
   * window is read ahead by the queue's first operations (endOperation), so a restart reads a page
   * per queue, not every queue's window, before it serves.
   */
  private void readFirstPage() {
    if (cold == 0) {
      return;
    }
    PartitionIndex parts = partitions();
    if (parts != null) {
      for (Map.Entry<String, Long> e : orders.partitions(queue).entrySet()) {
        PartitionIndex.Partition p = parts.partition(e.getKey());
        p.cold = e.getValue();
        p.boundary = null;
      }
    }
    refill(HotBudget.MIN_WINDOW);
    long more = Math.min(window(), PAGE) - table.size();
    if (cold > 0 && more > 0) {
      refill((int) more);
    }
  }

  /**
   * Counts an available message recovery found in the store as cold, without keeping it: recovery
   * then reads the window from the store's order ({@link #restored}).
   */
  void restoredCold(MessageRecord r) {
    cold++;
    countCold(r.priority(), 1);
    coldExpiryFloor = Math.min(coldExpiryFloor, r.expiresAt());
  }

  /**
   * Counts {@code n} available messages as cold from the store's counts record, without reading
   * them ({@code byPriority}: the available ones by priority; {@code expiryFloor}: at or before the
   * earliest expiry among them): recovery then reads the window from the store's order ({@link
   * #restored}).
   */
  void restoredCold(long n, Map<Integer, Long> byPriority, long expiryFloor) {
    restoredCold(n, 0, byPriority, expiryFloor, Long.MIN_VALUE, Long.MIN_VALUE);
  }

  /**
   * As {@link #restoredCold(long, Map, long)}, with {@code delayed} delayed messages counted cold
   * as well: those after ({@code delayedAt}, {@code delayedSerial}) in timer order, the last
   * delayed message recovery read (Long.MIN_VALUE: none). {@code byPriority} counts the cold
   * available and delayed messages together; only their sum is reported.
   */
  void restoredCold(
      long n,
      long delayed,
      Map<Integer, Long> byPriority,
      long expiryFloor,
      long delayedAt,
      long delayedSerial) {
    if (n <= 0 && delayed <= 0) {
      return;
    }
    cold += Math.max(0, n);
    TreeMap<Integer, long[]> into = n > 0 ? coldByPriority : coldDelayedByPriority;
    byPriority.forEach(
        (p, count) -> {
          if (count > 0) {
            into.computeIfAbsent(p, q -> new long[1])[0] += count;
          }
        });
    coldExpiryFloor = Math.min(coldExpiryFloor, expiryFloor);
    if (delayed > 0) {
      coldDelayed += delayed;
      delayedBoundaryAt = delayedAt;
      delayedBoundarySerial = delayedSerial;
      coldDelayedFloor = delayedAt == Long.MIN_VALUE ? Long.MIN_VALUE + 1 : delayedAt;
    }
  }

  /**
   * At the end of recovery, when every available message was counted cold and none is in the heap:
   * reads the first page of the delivery order (the boundary is the start).
   */
  void restored() {
    if (grouped) {
      if (cold > 0) {
        ((GroupedOrdering) table.ordering()).restoredEnds();
      }
      settle();
      report();
      return;
    }
    boundary = null;
    if (coldDelayed > 0 && !delayedWindowed) {
      // a store without the delayed messages' delivery order: the heap keeps all of them
      while (coldDelayed > 0 && refillDelayed(window(), Long.MAX_VALUE) > 0) {
        // a page at a time, from where recovery stopped reading
      }
    } else if (coldDelayed > 0 && table.delayed() < window()) {
      refillDelayed(window()); // the window's first page, from where recovery stopped reading
    }
    if (cold > 0) {
      // the catalogue of tenants, from their counts (no message is read); what the counts leave
      // are the messages without a group id
      Map<String, Long> tenants = orders.keepsTenants() ? orders.tenants(queue) : Map.of();
      long withGroup = 0;
      for (long n : tenants.values()) {
        withGroup += n;
      }
      coldUngrouped = orders.keepsTenants() ? Math.max(0, cold - withGroup) : cold;
      if (!tenants.isEmpty() && table.ordering() instanceof StandardOrdering s) {
        FairShare f = s.makeFair();
        for (Map.Entry<String, Long> e : tenants.entrySet()) {
          FairShare.Tenant t = f.tenant(e.getKey());
          t.cold = e.getValue();
          t.boundary = null;
          f.touch(t);
        }
      }
    }
    readFirstPage();
    settle();
    tenantsReady(); // each tenant's first page: its best message in the heap
    report();
  }

  // ---- message groups (a grouped queue) ---------------------------------------------------

  /**
   * The messages a group keeps in the heap after a page: a receive's largest batch (10), or the
   * window when it is smaller. A line past twice that forgets all but the first.
   */
  private int groupWindow() {
    return Math.max(1, Math.min(window(), HotBudget.MIN_WINDOW));
  }

  /**
   * Forgets what entered a group after its hot end (a send or a move to a group with cold messages,
   * a message read by id), and shrinks each group touched whose line in the heap passed {@code 2k}
   * to its first {@code k} (and its messages in flight). Reads nothing.
   */
  private void settleGroups() {
    GroupedOrdering o = (GroupedOrdering) table.ordering();
    List<StoredMessage> watched = table.watched();
    table.watchedDelayed().clear();
    if (watched.isEmpty()) {
      return;
    }
    java.util.Set<GroupedOrdering.Group> touched =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (StoredMessage m : List.copyOf(watched)) {
      GroupedOrdering.Group g = table.get(m.serial) == m ? o.groupOf(m) : null;
      if (g == null) {
        continue;
      }
      if (m.state == StoredMessage.AVAILABLE && !g.within(m)) {
        demote(m);
      } else {
        touched.add(g);
      }
    }
    watched.clear();
    int k = groupWindow();
    for (GroupedOrdering.Group g : touched) {
      shrinkGroup(o, g, k);
    }
  }

  private void shrinkGroup(GroupedOrdering o, GroupedOrdering.Group g, int k) {
    int held = 0;
    StoredMessage end = null;
    for (StoredMessage m : g.line) {
      if (!g.within(m)) {
        break;
      }
      held++;
      if (held <= k || m.state == StoredMessage.IN_FLIGHT) {
        end = m;
      }
    }
    if (held <= 2 * k || end == null) {
      return;
    }
    List<StoredMessage> forget = new java.util.ArrayList<>();
    boolean after = false;
    for (StoredMessage m : g.line) {
      if (!g.within(m)) {
        break;
      }
      if (after && m.state == StoredMessage.AVAILABLE) {
        forget.add(m);
      }
      after |= m == end;
    }
    o.hotEnd(g, end.seq, end.serial);
    for (StoredMessage m : forget) {
      demote(m);
    }
  }

  /** Reads the next page of every group whose messages in the heap are all gone. */
  private void readStarved() {
    for (GroupedOrdering.Group g : ((GroupedOrdering) table.ordering()).starved()) {
      extend(g, groupWindow());
    }
  }

  /**
   * Reads the next messages of group {@code g}'s line after its hot end: at least {@code wanted}
   * keys of the store's {@code G} order (and the group's window), then their records in one batched
   * read; the end moves to the last one read, and a page shorter than asked leaves none of the
   * group cold.
   */
  @Override
  public void extend(GroupedOrdering.Group g, int wanted) {
    GroupedOrdering o = (GroupedOrdering) table.ordering();
    if (cold == 0) {
      o.whole(g); // nothing of the queue is cold (those after the end were deleted by id)
      return;
    }
    journal.flush();
    int limit = (int) Math.min((long) Math.max(wanted, groupWindow()) + sending.size(), 1 << 20);
    Orders.After after =
        g.endSeq == Long.MIN_VALUE
            ? null
            : new Orders.After(
                g.endSerial, new Place(MessageRecord.AVAILABLE, 0, g.endSeq, 0, 0, 0, g.id));
    List<Long> serials = orders.group(queue, g.id, after, limit);
    StoredMessage last = installPage(serials, false);
    if (serials.size() < limit) {
      o.whole(g); // read to the end of its line
    } else if (last != null) {
      o.hotEnd(g, last.seq, last.serial);
    } else {
      throw new IllegalStateException(
          "the order index of queue '"
              + queue
              + "' names no message of group '"
              + g.id
              + "' after its hot end");
    }
  }

  /**
   * Reads every group's cold messages back (a change of the queue's indexed attributes rebuilds its
   * groups from the heap); the groups are windowed again as they change.
   */
  private void thawGroups() {
    GroupedOrdering o = (GroupedOrdering) table.ordering();
    for (GroupedOrdering.Group g : List.copyOf(o.groups())) {
      while (!g.whole()) {
        extend(g, Math.max(groupWindow(), PAGE));
      }
    }
    clearAvailable();
  }

  /** Forgets every cold message (the queue was purged or deleted). */
  void clear() {
    clearDelayed();
    clearAvailable();
  }

  /** Forgets the cold delayed messages (all of them are in the heap, or gone). */
  private void clearDelayed() {
    coldDelayed = 0;
    coldDelayedByPriority.clear();
    delayedBoundaryAt = Long.MIN_VALUE;
    delayedBoundarySerial = Long.MIN_VALUE;
    coldDelayedFloor = Long.MAX_VALUE;
    if (cold == 0) {
      coldExpiryFloor = Long.MAX_VALUE;
    }
  }

  /** Forgets the cold available messages (all of them are in the heap, or gone). */
  private void clearAvailable() {
    cold = 0;
    coldUngrouped = 0;
    coldByPriority.clear();
    FairShare f = fairShare();
    if (f != null) {
      f.clearCold();
    }
    boundary = null;
    if (coldDelayed == 0) {
      coldExpiryFloor = Long.MAX_VALUE;
    }
    PartitionIndex parts = table.index();
    if (parts != null) {
      for (PartitionIndex.Partition p : parts.withCold()) {
        p.cold = 0;
        p.boundary = null;
      }
    }
  }

  private void demote(StoredMessage m) {
    PartitionIndex parts = partitions();
    if (parts != null) {
      PartitionIndex.Partition p = parts.partitionOf(m);
      if (p.cold == 0 || neededBy(p, m, table.order())) {
        // the partition's held prefix now ends before m
        StoredMessage previous = p.messages.lower(m);
        p.boundary = previous == null ? null : keyOf(previous);
      }
      p.cold++;
    }
    FairShare f = fairShare();
    if (m.groupId == null) {
      coldUngrouped++;
    } else if (f != null) {
      FairShare.Tenant t = f.tenant(m.groupId);
      StoredMessage b = t.boundary;
      if (t.cold == 0 || (b != null && table.order().compare(m, b) <= 0)) {
        // the tenant's held prefix now ends before m
        StoredMessage previous = t.available.lower(m);
        t.boundary = previous == null ? null : keyOf(previous);
      }
      t.cold++;
      f.touch(t);
    }
    table.forget(m);
    cold++;
    countCold(m.priority, 1);
    coldExpiryFloor = Math.min(coldExpiryFloor, m.expiresAt);
  }

  /** Puts a message read from the store into the heap; it was counted cold. */
  private StoredMessage install(MessageRecord r) {
    StoredMessage m = QueueJournal.restore(r);
    table.install(m);
    if (m.state == StoredMessage.DELAYED) {
      if (coldDelayed > 0) {
        coldDelayed--;
        count(coldDelayedByPriority, m.priority, -1);
      }
      return m;
    }
    if (cold > 0) {
      cold--;
      countCold(m.priority, -1);
    }
    if (m.groupId == null) {
      if (coldUngrouped > 0) {
        coldUngrouped--;
      }
    } else {
      FairShare f = fairShare();
      FairShare.Tenant t = f == null ? null : f.tenantOrNull(m.groupId);
      if (t != null && t.cold > 0 && --t.cold == 0) {
        t.boundary = null;
      }
    }
    PartitionIndex parts = partitions();
    if (parts != null) {
      PartitionIndex.Partition p = parts.partitionOf(m);
      if (p.cold > 0 && --p.cold == 0) {
        p.boundary = null;
      }
    }
    return m;
  }

  /** A message a move journaled here was read in before the move arrived: it goes back out. */
  void arriving(long serial) {
    StoredMessage early = table.get(serial);
    if (early != null) {
      demote(early); // counts it cold again: the read took it off the count it was never on
    }
  }

  /** Reads the next page of cold messages after the boundary into the heap. */
  @Override
  public void refill() {
    refill(Integer.MAX_VALUE);
  }

  // ---- the store's side, as the ordering sees it (StandardOrdering.Cold) ---------------------

  @Override
  public boolean coldBefore(StoredMessage m) {
    if (fairWindowed()) {
      // every tenant's best message is in the heap and no message without a group id is cold:
      // whatever is cold sorts after a head the choice saw (docs/design.md, "Fair queues over
      // cold messages")
      return false;
    }
    StoredMessage b = boundary;
    return !pinned && cold > 0 && (b == null || table.order().compare(m, b) > 0);
  }

  @Override
  public boolean whole(PartitionIndex.Partition p) {
    return pinned || cold == 0 || p.cold == 0 || partitions() == null;
  }

  @Override
  public @Nullable StoredMessage bound(PartitionIndex.Partition p) {
    StoredMessage a = boundary;
    StoredMessage b = p.boundary;
    if (a == null || b == null) {
      return a == null ? b : a;
    }
    return table.order().compare(a, b) >= 0 ? a : b;
  }

  /**
   * Reads the next page of partition {@code p}'s cold messages into the heap: {@code min(w, 64)}
   * keys of its line after its bound, then their records in one batched read. The partition's bound
   * moves to the last message read; a page shorter than asked leaves none of it cold.
   */
  @Override
  public void refill(PartitionIndex.Partition p) {
    PartitionIndex parts = java.util.Objects.requireNonNull(partitions());
    journal.flush();
    String encoding = p.encoding(parts.attributes());
    int limit = Math.min(window(), PARTITION_PAGE) + sending.size();
    StoredMessage from = bound(p);
    List<Long> serials =
        orders.partition(
            queue,
            order,
            encoding,
            from == null ? null : new Orders.After(from.serial, placeOf(from, encoding)),
            limit);
    StoredMessage last = installPage(serials, true);
    if (serials.size() < limit) {
      p.cold = 0; // read to the end of its line: the heap holds all of it
      p.boundary = null;
    } else if (last != null) {
      p.boundary = keyOf(last);
    } else {
      throw new IllegalStateException(
          "the partition index of queue '"
              + queue
              + "' names no available message after its bound");
    }
  }

  /** Reads the next page after the boundary: the window, or at most {@code cap} messages. */
  private void refill(int cap) {
    journal.flush();
    int limit = Math.min(window(), cap) + sending.size();
    StoredMessage b = boundary;
    List<Long> serials =
        orders.available(
            queue, order, b == null ? null : new Orders.After(b.serial, placeOf(b)), limit);
    StoredMessage last = installPage(serials, true);
    if (serials.size() < limit) {
      clearAvailable(); // read to the end: nothing is left cold
    } else if (last != null) {
      boundary = keyOf(last);
    } else {
      // every key named a message the store does not hold as available: the index is out of step
      throw new IllegalStateException(
          "the order index of queue '" + queue + "' names no available message after the window");
    }
  }

  /**
   * Installs a page read from one of the store's orders: the records of the messages {@code
   * serials} names that neither the heap holds nor a send is writing, read in one batched read, and
   * those of them available ({@code availableOnly}) or in any state. Returns the last message of
   * the page the heap now holds or is being sent, or null when there is none.
   */
  private @Nullable StoredMessage installPage(List<Long> serials, boolean availableOnly) {
    List<Long> unknown = new java.util.ArrayList<>();
    for (long serial : serials) {
      if (table.get(serial) == null && !sending.containsKey(serial)) {
        unknown.add(serial);
      }
    }
    // the page's records in one read (its keys were read in one call too)
    List<java.util.Optional<MessageRecord>> records = orders.readAll(queue, unknown);
    StoredMessage last = null;
    int next = 0;
    for (long serial : serials) {
      StoredMessage known = table.get(serial);
      if (known == null) {
        known = sending.get(serial);
      }
      if (known != null) {
        last = known;
        continue;
      }
      MessageRecord r = records.get(next++).orElse(null);
      if (r != null && (!availableOnly || r.state() == MessageRecord.AVAILABLE)) {
        last = install(r);
      }
    }
    return last;
  }

  /**
   * Reads back a cold message named by id (get, update, delete, a receipt of a lease that ran out):
   * null when the message is not a cold one of this queue.
   */
  @Nullable StoredMessage promote(long serial) {
    if (pinned || (cold == 0 && coldDelayed == 0) || sending.containsKey(serial)) {
      return null;
    }
    journal.flush();
    MessageRecord r = orders.read(queue, serial).orElse(null);
    if (r == null || !isCold(r)) {
      return null;
    }
    return install(r);
  }

  /** Whether a record the store holds for a message not in the heap is one of the cold ones. */
  private boolean isCold(MessageRecord r) {
    return (r.state() == MessageRecord.AVAILABLE && cold > 0)
        || (r.state() == MessageRecord.DELAYED && coldDelayed > 0);
  }

  /**
   * The available messages of the queue, hot and cold alike, in delivery order strictly after
   * {@code after} (null: from the start), read lazily from the store's order in pages: a hot
   * message is the heap's, a cold one a copy read for the caller and not kept (browse, a redrive's
   * snapshot). Valid while the caller holds the queue's lock and changes nothing.
   */
  Iterable<StoredMessage> availableAfter(@Nullable StoredMessage after) {
    return inStore(after, StoredMessage.AVAILABLE);
  }

  /**
   * The messages in {@code state} (available, or delayed: the store's {@code A} or {@code D}
   * order), as {@link #availableAfter} reads the available ones.
   */
  private Iterable<StoredMessage> inStore(@Nullable StoredMessage after, byte state) {
    journal.flush();
    Orders.After start =
        after == null ? null : new Orders.After(after.serial, placeOf(after, null, state));
    return () ->
        new Iterator<>() {
          private Orders.@Nullable After at = start;
          private final ArrayDeque<StoredMessage> page = new ArrayDeque<>();
          private boolean end;

          @Override
          public boolean hasNext() {
            while (page.isEmpty() && !end) {
              load();
            }
            return !page.isEmpty();
          }

          @Override
          public StoredMessage next() {
            if (!hasNext()) {
              throw new NoSuchElementException();
            }
            return page.removeFirst();
          }

          private void load() {
            List<Long> serials =
                state == StoredMessage.DELAYED
                    ? orders.delayedInOrder(queue, order, at, PAGE)
                    : orders.available(queue, order, at, PAGE);
            end = serials.size() < PAGE;
            for (long serial : serials) {
              StoredMessage m = table.get(serial);
              if (m == null) {
                m = sending.get(serial);
                if (m != null) {
                  at = new Orders.After(serial, placeOf(m, null, state));
                  continue; // not in the queue until its write completes
                }
                MessageRecord r = orders.read(queue, serial).orElse(null);
                if (r == null) {
                  continue;
                }
                m = QueueJournal.restore(r);
              }
              at = new Orders.After(serial, placeOf(m, null, state));
              if (m.state == state) {
                page.addLast(m);
              }
            }
          }
        };
  }

  /**
   * Reads back every cold message whose expiry has come by {@code now}, so that the queue's expiry
   * timers fire them at their time in the heap; moves the floor on to the next expiry.
   */
  void promoteExpired(long now) {
    if ((cold == 0 && coldDelayed == 0) || coldExpiryFloor > now) {
      return;
    }
    try {
      promoteExpiredNow(now);
    } catch (QueueException e) {
      // the store cannot be read now: the floor stays, so the next operation tries again
    }
  }

  private void promoteExpiredNow(long now) {
    journal.flush();
    Orders.After after = null;
    while (true) {
      List<Long> serials = orders.byExpiry(queue, after, PAGE);
      for (long serial : serials) {
        StoredMessage known = table.get(serial);
        if (known == null) {
          known = sending.get(serial);
        }
        Place place;
        if (known != null) {
          place = MessageTable.placeOf(known);
        } else {
          MessageRecord r = orders.read(queue, serial).orElse(null);
          if (r == null) {
            continue;
          }
          place = Place.of(r);
          if (r.expiresAt() <= now && isCold(r)) {
            install(r); // a delayed one too: it expires in the heap, never becoming available
          }
        }
        if (place.expiresAt() > now) {
          coldExpiryFloor = place.expiresAt();
          return;
        }
        after = new Orders.After(serial, place);
      }
      if (serials.size() < PAGE || (cold == 0 && coldDelayed == 0)) {
        coldExpiryFloor = Long.MAX_VALUE;
        return;
      }
    }
  }

  /**
   * The oldest message by send time that is not in flight, hot or cold (a cold one is read into the
   * heap), for load shedding; null when there is none.
   */
  @Nullable StoredMessage oldestNotInFlight() {
    journal.flush();
    Orders.After after = null;
    while (true) {
      List<Long> serials = orders.byArrival(queue, after, PAGE);
      for (long serial : serials) {
        StoredMessage known = table.get(serial);
        if (known == null) {
          known = sending.get(serial);
          if (known == null) {
            MessageRecord r = orders.read(queue, serial).orElse(null);
            if (r != null && isCold(r)) {
              return install(r);
            }
            if (r == null) {
              continue;
            }
            after = new Orders.After(serial, Place.of(r));
            continue;
          }
        } else if (known.state != StoredMessage.IN_FLIGHT) {
          return known;
        }
        after = new Orders.After(serial, MessageTable.placeOf(known));
      }
      if (serials.size() < PAGE) {
        return null;
      }
    }
  }

  /** Send time of the oldest message of the queue, hot or cold; -1 when it holds none. */
  long oldestSentAt() {
    journal.flush();
    Orders.After after = null;
    while (true) {
      List<Long> serials = orders.byArrival(queue, after, PAGE);
      for (long serial : serials) {
        StoredMessage pending = sending.get(serial);
        if (pending == null) {
          StoredMessage hot = table.get(serial);
          if (hot != null) {
            return hot.sentAt;
          }
          MessageRecord r = orders.read(queue, serial).orElse(null);
          if (r != null) {
            return r.sentAt();
          }
          continue;
        }
        after = new Orders.After(serial, MessageTable.placeOf(pending));
      }
      if (serials.size() < PAGE) {
        return -1;
      }
    }
  }

  private void countCold(int priority, int delta) {
    count(coldByPriority, priority, delta);
  }

  private static void count(TreeMap<Integer, long[]> byPriority, int priority, int delta) {
    long[] n = byPriority.computeIfAbsent(priority, p -> new long[1]);
    n[0] += delta;
    if (n[0] == 0) {
      byPriority.remove(priority);
    }
  }

  /** The place in delivery order of {@code m}, kept apart from the message (which may change). */
  private static StoredMessage keyOf(StoredMessage m) {
    StoredMessage key =
        new StoredMessage(
            m.serial, m.seq, m.sentAt, new byte[0], new Object[0], m.priority, null, null);
    key.state = StoredMessage.AVAILABLE;
    key.expiresAt = m.expiresAt;
    return key;
  }

  private static Place placeOf(StoredMessage key) {
    return placeOf(key, null);
  }

  /** As {@link #placeOf(StoredMessage)}, in attribute partition {@code partition}. */
  private static Place placeOf(StoredMessage key, @Nullable String partition) {
    return placeOf(key, partition, MessageRecord.AVAILABLE);
  }

  /** The place in delivery order of {@code key} as a message in {@code state} has it. */
  private static Place placeOf(StoredMessage key, @Nullable String partition, byte state) {
    return new Place(state, key.priority, key.seq, 0, key.expiresAt, key.sentAt, null, partition);
  }
}
