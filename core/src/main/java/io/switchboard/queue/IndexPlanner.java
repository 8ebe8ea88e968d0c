package io.switchboard.queue;

import io.switchboard.selector.Expression;
import io.switchboard.selector.Operand;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Turns a selector into a cursor over the {@link AttributeIndex}: a sorted stream of candidates
 * that contains every eligible message the selector accepts (and maybe others, which the full
 * selector then refuses). Indexable: {@code =}, {@code <}, {@code <=}, {@code >}, {@code >=},
 * {@code IN}, {@code BETWEEN}, {@code LIKE 'prefix%'} and {@code HAS}/{@code HAS ANY}/{@code HAS
 * ALL} between an indexed attribute and literals; {@code AND} of anything with at least one
 * indexable part; {@code OR} of indexable parts only. Everything else ({@code NOT}, {@code <>},
 * {@code IS NULL}, unindexed attributes) returns null: no cursor, so the caller scans.
 */
final class IndexPlanner {

  private IndexPlanner() {}

  static AttributeIndex.Cursor plan(Expression e, AttributeIndex index) {
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

  private static AttributeIndex.Cursor all(List<Expression> operands, AttributeIndex index) {
    List<AttributeIndex.Cursor> parts = new ArrayList<>();
    for (Expression operand : operands) {
      AttributeIndex.Cursor c = plan(operand, index);
      if (c == AttributeIndex.EMPTY) {
        return c;
      }
      if (c != null) {
        parts.add(c);
      }
    }
    return parts.isEmpty() ? null : index.intersection(parts);
  }

  private static AttributeIndex.Cursor any(List<Expression> operands, AttributeIndex index) {
    List<AttributeIndex.Cursor> parts = new ArrayList<>();
    for (Expression operand : operands) {
      AttributeIndex.Cursor c = plan(operand, index);
      if (c == null) {
        return null;
      }
      parts.add(c);
    }
    return index.union(parts);
  }

  private static AttributeIndex.Cursor comparison(Expression.Comparison c, AttributeIndex index) {
    Expression.Op op = c.op();
    Operand attribute = c.left();
    Operand literal = c.right();
    if (attribute instanceof Operand.Literal && literal instanceof Operand.Identifier) {
      attribute = c.right();
      literal = c.left();
      op = flip(op);
    }
    if (!(attribute instanceof Operand.Identifier id)
        || !(literal instanceof Operand.Literal lit)) {
      return null;
    }
    AttributeIndex.Postings p = index.postings(id.name());
    if (p == null || op == Expression.Op.NE) {
      return null;
    }
    if (op == Expression.Op.EQ) {
      return exact(p, lit.value());
    }
    boolean lower = op == Expression.Op.GT || op == Expression.Op.GE;
    boolean inclusive = op == Expression.Op.GE || op == Expression.Op.LE;
    return switch (lit.value()) {
      case String s ->
          index.range(lower ? p.strings.tailMap(s, inclusive) : p.strings.headMap(s, inclusive));
      case BigDecimal d ->
          index.range(lower ? p.numbers.tailMap(d, inclusive) : p.numbers.headMap(d, inclusive));
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

  private static AttributeIndex.Cursor exact(AttributeIndex.Postings p, Object value) {
    TreeSet<StoredMessage> set =
        switch (value) {
          case String s -> p.strings.get(s);
          case BigDecimal d -> p.numbers.get(d);
          default -> null;
        };
    if (!(value instanceof String) && !(value instanceof BigDecimal)) {
      return null;
    }
    return set == null ? AttributeIndex.EMPTY : AttributeIndex.list(set);
  }

  private static AttributeIndex.Cursor anyValue(
      Operand operand, List<Object> literals, AttributeIndex index) {
    if (!(operand instanceof Operand.Identifier id) || index.postings(id.name()) == null) {
      return null;
    }
    AttributeIndex.Postings p = index.postings(id.name());
    List<AttributeIndex.Cursor> parts = new ArrayList<>();
    for (Object literal : literals) {
      AttributeIndex.Cursor c = exact(p, literal);
      if (c != null && c != AttributeIndex.EMPTY) {
        parts.add(c);
      }
    }
    return index.union(parts);
  }

  private static AttributeIndex.Cursor between(Expression.Between b, AttributeIndex index) {
    if (!(b.operand() instanceof Operand.Identifier id)
        || !(b.lower() instanceof Operand.Literal lo)
        || !(b.upper() instanceof Operand.Literal hi)) {
      return null;
    }
    AttributeIndex.Postings p = index.postings(id.name());
    if (p == null) {
      return null;
    }
    if (lo.value() instanceof String l && hi.value() instanceof String h) {
      return AttributeIndex.compareCodePoints(l, h) > 0
          ? AttributeIndex.EMPTY
          : index.range(p.strings.subMap(l, true, h, true));
    }
    if (lo.value() instanceof BigDecimal l && hi.value() instanceof BigDecimal h) {
      return l.compareTo(h) > 0
          ? AttributeIndex.EMPTY
          : index.range(p.numbers.subMap(l, true, h, true));
    }
    return null;
  }

  /** {@code LIKE 'abc%...'}: only values starting with the literal prefix can match. */
  private static AttributeIndex.Cursor like(Expression.Like like, AttributeIndex index) {
    if (!(like.operand() instanceof Operand.Identifier id) || index.postings(id.name()) == null) {
      return null;
    }
    String prefix = literalPrefix(like.pattern(), like.escape());
    if (prefix.isEmpty()) {
      return null;
    }
    TreeMap<String, TreeSet<StoredMessage>> strings = index.postings(id.name()).strings;
    NavigableMap<String, TreeSet<StoredMessage>> tail = strings.tailMap(prefix, true);
    TreeMap<String, TreeSet<StoredMessage>> matching =
        new TreeMap<>(AttributeIndex.CODE_POINT_ORDER);
    for (var e : tail.entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      if (matching.size() > AttributeIndex.MAX_RANGE_VALUES) {
        return null;
      }
      matching.put(e.getKey(), e.getValue());
    }
    return index.range(matching);
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

  private static AttributeIndex.Cursor has(Expression.Has has, AttributeIndex index) {
    if (!(has.operand() instanceof Operand.Identifier id) || index.postings(id.name()) == null) {
      return null;
    }
    AttributeIndex.Postings p = index.postings(id.name());
    if (has.mode() != Expression.HasMode.ALL) {
      return anyValue(has.operand(), has.literals(), index);
    }
    List<AttributeIndex.Cursor> parts = new ArrayList<>();
    for (Object literal : has.literals()) {
      AttributeIndex.Cursor c = exact(p, literal);
      if (c == null || c == AttributeIndex.EMPTY) {
        return c == null ? null : AttributeIndex.EMPTY;
      }
      parts.add(c);
    }
    return index.intersection(parts);
  }
}
