package io.switchboard.queue;

import io.switchboard.selector.Attributes;
import io.switchboard.selector.Selector;
import io.switchboard.selector.SystemFacts;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The attribute index: a queue's eligible messages partitioned by the values of its indexed
 * attributes, one partition per distinct combination, each sorted in delivery order.
 *
 * <p>A filtered receive first finds the partitions its selector can match: small posting lists from
 * attribute values to partitions give the candidates for the selector's indexable parts (equality,
 * {@code IN}, {@code HAS}, ranges, {@code LIKE 'prefix%'}), and when the selector reads indexed
 * attributes only, it is evaluated once per candidate partition, on the partition's values, instead
 * of once per message. Then it merges the heads of the matching partitions. The cost grows with the
 * number of matching partitions, not with the depth of the queue, however far back the first match
 * is (docs/design.md, "Filtered receive does not scan the queue"). Which partitions a selector
 * matches is cached until a new combination of values appears.
 *
 * <p>A selector that also reads unindexed attributes or system facts walks the merged candidate
 * partitions in order and tests each message; that walk is what the index cannot avoid.
 *
 * <p>Eligible means: in a standard queue, available; in a grouped queue, the head of a ready group.
 * A message's priority, sequence and attributes change only while it is out of the index. Empty
 * partitions are kept (a partition that empties and refills is common and cheap) until they
 * outnumber the others.
 */
final class PartitionIndex {

  /** Code point order, the order the selector language compares strings in. */
  static final Comparator<String> CODE_POINT_ORDER = Selector::compareStrings;

  private static final int MAX_RANGE_VALUES = 4096;
  private static final int CACHED_SELECTORS = 64;

  /** One combination of indexed values and its messages. */
  static final class Partition implements Attributes {
    final List<Object> key;
    final TreeSet<StoredMessage> messages;
    private final Map<String, Object> values;

    Partition(List<Object> key, Map<String, Object> values, Comparator<StoredMessage> order) {
      this.key = key;
      this.values = values;
      this.messages = new TreeSet<>(order);
    }

    @Override
    public @Nullable Object valueOrNull(String name) {
      return values.get(name);
    }
  }

  /** Partitions by the values of one attribute. */
  private static final class Postings {
    final TreeMap<String, Set<Partition>> strings = new TreeMap<>(CODE_POINT_ORDER);
    final TreeMap<BigDecimal, Set<Partition>> numbers = new TreeMap<>();
  }

  private record Cached(long version, List<Partition> partitions, boolean exact) {}

