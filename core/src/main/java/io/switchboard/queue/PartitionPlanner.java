package io.switchboard.queue;

import io.switchboard.queue.PartitionIndex.Partition;
import io.switchboard.selector.Expression;
import io.switchboard.selector.Operand;
import io.switchboard.selector.Selector;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The partitions a selector may match, from the index's posting lists: a superset of the partitions
 * holding a match, or null when no indexed attribute narrows the selector down. Indexable: {@code
 * =}, {@code <}, {@code <=}, {@code >}, {@code >=}, {@code IN}, {@code BETWEEN}, {@code LIKE
 * 'prefix%'}, {@code HAS}/{@code HAS ANY}/{@code HAS ALL} between an indexed attribute and
 * literals; {@code AND} of anything with at least one indexable part (intersection); {@code OR} of
 * indexable parts only (union). {@code NOT}, {@code <>} and {@code IS NULL} narrow nothing.
 */
final class PartitionPlanner {

  private PartitionPlanner() {}

  static @Nullable Set<Partition> plan(Expression e, PartitionIndex index) {
    return switch (e) {
      case Expression.And and -> all(and.operands(), index);
      case Expression.Or or -> any(or.operands(), index);
      case Expression.Comparison c -> comparison(c, index);
      case Expression.In in -> in.negated() ? null : anyValue(in.operand(), in.literals(), index);
      case Expression.Between b -> b.negated() ? null : between(b, index);
      case Expression.Like like -> like.negated() ? null : like(like, index);
      case Expression.Has has -> has(has, index);
      case Expression.Not not -> null;
      case Expression.IsNull isNull -> null;
    };
  }

  private static @Nullable Set<Partition> all(List<Expression> operands, PartitionIndex index) {
    List<Set<Partition>> parts = new ArrayList<>();
    for (Expression operand : operands) {
      Set<Partition> p = plan(operand, index);
      if (p != null) {
        parts.add(p);
      }
    }
    return parts.isEmpty() ? null : intersect(parts);
  }

  private static @Nullable Set<Partition> any(List<Expression> operands, PartitionIndex index) {
    Set<Partition> out = new HashSet<>();
    for (Expression operand : operands) {
      Set<Partition> p = plan(operand, index);
      if (p == null) {
        return null;
      }
      out.addAll(p);
    }
    return out;
  }

  private static Set<Partition> intersect(List<Set<Partition>> parts) {
    parts.sort(Comparator.comparingInt(Set::size));
    Set<Partition> out = new HashSet<>(parts.get(0));
    for (int i = 1; i < parts.size() && !out.isEmpty(); i++) {
      out.retainAll(parts.get(i));
    }
    return out;
  }

  private static @Nullable Set<Partition> comparison(
      Expression.Comparison c, PartitionIndex index) {
    Expression.Op op = c.op();
    Operand attribute = c.left();
    Operand literal = c.right();
    if (attribute instanceof Operand.Literal && literal instanceof Operand.Identifier) {
      attribute = c.right();
      literal = c.left();
      op = flip(op);
    }
    if (!(attribute instanceof Operand.Identifier id)
        || !(literal instanceof Operand.Literal lit)
        || !index.indexes(id.name())
        || op == Expression.Op.NE) {
      return null;
    }
    if (op == Expression.Op.EQ) {
      return exact(index, id.name(), lit.value());
    }
    boolean lower = op == Expression.Op.GT || op == Expression.Op.GE;
    boolean inclusive = op == Expression.Op.GE || op == Expression.Op.LE;
    return switch (lit.value()) {
      case String s -> {
        NavigableMap<String, Set<Partition>> m = Objects.requireNonNull(index.strings(id.name()));
        yield PartitionIndex.union(lower ? m.tailMap(s, inclusive) : m.headMap(s, inclusive));
      }
      case BigDecimal d -> {
        NavigableMap<BigDecimal, Set<Partition>> m =
            Objects.requireNonNull(index.numbers(id.name()));
        yield PartitionIndex.union(lower ? m.tailMap(d, inclusive) : m.headMap(d, inclusive));
      }
      default -> null;
    };
  }

