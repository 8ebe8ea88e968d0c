package io.switchboard.queue;

import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Available messages of a standard queue in one red-black tree ordered by (priority desc, seq),
 * plus a {@link PartitionIndex} over them when the queue indexes attributes. An unfiltered receive
 * polls the first entry; a selector over indexed attributes walks the index; any other filter walks
 * the tree in order, testing each message.
 */
final class StandardOrdering extends Ordering {

  private final Comparator<StoredMessage> comparator;
  private final TreeSet<StoredMessage> available;
  private final List<StoredMessage> newlyEligible;
  private final PartitionIndex index;
  private final HoldWork work;

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
    if (m.state == StoredMessage.AVAILABLE) {
      enter(m);
    }
  }

  @Override
  void stateChanged(StoredMessage m, byte from) {
    if (from == StoredMessage.AVAILABLE) {
      leave(m);
    }
    if (m.state == StoredMessage.AVAILABLE) {
      enter(m);
    }
  }

  @Override
  void removed(StoredMessage m) {
    if (m.state == StoredMessage.AVAILABLE) {
      leave(m);
    }
  }

  private void enter(StoredMessage m) {
    available.add(m);
    if (index != null) {
      index.add(m);
    }
    newlyEligible.add(m);
  }

  private void leave(StoredMessage m) {
    if (available.remove(m) && index != null) {
      index.remove(m);
    }
  }

  @Override
  void take(
      int max,
      MessageFilter filter,
      long now,
      List<StoredMessage> out,
      Scan scan,
      AnswerBudget budget) {
    if (filter == null) {
      while (out.size() < max && !available.isEmpty() && budget.fits(available.first())) {
        StoredMessage m = available.pollFirst();
        work.examined(1);
        if (index != null) {
          index.remove(m);
        }
        out.add(m);
      }
      return;
    }
    Iterator<StoredMessage> it = candidates(scan.after, filter).iterator();
    while (out.size() < max && it.hasNext()) {
      StoredMessage m = it.next();
      if (filter.test(m, now)) {
        if (!budget.fits(m)) {
          break; // the answer is full: what was found goes out, the scan is not finished
        }
        out.add(m);
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
    }
  }

  @Override
  Iterable<StoredMessage> candidates(StoredMessage after, MessageFilter filter) {
    if (index != null && filter instanceof SelectorFilter s) {
      Iterable<StoredMessage> indexed = index.candidates(s.selector(), after);
      if (indexed != null) {
        return indexed;
      }
    }
    return after == null ? available : available.tailSet(after, false);
  }

  @Override
  void reorder(StoredMessage m, Runnable change) {
    boolean present = m.state == StoredMessage.AVAILABLE && available.contains(m);
    if (present) {
      leave(m);
    }
    change.run();
    if (present) {
      available.add(m);
      if (index != null) {
        index.add(m);
      }
    }
  }

  @Override
  long eligibleCount() {
    return available.size();
  }

  @Override
  boolean hasEligible() {
    return !available.isEmpty();
  }

  @Override
  boolean isEligible(StoredMessage m) {
    return m.state == StoredMessage.AVAILABLE;
  }

  Comparator<StoredMessage> comparator() {
    return comparator;
  }

  @Override
  void clear() {
    available.clear();
    if (index != null) {
      index.clear();
    }
  }
}
