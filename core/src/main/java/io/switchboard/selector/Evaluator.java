package io.switchboard.selector;

import io.switchboard.selector.Expression.HasMode;
import io.switchboard.selector.Expression.Op;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.RandomAccess;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Compiles a tree into nodes that evaluate without allocating: literals become ready-made values
 * ({@link NumberConstant}, strings, booleans), LIKE patterns are compiled, and literal lists become
 * hash sets and sorted arrays. Semantics live in {@link Values}; this class wires them to the
 * three-valued operators.
 */
final class Evaluator {

  private Evaluator() {}

  interface Node {
    Truth evaluate(Attributes attributes);
  }

  /**
   * An operand at evaluation time: the attribute's value ({@code null} if missing) or a constant.
   */
  private interface Term {
    @Nullable Object value(Attributes attributes);
  }

  private record Attribute(String name) implements Term {
    @Override
    public @Nullable Object value(Attributes attributes) {
      return attributes.valueOrNull(name);
    }
  }

  private record Constant(Object value) implements Term {
    @Override
    public Object value(Attributes attributes) {
      return value;
    }
  }

  static Node compile(Expression expression) {
    return switch (expression) {
      case Expression.And and -> new AllOf(compileAll(and.operands()));
      case Expression.Or or -> new AnyOf(compileAll(or.operands()));
      case Expression.Not not -> new Negation(compile(not.operand()));
      case Expression.Comparison c -> new Compare(term(c.left()), c.op(), term(c.right()));
      case Expression.In in ->
          new Membership(term(in.operand()), ConstantSet.of(in.literals()), in.negated());
      case Expression.Between b ->
          new Range(term(b.operand()), term(b.lower()), term(b.upper()), b.negated());
      case Expression.Like like ->
          new Matching(
              term(like.operand()),
              LikePattern.compile(like.pattern(), like.escape()),
              like.negated());
      case Expression.Has has ->
          new Containment(
              term(has.operand()),
              has.mode() == HasMode.ALL,
              ConstantSet.of(has.literals()),
              constants(new LinkedHashSet<>(has.literals())));
      case Expression.IsNull isNull -> new Missing(term(isNull.operand()), isNull.negated());
    };
  }

  private static Node[] compileAll(List<Expression> operands) {
    return operands.stream().map(Evaluator::compile).toArray(Node[]::new);
  }

  private static Term term(Operand operand) {
    return switch (operand) {
      case Operand.Identifier identifier -> new Attribute(identifier.name());
      case Operand.Literal literal -> new Constant(constant(literal.value()));
    };
  }

  private static Object constant(Object literal) {
    return literal instanceof BigDecimal number ? new NumberConstant(number) : literal;
  }

  private static Object[] constants(Collection<Object> literals) {
    return literals.stream().map(Evaluator::constant).toArray();
  }

  private record AllOf(Node[] operands) implements Node {
    @Override
    public Truth evaluate(Attributes attributes) {
      Truth result = Truth.TRUE;
      for (Node operand : operands) {
        Truth truth = operand.evaluate(attributes);
        if (truth == Truth.FALSE) {
          return Truth.FALSE;
        }
        if (truth == Truth.UNKNOWN) {
          result = Truth.UNKNOWN;
        }
      }
      return result;
    }
  }

  private record AnyOf(Node[] operands) implements Node {
    @Override
    public Truth evaluate(Attributes attributes) {
      Truth result = Truth.FALSE;
      for (Node operand : operands) {
        Truth truth = operand.evaluate(attributes);
        if (truth == Truth.TRUE) {
          return Truth.TRUE;
        }
        if (truth == Truth.UNKNOWN) {
          result = Truth.UNKNOWN;
        }
      }
      return result;
    }
  }

  private record Negation(Node operand) implements Node {
    @Override
    public Truth evaluate(Attributes attributes) {
      return operand.evaluate(attributes).not();
    }
  }

  private record Compare(Term left, Op op, Term right) implements Node {
    @Override
    public Truth evaluate(Attributes attributes) {
      return compare(left.value(attributes), op, right.value(attributes));
    }
  }

  static Truth compare(@Nullable Object left, Op op, @Nullable Object right) {
    if (op == Op.EQ) {
      return Values.equal(left, right);
    }
    if (op == Op.NE) {
      return Values.equal(left, right).not();
    }
    int sign = Values.compare(left, right);
    if (sign == Values.MISMATCH) {
      return Truth.UNKNOWN;
    }
    return Truth.of(
        switch (op) {
          case LT -> sign < 0;
          case LE -> sign <= 0;
          case GT -> sign > 0;
          case GE -> sign >= 0;
          case EQ, NE -> throw new AssertionError(op);
        });
  }

  private record Membership(Term operand, ConstantSet set, boolean negated) implements Node {
    @Override
    public Truth evaluate(Attributes attributes) {
      Object value = operand.value(attributes);
      if (value == null || !Values.isScalar(value)) {
        return Truth.UNKNOWN;
      }
      return Truth.of(set.contains(value) != negated);
    }
  }

