package io.switchboard.selector;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The semantics of the selector language written as plainly as possible, over the syntax tree and a
 * map, to check the compiled evaluator against: every number becomes an exact BigDecimal, LIKE
 * becomes a regular expression, strings compare as code point arrays. Slow and allocating on
 * purpose. Handles finite numbers only; NaN and infinities are covered by the tables.
 */
final class ReferenceEvaluator {

  private final Map<String, Object> attributes;

  private ReferenceEvaluator(Map<String, Object> attributes) {
    this.attributes = attributes;
  }

  static Truth evaluate(Expression expression, Map<String, Object> attributes) {
    return new ReferenceEvaluator(attributes).eval(expression);
  }

  private Truth eval(Expression expression) {
    return switch (expression) {
      case Expression.And and ->
          and.operands().stream().map(this::eval).reduce(Truth.TRUE, Truth::and);
      case Expression.Or or ->
          or.operands().stream().map(this::eval).reduce(Truth.FALSE, Truth::or);
      case Expression.Not not -> eval(not.operand()).not();
      case Expression.Comparison c -> compare(value(c.left()), c.op(), value(c.right()));
      case Expression.In in -> in(value(in.operand()), in.literals(), in.negated());
      case Expression.Between b -> between(b);
      case Expression.Like like ->
          like(value(like.operand()), like.pattern(), like.escape(), like.negated());
      case Expression.Has has -> has(value(has.operand()), has.mode(), has.literals());
      case Expression.IsNull isNull ->
          Truth.of((value(isNull.operand()) == null) != isNull.negated());
    };
  }

  private Object value(Operand operand) {
    return switch (operand) {
      case Operand.Identifier identifier -> normalize(attributes.get(identifier.name()));
      case Operand.Literal literal -> literal.value();
    };
  }

  /** Numbers become exact BigDecimals; everything else stays. */
  private static Object normalize(Object value) {
    return switch (value) {
      case BigDecimal decimal -> decimal;
      case Double d -> new BigDecimal(d);
      case Float f -> new BigDecimal(f);
      case Number n -> new BigDecimal(n.toString());
      case null, default -> value;
    };
  }

  private static Truth compare(Object left, Expression.Op op, Object right) {
    Integer sign = null;
    if (left instanceof BigDecimal x && right instanceof BigDecimal y) {
      sign = Integer.signum(x.compareTo(y));
    } else if (left instanceof String x && right instanceof String y) {
      sign = Integer.signum(Arrays.compare(x.codePoints().toArray(), y.codePoints().toArray()));
    } else if (left instanceof Boolean x && right instanceof Boolean y) {
      if (op == Expression.Op.EQ || op == Expression.Op.NE) {
        return Truth.of(x.equals(y) == (op == Expression.Op.EQ));
      }
    }
    if (sign == null) {
      return Truth.UNKNOWN;
    }
    return Truth.of(
        switch (op) {
          case EQ -> sign == 0;
          case NE -> sign != 0;
          case LT -> sign < 0;
          case LE -> sign <= 0;
          case GT -> sign > 0;
          case GE -> sign >= 0;
        });
  }

  private static boolean isScalar(Object value) {
    return value instanceof String || value instanceof BigDecimal || value instanceof Boolean;
  }

  private static Truth in(Object value, List<Object> literals, boolean negated) {
    if (!isScalar(value)) {
      return Truth.UNKNOWN;
    }
    boolean found =
        literals.stream().anyMatch(l -> compare(value, Expression.Op.EQ, l) == Truth.TRUE);
    return Truth.of(found != negated);
  }

  private Truth between(Expression.Between b) {
    Object value = value(b.operand());
    Truth within =
        compare(value, Expression.Op.GE, value(b.lower()))
            .and(compare(value, Expression.Op.LE, value(b.upper())));
    return b.negated() ? within.not() : within;
  }

  private static Truth like(
      Object value, String pattern, Optional<String> escape, boolean negated) {
    if (!(value instanceof String text)) {
      return Truth.UNKNOWN;
    }
    return Truth.of(likeRegex(pattern, escape).matcher(text).matches() != negated);
  }

  /** The LIKE pattern as a regular expression: the reference the matcher is held to. */
  static Pattern likeRegex(String pattern, Optional<String> escape) {
    int escapeChar = escape.map(e -> e.codePointAt(0)).orElse(-1);
    StringBuilder regex = new StringBuilder();
    int[] codePoints = pattern.codePoints().toArray();
    for (int i = 0; i < codePoints.length; i++) {
      int c = codePoints[i];
      if (c == escapeChar) {
        regex.append(Pattern.quote(Character.toString(codePoints[++i])));
      } else if (c == '%') {
        regex.append(".*");
      } else if (c == '_') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(Character.toString(c)));
      }
    }
    return Pattern.compile(regex.toString(), Pattern.DOTALL);
  }

  private static Truth has(Object value, Expression.HasMode mode, List<Object> literals) {
    List<Object> elements;
    if (value instanceof String s) {
      elements = List.of(s);
    } else if (value instanceof Collection<?> c) {
      elements = c.stream().map(ReferenceEvaluator::normalize).toList();
    } else {
      return Truth.UNKNOWN;
    }
    if (mode == Expression.HasMode.ALL) {
      return Truth.of(literals.stream().allMatch(l -> contains(elements, l)));
    }
    return Truth.of(literals.stream().anyMatch(l -> contains(elements, l)));
  }

  private static boolean contains(List<Object> elements, Object literal) {
    return elements.stream().anyMatch(e -> compare(e, Expression.Op.EQ, literal) == Truth.TRUE);
  }
}
