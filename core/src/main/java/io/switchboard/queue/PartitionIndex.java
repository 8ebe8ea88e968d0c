package io.switchboard.queue;

import io.switchboard.queue.spi.Partitions;
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

  /**
   * One combination of indexed values and its messages in the heap. With a hot window over a store
   * that keeps the partition lines ({@link HotWindow}), also how many of its available messages
   * only the store holds ({@link #cold}) and the place up to which the heap holds all of them
   * ({@link #boundary}): a partition with cold messages stays in the index, hot messages or not, so
   * the index is the catalogue of partitions with waiting messages.
   */
  static final class Partition implements Attributes {
    final List<Object> key;
    final TreeSet<StoredMessage> messages;
    private final Map<String, Object> values;
    private @Nullable String encoding;

    /** Available messages of the partition kept only in the store. */
    long cold;

    /**
     * While {@link #cold} is above zero: every available message of the partition up to this place
     * (a key copy) is in the heap, as is every one up to the hot window's boundary; null: only
     * those up to the hot window's boundary are known to be.
     */
    @Nullable StoredMessage boundary;

    Partition(List<Object> key, Map<String, Object> values, Comparator<StoredMessage> order) {
      this.key = key;
      this.values = values;
      this.messages = new TreeSet<>(order);
    }

    @Override
    public @Nullable Object valueOrNull(String name) {
      return values.get(name);
    }

    /** The partition's canonical encoding ({@link Partitions}), over {@code attributes}. */
    String encoding(List<String> attributes) {
      String e = encoding;
      if (e == null) {
        e =
            Objects.requireNonNull(
                Partitions.encode(attributes, name -> attributeValue(values.get(name))));
        encoding = e;
      }
      return e;
    }

    private static @Nullable AttributeValue attributeValue(@Nullable Object v) {
      return switch (v) {
        case null -> null;
        case String s -> AttributeValue.string(s);
        case BigDecimal d -> AttributeValue.number(d.toString());
        case List<?> l -> AttributeValue.stringList(l.stream().map(String::valueOf).toList());
        case AttributeValue.BinaryValue b -> b;
        default -> throw new IllegalStateException("not an indexed value: " + v);
      };
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

  /** The partition of {@code m}'s values, made when there is none. */
  Partition partitionOf(StoredMessage m) {
    List<Object> key = keyOf(m);
    Partition p = partitions.get(key);
    if (p == null) {
      p = newPartition(key);
      empty++;
    }
    return p;
  }

  /** The partition of an encoding ({@link Partitions}), made when there is none. */
  Partition partition(String encoding) {
    List<Object> key = java.util.Arrays.asList(Partitions.decode(encoding).toArray());
    Partition p = partitions.get(key);
    if (p == null) {
      p = newPartition(key);
      empty++;
    }
    return p;
  }

  /** The indexed attributes, in name order (the order of a partition's encoding). */
  List<String> attributes() {
    return attributes;
  }

  /** Every partition with messages only the store holds. */
  List<Partition> withCold() {
    List<Partition> out = new ArrayList<>();
    for (Partition p : partitions.values()) {
      if (p.cold > 0) {
        out.add(p);
      }
    }
    return out;
  }

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
      if (p.messages.isEmpty() && p.cold == 0) {
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
    return candidates(selector, after, null);
  }

  /**
   * As {@link #candidates(Selector, StoredMessage)}, over partitions of which the heap may hold
   * only a prefix ({@code backlog}, null: it holds every message): a partition's line is merged up
   * to its bound, and read on from the store when the merge reaches that bound.
   */
  @Nullable Iterable<StoredMessage> candidates(
      Selector selector, @Nullable StoredMessage after, @Nullable Backlog backlog) {
    Cached matching = matching(selector);
    if (matching == null) {
      return null;
    }
    return () -> merge(matching.partitions, after, backlog);
  }

  /** Whether the index answers {@code selector} from its partitions (not by walking the queue). */
  boolean serves(Selector selector) {
    return matching(selector) != null;
  }

  /**
   * The store's side of partitions of which the heap holds a prefix ({@link HotWindow}): a filtered
   * receive never takes a message while a cold one of its partition sorts before it.
   */
  interface Backlog {
    /** Whether the heap holds every available message of {@code p}. */
    boolean whole(Partition p);

    /**
     * When not {@link #whole}: the place up to which the heap holds every available message of
     * {@code p} (null: none is known to be held).
     */
    @Nullable StoredMessage bound(Partition p);

    /** Reads the next page of {@code p}'s cold messages into the heap. */
    void refill(Partition p);
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

  /**
   * Merges the partitions' messages after {@code after} into one stream in delivery order. A
   * partition the heap holds only a prefix of ({@code backlog}) takes part up to its bound, then
   * with a mark at the bound: when the mark comes first, the partition reads its next page from the
   * store and takes part again from where it stood.
   */
  private Iterator<StoredMessage> merge(
      List<Partition> parts, @Nullable StoredMessage after, @Nullable Backlog backlog) {
    /** A partition's next message, or (mark) the place where its held prefix ends. */
    record Head(@Nullable StoredMessage message, Partition partition, boolean mark) {}
    Comparator<Head> byPlace =
        (a, b) -> {
          if (a.message == null || b.message == null) {
            // a mark before every message: it comes first
            return a.message == null ? (b.message == null ? 0 : -1) : 1;
          }
          int c = order.compare(a.message, b.message);
          return c != 0 ? c : Boolean.compare(a.mark, b.mark);
        };
    PriorityQueue<Head> heads = new PriorityQueue<>(Math.max(1, parts.size()), byPlace);
    work.examined(parts.size());
    java.util.function.BiConsumer<Partition, @Nullable StoredMessage> enter =
        (p, from) -> {
          StoredMessage next =
              from == null
                  ? (p.messages.isEmpty() ? null : p.messages.first())
                  : p.messages.higher(from);
          if (backlog != null && !backlog.whole(p)) {
            StoredMessage bound = backlog.bound(p);
            if (next == null || bound == null || order.compare(next, bound) > 0) {
              heads.add(new Head(bound, p, true));
              return;
            }
          }
          if (next != null) {
            heads.add(new Head(next, p, false));
          }
        };
    Map<Partition, @Nullable StoredMessage> last = new HashMap<>();
    for (Partition p : parts) {
      last.put(p, after);
      enter.accept(p, after);
    }
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        Head h = heads.peek();
        while (h != null && h.mark) {
          heads.poll();
          Objects.requireNonNull(backlog).refill(h.partition);
          enter.accept(h.partition, last.get(h.partition));
          h = heads.peek();
        }
        return h != null;
      }

      @Override
      public StoredMessage next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        Head h = Objects.requireNonNull(heads.poll());
        StoredMessage m = Objects.requireNonNull(h.message);
        last.put(h.partition, m);
        enter.accept(h.partition, m);
        return m;
      }
    };
  }
}