  private static Expression.Op flip(Expression.Op op) {
    return switch (op) {
      case LT -> Expression.Op.GT;
      case LE -> Expression.Op.GE;
      case GT -> Expression.Op.LT;
      case GE -> Expression.Op.LE;
      default -> op;
    };
  }

  /** Partitions where the attribute (or an element of it) equals {@code value}; null: no idea. */
  private static @Nullable Set<Partition> exact(
      PartitionIndex index, String attribute, Object value) {
    if (!(value instanceof String) && !(value instanceof BigDecimal)) {
      return null;
    }
    return index.withValue(attribute, value);
  }

  private static @Nullable Set<Partition> anyValue(
      Operand operand, List<Object> literals, PartitionIndex index) {
    if (!(operand instanceof Operand.Identifier id) || !index.indexes(id.name())) {
      return null;
    }
    Set<Partition> out = new HashSet<>();
    for (Object literal : literals) {
      Set<Partition> p = exact(index, id.name(), literal);
      if (p != null) {
        out.addAll(p);
      }
    }
    return out;
  }

  private static @Nullable Set<Partition> between(Expression.Between b, PartitionIndex index) {
    if (!(b.operand() instanceof Operand.Identifier id)
        || !(b.lower() instanceof Operand.Literal lo)
        || !(b.upper() instanceof Operand.Literal hi)
        || !index.indexes(id.name())) {
      return null;
    }
    if (lo.value() instanceof String l && hi.value() instanceof String h) {
      return Selector.compareStrings(l, h) > 0
          ? Set.of()
          : PartitionIndex.union(
              Objects.requireNonNull(index.strings(id.name())).subMap(l, true, h, true));
    }
    if (lo.value() instanceof BigDecimal l && hi.value() instanceof BigDecimal h) {
      return l.compareTo(h) > 0
          ? Set.of()
          : PartitionIndex.union(
              Objects.requireNonNull(index.numbers(id.name())).subMap(l, true, h, true));
    }
    return null;
  }

  /** {@code LIKE 'abc%...'}: only values starting with the literal prefix can match. */
  private static @Nullable Set<Partition> like(Expression.Like like, PartitionIndex index) {
    if (!(like.operand() instanceof Operand.Identifier id) || !index.indexes(id.name())) {
      return null;
    }
    String prefix = literalPrefix(like.pattern(), like.escape());
    if (prefix.isEmpty()) {
      return null;
    }
    TreeMap<String, Set<Partition>> matching = new TreeMap<>(PartitionIndex.CODE_POINT_ORDER);
    for (var e :
        Objects.requireNonNull(index.strings(id.name())).tailMap(prefix, true).entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      matching.put(e.getKey(), e.getValue());
    }
    return PartitionIndex.union(matching);
  }

  private static String literalPrefix(String pattern, Optional<String> escape) {
    StringBuilder prefix = new StringBuilder();
    char esc = escape.map(s -> s.charAt(0)).orElse('\uFFFF');
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (escape.isPresent() && c == esc && i + 1 < pattern.length()) {
        prefix.append(pattern.charAt(++i));
      } else if (c == '%' || c == '_') {
        break;
      } else {
        prefix.append(c);
      }
    }
    return prefix.toString();
  }

  private static @Nullable Set<Partition> has(Expression.Has has, PartitionIndex index) {
    if (!(has.operand() instanceof Operand.Identifier id) || !index.indexes(id.name())) {
      return null;
    }
    if (has.mode() != Expression.HasMode.ALL) {
      return anyValue(has.operand(), has.literals(), index);
    }
    List<Set<Partition>> parts = new ArrayList<>();
    for (Object literal : has.literals()) {
      Set<Partition> p = exact(index, id.name(), literal);
      if (p == null) {
        return null;
      }
      parts.add(p);
    }
    return intersect(parts);
  }
}