  private final List<String> attributes;
  private final Comparator<StoredMessage> order;
  private final HoldWork work;
  private final Map<List<Object>, Partition> partitions = new HashMap<>();
  private final Map<String, Postings> postings = new HashMap<>();
  private final Map<Selector, Cached> cache =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Selector, Cached> eldest) {
          return size() > CACHED_SELECTORS;
        }
      };
  private long version;
  private int empty;

  PartitionIndex(Set<String> attributes, Comparator<StoredMessage> order) {
    this(attributes, order, new HoldWork());
  }

  /**
   * {@code work} counts, for the hold of the queue's lock, the partitions a selector's plan and
   * each candidate walk's start go through (one step each, however few messages they hold).
   */
  PartitionIndex(Set<String> attributes, Comparator<StoredMessage> order, HoldWork work) {
    this.work = work;
    this.attributes = attributes.stream().sorted().toList();
    this.order = order;
    for (String a : this.attributes) {
      postings.put(a, new Postings());
    }
  }

  // ---- maintenance -----------------------------------------------------------------------

  void add(StoredMessage m) {
    List<Object> key = keyOf(m);
    Partition p = partitions.get(key);
    if (p == null) {
      p = newPartition(key);
    } else if (p.messages.isEmpty()) {
      empty--;
    }
    p.messages.add(m);
  }

  void remove(StoredMessage m) {
    Partition p = partitions.get(keyOf(m));
    if (p != null && p.messages.remove(m) && p.messages.isEmpty()) {
      empty++;
      if (empty > 64 && empty > partitions.size() / 2) {
        dropEmptyPartitions();
      }
    }
  }

  void clear() {
    partitions.clear();
    postings
        .values()
        .forEach(
            p -> {
              p.strings.clear();
              p.numbers.clear();
            });
    cache.clear();
    empty = 0;
    version++;
  }

  private List<Object> keyOf(StoredMessage m) {
    Object[] key = new Object[attributes.size()];
    for (int i = 0; i < key.length; i++) {
      key[i] = selectorValue(m.attributeOrNull(attributes.get(i)));
    }
    return java.util.Arrays.asList(key);
  }

  /** An attribute as the selector sees it; lists sorted, so [a, b] and [b, a] share a partition. */
  private static @Nullable Object selectorValue(@Nullable AttributeValue v) {
    return switch (v) {
      case null -> null;
      case AttributeValue.StringValue s -> s.value();
      case AttributeValue.NumberValue n -> n.decimal();
      case AttributeValue.StringListValue l -> l.value().stream().sorted().toList();
      case AttributeValue.BinaryValue b -> b;
    };
  }

  private Partition newPartition(List<Object> key) {
    Map<String, Object> values = new HashMap<>();
    for (int i = 0; i < key.size(); i++) {
      if (key.get(i) != null) {
        values.put(attributes.get(i), key.get(i));
      }
    }
    Partition p = new Partition(key, values, order);
    partitions.put(key, p);
    for (int i = 0; i < key.size(); i++) {
      post(Objects.requireNonNull(postings.get(attributes.get(i))), key.get(i), p, true);
    }
    version++;
    return p;
  }

  private static void post(Postings p, Object value, Partition partition, boolean add) {
    switch (value) {
      case String s -> edit(p.strings, s, partition, add);
      case BigDecimal d -> edit(p.numbers, d, partition, add);
      case List<?> list -> {
        for (Object element : list) {
          edit(p.strings, (String) element, partition, add);
        }
      }
      case null, default -> {}
    }
  }

  private static <K> void edit(TreeMap<K, Set<Partition>> map, K key, Partition p, boolean add) {
    if (add) {
      map.computeIfAbsent(key, k -> new HashSet<>()).add(p);
    } else {
      Set<Partition> set = map.get(key);
      if (set != null && set.remove(p) && set.isEmpty()) {
        map.remove(key);
      }
    }
  }

  private void dropEmptyPartitions() {
    Iterator<Partition> it = partitions.values().iterator();
    while (it.hasNext()) {
      Partition p = it.next();
      if (p.messages.isEmpty()) {
        it.remove();
        for (int i = 0; i < p.key.size(); i++) {
          post(Objects.requireNonNull(postings.get(attributes.get(i))), p.key.get(i), p, false);
        }
      }
    }
    empty = 0;
    version++;
  }

  // ---- queries ---------------------------------------------------------------------------

  /**
   * The eligible messages after {@code after} (null: from the first) that may match {@code
   * selector}, in delivery order; null when no indexed attribute narrows it down (the caller then
   * walks the queue). The caller still tests each candidate.
   */
  @Nullable Iterable<StoredMessage> candidates(Selector selector, @Nullable StoredMessage after) {
    Cached matching = matching(selector);
    if (matching == null) {
      return null;
    }
    return () -> merge(matching.partitions, after);
  }

  private @Nullable Cached matching(Selector selector) {
    Cached cached = cache.get(selector);
    if (cached != null && cached.version == version) {
      return cached;
    }
    Set<Partition> planned = PartitionPlanner.plan(selector.expression(), this);
    if (planned == null) {
      return null;
    }
    work.examined(planned.size());
    boolean exact = !selector.attributeNames().isEmpty() && readsIndexedOnly(selector);
    List<Partition> list = new ArrayList<>(planned.size());
    for (Partition p : planned) {
      if (!exact || selector.matches(p)) {
        list.add(p);
      }
    }
    cached = new Cached(version, list, exact);
    cache.put(selector, cached);
    return cached;
  }

  private boolean readsIndexedOnly(Selector selector) {
    for (String name : selector.attributeNames()) {
      if (!postings.containsKey(name) || name.startsWith(SystemFacts.PREFIX)) {
        return false;
      }
    }
    return true;
  }

  /** The partitions holding {@code value} of {@code attribute}; null if it is not indexed. */
  @Nullable Set<Partition> withValue(String attribute, Object value) {
    Postings p = postings.get(attribute);
    if (p == null) {
      return null;
    }
    Set<Partition> set =
        switch (value) {
          case String s -> p.strings.get(s);
          case BigDecimal d -> p.numbers.get(d);
          default -> Set.of();
        };
    return set == null ? Set.of() : set;
  }

  /** Partitions by string value of {@code attribute} (list elements too); null if not indexed. */
  java.util.@Nullable NavigableMap<String, Set<Partition>> strings(String attribute) {
    Postings p = postings.get(attribute);
    return p == null ? null : p.strings;
  }

  /** Partitions by number value of {@code attribute}; null if not indexed. */
  java.util.@Nullable NavigableMap<BigDecimal, Set<Partition>> numbers(String attribute) {
    Postings p = postings.get(attribute);
    return p == null ? null : p.numbers;
  }

  /** The union of a range of values' partitions; null (not worth it) past 4096 values. */
  static @Nullable Set<Partition> union(Map<?, Set<Partition>> range) {
    if (range.size() > MAX_RANGE_VALUES) {
      return null;
    }
    Set<Partition> out = new HashSet<>();
    range.values().forEach(out::addAll);
    return out;
  }

  Set<Partition> all() {
    return new HashSet<>(partitions.values());
  }

  boolean indexes(String attribute) {
    return postings.containsKey(attribute);
  }

  /** Merges the partitions' messages after {@code after} into one stream in delivery order. */
  private Iterator<StoredMessage> merge(List<Partition> parts, @Nullable StoredMessage after) {
    record Head(StoredMessage message, Partition partition) {}
    PriorityQueue<Head> heads =
        new PriorityQueue<>(
            Math.max(1, parts.size()), (a, b) -> order.compare(a.message, b.message));
    work.examined(parts.size());
    for (Partition p : parts) {
      StoredMessage first =
          after == null
              ? (p.messages.isEmpty() ? null : p.messages.first())
              : p.messages.higher(after);
      if (first != null) {
        heads.add(new Head(first, p));
      }
    }
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return !heads.isEmpty();
      }

      @Override
      public StoredMessage next() {
        Head h = heads.poll();
        if (h == null) {
          throw new NoSuchElementException();
        }
        StoredMessage following = h.partition.messages.higher(h.message);
        if (following != null) {
          heads.add(new Head(following, h.partition));
        }
        return h.message;
      }
    };
  }
}
