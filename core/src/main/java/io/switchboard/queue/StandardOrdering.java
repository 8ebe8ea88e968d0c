package io.switchboard.queue;

import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.TreeSet;

/**
 * Available messages of a standard queue in one red-black tree ordered by (priority desc, seq). An
 * unfiltered receive polls the first entry; a filtered one walks the tree in order, testing each
 * message (the attribute index replaces that walk for indexed attributes).
 */
final class StandardOrdering extends Ordering {

  private final Comparator<StoredMessage> comparator;
  private final TreeSet<StoredMessage> available;
  private final List<StoredMessage> newlyEligible;

  StandardOrdering(Comparator<StoredMessage> comparator, List<StoredMessage> newlyEligible) {
    this.comparator = comparator;
    this.available = new TreeSet<>(comparator);
    this.newlyEligible = newlyEligible;
  }

  @Override
  void added(StoredMessage m) {
    if (m.state == StoredMessage.AVAILABLE) {
      available.add(m);
      newlyEligible.add(m);
    }
  }

  @Override
  void stateChanged(StoredMessage m, byte from) {
    if (from == StoredMessage.AVAILABLE) {
      available.remove(m);
    }
    if (m.state == StoredMessage.AVAILABLE) {
      available.add(m);
      newlyEligible.add(m);
    }
  }

  @Override
  void removed(StoredMessage m) {
    if (m.state == StoredMessage.AVAILABLE) {
      available.remove(m);
    }
  }

  @Override
  void take(int max, MessageFilter filter, List<StoredMessage> out) {
    if (filter == null) {
      while (out.size() < max && !available.isEmpty()) {
        out.add(available.pollFirst());
      }
      return;
    }
    Iterator<StoredMessage> it = available.iterator();
    while (out.size() < max && it.hasNext()) {
      StoredMessage m = it.next();
      if (filter.test(m)) {
        it.remove();
        out.add(m);
      }
    }
  }

  @Override
  void reorder(StoredMessage m, Runnable change) {
    boolean present = m.state == StoredMessage.AVAILABLE && available.remove(m);
    change.run();
    if (present) {
      available.add(m);
    }
  }

  @Override
  boolean hasEligible() {
    return !available.isEmpty();
  }

  @Override
  boolean isEligible(StoredMessage m) {
    return m.state == StoredMessage.AVAILABLE;
  }

  @Override
  Iterable<StoredMessage> availableAfter(StoredMessage after) {
    return after == null ? available : available.tailSet(after, false);
  }

  Comparator<StoredMessage> comparator() {
    return comparator;
  }

  @Override
  void clear() {
    available.clear();
  }
}
