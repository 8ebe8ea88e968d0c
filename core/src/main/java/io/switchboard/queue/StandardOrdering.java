package io.switchboard.queue;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Available messages of a standard queue in one red-black tree ordered by (priority desc, seq),
 * plus a {@link PartitionIndex} over them when the queue indexes attributes. An unfiltered receive
 * polls the first entry; a selector over indexed attributes walks the index; any other filter walks
 * the tree in order, testing each message.
 *
 * <p>Once a message with a group id enters, an unfiltered receive is also fair across groups
 * ({@link FairShare}, SQS fair queues): a group holding far more than its share of the in-flight
 * messages waits while other groups have messages available. With a limit per key, a group holding
 * that many messages in flight is passed over until one settles ({@code docs/design.md}, "Limits
 * per key").
 */
final class StandardOrdering extends Ordering {

  private final Comparator<StoredMessage> comparator;
  private final TreeSet<StoredMessage> available;
  private final List<StoredMessage> newlyEligible;
  private final @Nullable PartitionIndex index;
  private final HoldWork work;

  /** Messages of this queue in flight (every take is leased by the caller). */
  private long inFlight;

  /** Fair scheduling across groups; null until a message with a group id enters. */
  private @Nullable FairShare fair;

  /** The most messages of one group in flight (the queue's {@code keyLimit}); 0: no limit. */
  private int keyLimit;

  /** The store's side of a hot window ({@link HotWindow}); null when the heap holds everything. */
  private @Nullable Cold cold;

  /**
   * The cold messages of a queue with a hot window, as the ordering sees them: a take never passes
   * a cold message that sorts before what it takes.
   */
  interface Cold extends PartitionIndex.Backlog {
    /** Whether a cold message may sort before {@code m} in delivery order. */
    boolean coldBefore(StoredMessage m);

    /** Reads the next page of the delivery order after the window into the heap. */
    void refill();

    /**
     * In a fair queue: reads the next page of each tenant line whose messages in the heap ran out
     * while some of it is cold, so every tenant's best message is in the heap before a choice.
     */
    default void tenantsReady() {}
  }

  StandardOrdering(
      Comparator<StoredMessage> comparator,
      Set<String> indexed,
      List<StoredMessage> newlyEligible,
      HoldWork work) {
    this.comparator = comparator;
    this.work = work;
    this.available = new TreeSet<>(comparator);
    this.newlyEligible = newlyEligible;
    this.index = indexed.isEmpty() ? null : new PartitionIndex(indexed, comparator, work);
  }

  @Override
  void added(StoredMessage m) {
    if (fair == null && m.groupId != null) {
      // the first grouped message: from now on receives are fair across groups
      fair = new FairShare(comparator, available, keyLimit);
    }
    if (m.state == StoredMessage.AVAILABLE) {
      enter(m);
    } else if (m.state == StoredMessage.IN_FLIGHT) {
      countInFlight(m, 1); // only when rebuilding a queue that has leases
    }
  }

  @Override
  void stateChanged(StoredMessage m, byte from) {
    if (from == StoredMessage.AVAILABLE) {
      leave(m);
    } else if (from == StoredMessage.IN_FLIGHT) {
      countInFlight(m, -1);
    }
    if (m.state == StoredMessage.AVAILABLE) {
      enter(m);
    } else if (m.state == StoredMessage.IN_FLIGHT) {
      countInFlight(m, 1);
    }
  }

  @Override
  void removed(StoredMessage m) {
    if (m.state == StoredMessage.AVAILABLE) {
      leave(m);
    } else if (m.state == StoredMessage.IN_FLIGHT) {
      countInFlight(m, -1);
    }
  }

  private void enter(StoredMessage m) {
    insert(m);
    newlyEligible.add(m);
  }

  private void insert(StoredMessage m) {
    available.add(m);
    if (index != null) {
      index.add(m);
    }
    if (fair != null) {
      fair.enter(m);
    }
  }

  private void leave(StoredMessage m) {
    if (available.remove(m)) {
      if (index != null) {
        index.remove(m);
      }
      if (fair != null) {
        fair.leave(m);
      }
    }
  }

  private void countInFlight(StoredMessage m, int delta) {
    inFlight += delta;
    if (fair != null) {
      StoredMessage freed = fair.inFlight(m, delta);
      if (freed != null) {
        newlyEligible.add(freed); // its group came under its limit: blocked receives may take it
        keyFreed = true;
      }
    }
  }

  /** {@code m} left the available set for a take; the caller leases it. */
  private void taken(StoredMessage m) {
    countInFlight(m, 1);
  }

  @Override
  void take(
      int max,
      @Nullable MessageFilter filter,
      long now,
      List<StoredMessage> out,
      @Nullable Scan scan,
      AnswerBudget budget) {
    skippedKey = false;
    FairShare f = fair;
    if (filter == null) {
      boolean full = false;
      while (true) {
        Cold c = cold;
        if (f != null && c != null) {
          c.tenantsReady(); // a tenant whose messages in the heap ran out reads on in its line
        }
        if (out.size() >= max || available.isEmpty()) {
          break;
        }
        StoredMessage m = available.first();
        if (f != null) {
          StoredMessage chosen = f.choose(m, inFlight);
          if (chosen == null) {
            break; // every group with a message available is at its limit
          }
          if (chosen != m && f.held(m)) {
            skippedKey = true;
          }
          m = chosen;
        }
        if (c != null && c.coldBefore(m)) {
          // a message a partition read in, past the window: the window's next page comes first
          c.refill();
          continue;
        }
        work.examined(1);
        if (!budget.fits(m)) {
          full = true;
          break;
        }
        leave(m);
        taken(m);
        out.add(m);
      }
      if (f != null && !full && out.size() < max && f.anyHeld()) {
        skippedKey = true; // it ended short while a group at its limit had messages waiting
      }
      return;
    }
    Map<String, Integer> takenNow = f != null && f.limiting() ? new HashMap<>() : null;
    Iterator<StoredMessage> it = candidates(Objects.requireNonNull(scan).after, filter).iterator();
    while (out.size() < max && it.hasNext()) {
      StoredMessage m = it.next();
      if (filter.test(m, now)) {
        if (takenNow != null && !Objects.requireNonNull(f).admits(m, takenNow)) {
          skippedKey = true; // its group is at its limit: passed over like a refused message
        } else {
          if (!budget.fits(m)) {
            break; // the answer is full: what was found goes out, the scan is not finished
          }
          out.add(m);
          if (takenNow != null && m.groupId != null) {
            takenNow.merge(m.groupId, 1, Integer::sum);
          }
        }
      }
      if (scan.charge(m)) {
        break;
      }
    }
    if (out.size() >= max || !it.hasNext()) {
      scan.finish();
    }
    for (StoredMessage m : out) {
      leave(m);
      taken(m);
    }
  }

  @Override
  Iterable<StoredMessage> candidates(
      @Nullable StoredMessage after, @Nullable MessageFilter filter) {
    if (index != null && filter instanceof SelectorFilter s) {
      Iterable<StoredMessage> indexed = index.candidates(s.selector(), after, cold);
      if (indexed != null) {
        return indexed;
      }
    }
    return after == null ? available : available.tailSet(after, false);
  }

  /** Sets the store's side of the queue's hot window (null: the heap holds every message). */
  void cold(@Nullable Cold cold) {
    this.cold = cold;
  }

  /** The attribute index; null when the queue indexes no attribute. */
  @Nullable PartitionIndex index() {
    return index;
  }

  /** Whether a filtered take of {@code filter} reads the attribute index, not the whole queue. */
  boolean indexServes(@Nullable MessageFilter filter) {
    return index != null && filter instanceof SelectorFilter s && index.serves(s.selector());
  }

  @Override
  void reorder(StoredMessage m, Runnable change) {
    boolean present = m.state == StoredMessage.AVAILABLE && available.contains(m);
    if (present) {
      leave(m);
    }
    change.run();
    if (present) {
      insert(m);
    }
  }

  @Override
  long eligibleCount() {
    return available.size();
  }

  @Override
  boolean hasEligible() {
    FairShare f = fair;
    return f != null && f.limiting() ? f.anyHead() : !available.isEmpty();
  }

  @Override
  boolean isEligible(StoredMessage m) {
    FairShare f = fair;
    return m.state == StoredMessage.AVAILABLE && (f == null || !f.held(m));
  }

  @Override
  boolean anyHeld() {
    FairShare f = fair;
    return f != null && f.anyHeld();
  }

  @Override
  void keyLimit(int limit) {
    keyLimit = limit;
    FairShare f = fair;
    if (f != null) {
      f.limit(limit, newlyEligible);
    }
  }

  /** The last available message in delivery order, or null. */
  @Nullable StoredMessage last() {
    return available.isEmpty() ? null : available.last();
  }

  /** The fair share across groups; null until a message with a group id came. */
  @Nullable FairShare fairShare() {
    return fair;
  }

  /**
   * Makes receives fair across groups now (a restart whose messages with a group id are all cold
   * yet), as the first such message does.
   */
  FairShare makeFair() {
    FairShare f = fair;
    if (f == null) {
      f = new FairShare(comparator, available, keyLimit);
      fair = f;
    }
    return f;
  }

  /** The available message in the heap just before {@code m} in delivery order, or null. */
  @Nullable StoredMessage lower(StoredMessage m) {
    return available.lower(m);
  }

  /** The available messages in the heap from the last in delivery order; not to be changed. */
  Iterator<StoredMessage> descending() {
    return available.descendingIterator();
  }

  /** Whether receives are fair across groups (a message with a group id came). */
  boolean fair() {
    return fair != null;
  }

  Comparator<StoredMessage> comparator() {
    return comparator;
  }

  /** Groups with a message available or in flight; 0 until a grouped message came (tests). */
  int fairGroupCount() {
    return fair == null ? 0 : fair.tenantCount();
  }

  @Override
  void clear() {
    inFlight = 0;
    fair = null;
    available.clear();
    if (index != null) {
      index.clear();
    }
  }
}