  /** {@code x BETWEEN a AND b} is {@code x >= a AND x <= b}, in three-valued logic. */
  private record Range(Term operand, Term lower, Term upper, boolean negated) implements Node {
    @Override
    public Truth evaluate(Attributes attributes) {
      Object value = operand.value(attributes);
      Truth within =
          compare(value, Op.GE, lower.value(attributes))
              .and(compare(value, Op.LE, upper.value(attributes)));
      return negated ? within.not() : within;
    }
  }

  private record Matching(Term operand, LikePattern pattern, boolean negated) implements Node {
    @Override
    public Truth evaluate(Attributes attributes) {
      return operand.value(attributes) instanceof String text
          ? Truth.of(pattern.matches(text) != negated)
          : Truth.UNKNOWN;
    }
  }

  /** HAS / HAS ANY look each element up in the set; HAS ALL looks each constant up in the list. */
  private record Containment(Term operand, boolean all, ConstantSet set, Object[] distinct)
      implements Node {

    private static final int HASH_ABOVE = 16;

    @Override
    public Truth evaluate(Attributes attributes) {
      Object elements = Values.hasElements(operand.value(attributes));
      if (elements == null) {
        return Truth.UNKNOWN;
      }
      if (all) {
        return Truth.of(holdsAll(elements));
      }
      return Truth.of(anyIn(elements));
    }

    /**
     * Every constant is in the list. A long list is hashed once, so the cost is list plus
     * constants, not their product (a selector may hold a thousand constants, a list far more).
     */
    private boolean holdsAll(Object elements) {
      if (elements instanceof Collection<?> list
          && list.size() > HASH_ABOVE
          && distinct.length > 1) {
        Set<Object> present = new HashSet<>(list);
        for (Object constant : distinct) {
          boolean found =
              constant instanceof String
                  ? present.contains(constant)
                  : Values.holds(list, constant);
          if (!found) {
            return false;
          }
        }
        return true;
      }
      for (Object constant : distinct) {
        if (!Values.holds(elements, constant)) {
          return false;
        }
      }
      return true;
    }

    private boolean anyIn(Object elements) {
      if (elements instanceof String single) {
        return set.contains(single);
      }
      if (elements instanceof List<?> list && list instanceof RandomAccess) {
        for (int i = 0, n = list.size(); i < n; i++) {
          if (set.contains(list.get(i))) {
            return true;
          }
        }
        return false;
      }
      for (Object element : (Collection<?>) elements) {
        if (set.contains(element)) {
          return true;
        }
      }
      return false;
    }
  }

  private record Missing(Term operand, boolean negated) implements Node {
    @Override
    public Truth evaluate(Attributes attributes) {
      return Truth.of((operand.value(attributes) == null) != negated);
    }
  }

  /**
   * The literals of IN and HAS, indexed by type: strings in a hash set, integral numbers in a
   * sorted array (so a {@code Long} from the lookup is found without boxing or allocation), every
   * number in a second sorted array, searched by exact comparison, for the other numeric classes. A
   * lookup costs O(1) or O(log k) for k literals. A value of another type is simply not in it.
   */
  private record ConstantSet(
      Set<String> strings,
      long[] integers,
      NumberConstant[] numbers,
      boolean hasTrue,
      boolean hasFalse) {

    static ConstantSet of(List<Object> literals) {
      Set<String> strings = new HashSet<>();
      List<NumberConstant> numbers = new ArrayList<>();
      List<Long> integers = new ArrayList<>();
      for (Object literal : literals) {
        if (literal instanceof String string) {
          strings.add(string);
        } else if (literal instanceof BigDecimal number) {
          numbers.add(new NumberConstant(number));
          addIfLong(number, integers);
        }
      }
      long[] sorted = integers.stream().mapToLong(Long::longValue).sorted().toArray();
      return new ConstantSet(
          Set.copyOf(strings),
          sorted,
          numbers.stream()
              .sorted((a, b) -> a.decimal.compareTo(b.decimal))
              .toArray(NumberConstant[]::new),
          literals.contains(Boolean.TRUE),
          literals.contains(Boolean.FALSE));
    }

    private static void addIfLong(BigDecimal number, List<Long> integers) {
      if (number.scale() <= 0 && number.precision() - number.scale() <= 19) {
        try {
          integers.add(number.longValueExact());
        } catch (ArithmeticException outOfLongRange) {
          // beyond every long: no Long from the lookup can equal it
        }
      }
    }

    boolean contains(Object value) {
      if (value instanceof String string) {
        return strings.contains(string);
      }
      if (value instanceof Boolean bool) {
        return bool ? hasTrue : hasFalse;
      }
      if (Numbers.isIntegral(value)) {
        return Arrays.binarySearch(integers, ((Number) value).longValue()) >= 0;
      }
      int low = 0;
      int high = numbers.length - 1;
      while (low <= high) {
        int middle = (low + high) >>> 1;
        int sign = Values.compare(value, numbers[middle]);
        if (sign == Values.MISMATCH) {
          return false;
        }
        if (sign == 0) {
          return true;
        }
        if (sign < 0) {
          high = middle - 1;
        } else {
          low = middle + 1;
        }
      }
      return false;
    }
  }
}
