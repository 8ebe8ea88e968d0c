package io.switchboard.storage.postgres;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.SelectorFilter;
import io.switchboard.selector.Expression;
import io.switchboard.selector.Operand;
import io.switchboard.selector.SystemFacts;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Filtered receive and browse pushed into SQL. Each message carries {@code idx}, a text array of
 * tokens for its indexed attributes ({@code name=value} and {@code name[value} for a string, {@code
 * name#number} for a number, {@code name[element} for each element of a string list), under a GIN
 * index. The indexable part of a selector becomes array containment on {@code idx}: {@code =} and
 * {@code IN} against literals, {@code HAS}, {@code HAS ANY}, {@code HAS ALL}; {@code AND} keeps its
 * indexable operands, {@code OR} only when every operand is indexable. What SQL selects is a
 * superset of the matches: the whole selector is still evaluated in Java on each candidate. Ranges,
 * {@code LIKE}, {@code NOT}, {@code <>}, {@code IS NULL} and system facts are evaluated in Java
 * only.
 */
final class Pushdown {

  /** A SQL condition on {@code idx} and its array parameters, in order. */
  record Condition(String sql, List<String[]> params) {}

  private Pushdown() {}

  /** Tokens of a message's indexed attributes, or null when it has none. */
  static String @Nullable [] tokens(Map<String, AttributeValue> attributes, Set<String> indexed) {
    if (indexed.isEmpty() || attributes.isEmpty()) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (String name : indexed) {
      switch (attributes.get(name)) {
        case null -> {}
        case AttributeValue.StringValue s -> {
          out.add(name + "=" + s.value());
          out.add(name + "[" + s.value()); // HAS on a single string tests that string
        }
        case AttributeValue.NumberValue n -> out.add(name + "#" + number(n.decimal()));
        case AttributeValue.StringListValue l -> l.value().forEach(v -> out.add(name + "[" + v));
        case AttributeValue.BinaryValue b -> {}
      }
    }
    return out.isEmpty() ? null : out.toArray(String[]::new);
  }

  private static String number(BigDecimal d) {
    return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
  }

  /** The indexable part of {@code filter} as a condition, or null when nothing narrows it. */
  static @Nullable Condition condition(@Nullable MessageFilter filter, Set<String> indexed) {
    if (!(filter instanceof SelectorFilter s) || indexed.isEmpty()) {
      return null;
    }
    List<String[]> params = new ArrayList<>();
    String sql = plan(s.selector().expression(), indexed, params);
    return sql == null ? null : new Condition(sql, params);
  }

  private static @Nullable String plan(Expression e, Set<String> indexed, List<String[]> params) {
    return switch (e) {
      case Expression.And and -> {
        List<String> parts = new ArrayList<>();
        for (Expression operand : and.operands()) {
          String p = plan(operand, indexed, params);
          if (p != null) {
            parts.add(p);
          }
        }
        yield parts.isEmpty() ? null : "(" + String.join(" and ", parts) + ")";
      }
      case Expression.Or or -> {
        List<String[]> mine = new ArrayList<>();
        List<String> parts = new ArrayList<>();
        for (Expression operand : or.operands()) {
          String p = plan(operand, indexed, mine);
          if (p == null) {
            yield null;
          }
          parts.add(p);
        }
        params.addAll(mine);
        yield "(" + String.join(" or ", parts) + ")";
      }
      case Expression.Comparison c -> {
        if (c.op() != Expression.Op.EQ) {
          yield null;
        }
        String name = indexedName(c.left(), indexed);
        Object literal = c.right() instanceof Operand.Literal l ? l.value() : null;
        if (name == null) {
          name = indexedName(c.right(), indexed);
          literal = c.left() instanceof Operand.Literal l ? l.value() : null;
        }
        String token = name == null ? null : token(name, literal, "=");
        yield token == null ? null : param(params, "idx @> ?", new String[] {token});
      }
      case Expression.In in -> {
        String name = in.negated() ? null : indexedName(in.operand(), indexed);
        List<String> tokens = name == null ? null : tokens(name, in.literals(), "=");
        yield tokens == null ? null : param(params, "idx && ?", tokens.toArray(String[]::new));
      }
      case Expression.Has has -> {
        String name = indexedName(has.operand(), indexed);
        List<String> tokens = name == null ? null : tokens(name, has.literals(), "[");
        if (tokens == null) {
          yield null;
        }
        String op = has.mode() == Expression.HasMode.ANY ? "idx && ?" : "idx @> ?";
        yield param(params, op, tokens.toArray(String[]::new));
      }
      default -> null;
    };
  }

  private static String param(List<String[]> params, String sql, String[] value) {
    params.add(value);
    return sql;
  }

  private static @Nullable String indexedName(Operand o, Set<String> indexed) {
    return o instanceof Operand.Identifier id
            && !id.name().startsWith(SystemFacts.PREFIX)
            && indexed.contains(id.name())
        ? id.name()
        : null;
  }

  private static @Nullable List<String> tokens(
      String name, List<Object> literals, String stringSep) {
    List<String> out = new ArrayList<>();
    for (Object literal : literals) {
      String t = token(name, literal, stringSep);
      if (t == null) {
        return null;
      }
      out.add(t);
    }
    return out;
  }

  /** The token a literal matches, or null when the literal is not a string or number. */
  private static @Nullable String token(String name, @Nullable Object literal, String stringSep) {
    return switch (literal) {
      case String s -> name + stringSep + s;
      case BigDecimal d when stringSep.equals("=") -> name + "#" + number(d);
      case null, default -> null;
    };
  }
}
