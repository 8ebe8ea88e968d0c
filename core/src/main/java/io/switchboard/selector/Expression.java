package io.switchboard.selector;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The syntax tree of a selector, as {@link Selector#parse} builds it. Public so that planners can
 * look inside, for example an attribute index that serves equality, {@code IN}, {@code HAS} and
 * ranges on identifiers.
 *
 * <p>The tree is canonical, so that equal trees mean equal selectors more often: {@code AND} and
 * {@code OR} are flattened ({@code a = 1 AND (b = 2 AND c = 3)} is one {@link And} of three) and
 * number literals drop trailing zeros ({@link Operand.Literal}). Lists of literals hold the values
 * themselves ({@link String}, {@link java.math.BigDecimal}, {@link Boolean}), not {@link
 * Operand.Literal} wrappers.
 */
public sealed interface Expression {

  /** Comparison operators. {@code !=} parses as {@link #NE}, which renders as {@code <>}. */
  enum Op {
    EQ("="),
    NE("<>"),
    LT("<"),
    LE("<="),
    GT(">"),
    GE(">=");

    private final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }

    /** How the operator is written in normalized text. */
    public String symbol() {
      return symbol;
    }
  }

  /** {@code HAS x}, {@code HAS ANY (..)} or {@code HAS ALL (..)}. */
  enum HasMode {
    ONE,
    ANY,
    ALL
  }

  /** Two or more operands, all of which must be TRUE. Nested {@code And}s are flattened. */
  record And(List<Expression> operands) implements Expression {
    public And {
      operands = flatten(operands, true);
    }
  }

  /** Two or more operands, one of which must be TRUE. Nested {@code Or}s are flattened. */
  record Or(List<Expression> operands) implements Expression {
    public Or {
      operands = flatten(operands, false);
    }
  }

  record Not(Expression operand) implements Expression {
    public Not {
      Objects.requireNonNull(operand, "operand");
    }
  }

  record Comparison(Operand left, Op op, Operand right) implements Expression {
    public Comparison {
      Objects.requireNonNull(left, "left");
      Objects.requireNonNull(op, "op");
      Objects.requireNonNull(right, "right");
    }
  }

  /** {@code operand [NOT] IN (literals)}. */
  record In(Operand operand, List<Object> literals, boolean negated) implements Expression {
    public In {
      Objects.requireNonNull(operand, "operand");
      literals = canonicalLiterals(literals);
    }
  }

  /** {@code operand [NOT] BETWEEN lower AND upper}, bounds included. */
  record Between(Operand operand, Operand lower, Operand upper, boolean negated)
      implements Expression {
    public Between {
      Objects.requireNonNull(operand, "operand");
      Objects.requireNonNull(lower, "lower");
      Objects.requireNonNull(upper, "upper");
    }
  }

  /**
   * {@code operand [NOT] LIKE 'pattern' [ESCAPE 'c']}: {@code %} is any sequence, {@code _} one
   * character; the escape character, when there is one, makes the next {@code %}, {@code _} or
   * itself literal.
   */
  record Like(Operand operand, String pattern, Optional<String> escape, boolean negated)
      implements Expression {
    public Like {
      Objects.requireNonNull(operand, "operand");
      Objects.requireNonNull(escape, "escape");
      LikePattern.compile(pattern, escape); // refuses a malformed pattern
    }
  }

  /** {@code operand HAS x}, {@code operand HAS ANY (..)}, {@code operand HAS ALL (..)}. */
  record Has(Operand operand, HasMode mode, List<Object> literals) implements Expression {
    public Has {
      Objects.requireNonNull(operand, "operand");
      Objects.requireNonNull(mode, "mode");
      literals = canonicalLiterals(literals);
      if (mode == HasMode.ONE && literals.size() != 1) {
        throw new IllegalArgumentException("HAS takes exactly one literal, got " + literals.size());
      }
    }
  }

  /** {@code operand IS [NOT] NULL}: whether the attribute is missing. Never UNKNOWN. */
  record IsNull(Operand operand, boolean negated) implements Expression {
    public IsNull {
      Objects.requireNonNull(operand, "operand");
    }
  }

  private static List<Expression> flatten(List<Expression> operands, boolean and) {
    List<Expression> flat = new ArrayList<>(operands.size());
    for (Expression operand : operands) {
      Objects.requireNonNull(operand, "operand");
      if (and && operand instanceof And nested) {
        flat.addAll(nested.operands());
      } else if (!and && operand instanceof Or nested) {
        flat.addAll(nested.operands());
      } else {
        flat.add(operand);
      }
    }
    if (flat.size() < 2) {
      throw new IllegalArgumentException(
          (and ? "AND" : "OR") + " needs at least 2 operands, got " + flat.size());
    }
    return List.copyOf(flat);
  }

  private static List<Object> canonicalLiterals(List<Object> literals) {
    if (literals.isEmpty()) {
      throw new IllegalArgumentException("a literal list must not be empty");
    }
    List<Object> canonical = new ArrayList<>(literals.size());
    for (Object literal : literals) {
      canonical.add(Operand.Literal.canonical(literal));
    }
    return List.copyOf(canonical);
  }
}
