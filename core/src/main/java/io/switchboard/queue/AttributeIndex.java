package io.switchboard.queue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Posting lists over a queue's eligible messages, one per value of each indexed attribute, each
 * sorted in delivery order. A filtered receive walks the intersection (leapfrog: every list skips
 * to the next candidate of the others) or union of the lists its selector names, so its cost
 * depends on how many candidates there are, not on how deep the queue is. Residual predicates are
 * evaluated on candidates only.
 *
 * <p>Eligible means: in a standard queue, available; in a grouped queue, the head of a ready group
 * (filters see group heads only). The owning {@link Ordering} adds and removes messages as they
 * become and stop being eligible; a message's priority, sequence or attributes only change while it
 * is out of the index, so every list stays sorted.
 *
 * <p>String values (and each element of a string list) go in a map ordered by code point, numbers
 * in a map ordered by value (1 and 1.0 are one key), so equality, {@code IN} and {@code HAS} are
 * one lookup each, and ranges and {@code LIKE 'prefix%'} walk the values in range. A range over
 * more than {@link #MAX_RANGE_VALUES} distinct values is not worth it and falls back to the other
 * predicates (or a scan).
 */
final class AttributeIndex {

  static final int MAX_RANGE_VALUES = 64;

  /** Code point order, the order the selector language compares strings in. */
  static final Comparator<String> CODE_POINT_ORDER = AttributeIndex::compareCodePoints;

  /** The lists of one attribute. */
  static final class Postings {
    final TreeMap<String, TreeSet<StoredMessage>> strings = new TreeMap<>(CODE_POINT_ORDER);
    final TreeMap<BigDecimal, TreeSet<StoredMessage>> numbers = new TreeMap<>();
  }

  private final Comparator<StoredMessage> order;
  private final Map<String, Postings> byAttribute = new HashMap<>();

  AttributeIndex(Set<String> attributes, Comparator<StoredMessage> order) {
    this.order = order;
    for (String name : attributes) {
      byAttribute.put(name, new Postings());
    }
  }

  Comparator<StoredMessage> order() {
    return order;
  }

  boolean isEmpty() {
    return byAttribute.isEmpty();
  }

  /** The lists of {@code attribute}, or null when it is not indexed. */
  Postings postings(String attribute) {
    return byAttribute.get(attribute);
  }

  void add(StoredMessage m) {
    update(m, true);
  }

  void remove(StoredMessage m) {
    update(m, false);
  }

  private void update(StoredMessage m, boolean add) {
    Object[] a = m.attributes;
    for (int i = 0; i < a.length; i += 2) {
      Postings p = byAttribute.get((String) a[i]);
      if (p == null) {
        continue;
      }
      switch ((AttributeValue) a[i + 1]) {
        case AttributeValue.StringValue s -> edit(p.strings, s.value(), m, add);
        case AttributeValue.NumberValue n -> edit(p.numbers, n.key(), m, add);
        case AttributeValue.StringListValue list -> {
          for (String element : list.value()) {
            edit(p.strings, element, m, add);
          }
        }
        case AttributeValue.BinaryValue b -> {}
      }
    }
  }

  private <K> void edit(
      TreeMap<K, TreeSet<StoredMessage>> map, K key, StoredMessage m, boolean add) {
    if (add) {
      map.computeIfAbsent(key, k -> new TreeSet<>(order)).add(m);
    } else {
      TreeSet<StoredMessage> set = map.get(key);
      if (set != null && set.remove(m) && set.isEmpty()) {
        map.remove(key);
      }
    }
  }

  void clear() {
    for (Postings p : byAttribute.values()) {
      p.strings.clear();
      p.numbers.clear();
    }
  }

  // ---- cursors ---------------------------------------------------------------------------

  /**
   * A sorted stream of candidates. {@code ceiling(k)}: the first candidate at or after {@code k}
   * ({@code null} k: the first of all), or null when there is none.
   */
  interface Cursor {
    StoredMessage ceiling(StoredMessage key);

    StoredMessage higher(StoredMessage key);
  }

  static Cursor list(TreeSet<StoredMessage> set) {
    return new Cursor() {
      @Override
      public StoredMessage ceiling(StoredMessage key) {
        return key == null ? (set.isEmpty() ? null : set.first()) : set.ceiling(key);
      }

      @Override
      public StoredMessage higher(StoredMessage key) {
        return key == null ? ceiling(null) : set.higher(key);
      }
    };
  }

  static final Cursor EMPTY =
      new Cursor() {
        @Override
        public StoredMessage ceiling(StoredMessage key) {
          return null;
        }

        @Override
        public StoredMessage higher(StoredMessage key) {
          return null;
        }
      };

  /** Candidates in any of the cursors: the least of their next candidates. */
  Cursor union(List<Cursor> cursors) {
    if (cursors.isEmpty()) {
      return EMPTY;
    }
    if (cursors.size() == 1) {
      return cursors.get(0);
    }
    return new Cursor() {
      @Override
      public StoredMessage ceiling(StoredMessage key) {
        StoredMessage best = null;
        for (Cursor c : cursors) {
          best = least(best, c.ceiling(key));
        }
        return best;
      }

      @Override
      public StoredMessage higher(StoredMessage key) {
        StoredMessage best = null;
        for (Cursor c : cursors) {
          best = least(best, c.higher(key));
        }
        return best;
      }
    };
  }

  /** Candidates in all of the cursors, found by leapfrogging: each skips to the others' next. */
  Cursor intersection(List<Cursor> cursors) {
    if (cursors.size() == 1) {
      return cursors.get(0);
    }
    return new Cursor() {
      @Override
      public StoredMessage ceiling(StoredMessage key) {
        return align(cursors.get(0).ceiling(key));
      }

      @Override
      public StoredMessage higher(StoredMessage key) {
        return align(cursors.get(0).higher(key));
      }

      private StoredMessage align(StoredMessage candidate) {
        int agreeing = 1;
        int i = 1;
        while (candidate != null && agreeing < cursors.size()) {
          StoredMessage next = cursors.get(i).ceiling(candidate);
          if (next == candidate) {
            agreeing++;
          } else {
            candidate = next;
            agreeing = 1;
          }
          i = (i + 1) % cursors.size();
        }
        return candidate;
      }
    };
  }

  private StoredMessage least(StoredMessage a, StoredMessage b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return order.compare(a, b) <= 0 ? a : b;
  }

  /**
   * A union over the lists of the keys in {@code range}, or null when it spans more than {@link
   * #MAX_RANGE_VALUES} keys (the caller then does without this predicate).
   */
  <K> Cursor range(NavigableMap<K, TreeSet<StoredMessage>> range) {
    if (range.size() > MAX_RANGE_VALUES) {
      return null;
    }
    List<Cursor> lists = new ArrayList<>(range.size());
    for (TreeSet<StoredMessage> set : range.values()) {
      lists.add(list(set));
    }
    return union(lists);
  }

  static int compareCodePoints(String a, String b) {
    int length = Math.min(a.length(), b.length());
    for (int i = 0; i < length; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y) {
        return rank(x) - rank(y);
      }
    }
    return a.length() - b.length();
  }

  /** Lifts surrogates above U+FFFF so that UTF-16 units compare in code point order. */
  private static int rank(char c) {
    return Character.isSurrogate(c) ? c + 0x10000 : c;
  }
}
