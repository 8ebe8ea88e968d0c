package io.switchboard.selector;

import java.math.BigDecimal;
import java.util.Objects;

/** One side of a predicate: an attribute read through {@link Attributes}, or a constant. */
public sealed interface Operand {

  /** An attribute name, resolved at evaluation time; absent attributes read as missing. */
  record Identifier(String name) implements Operand {
    public Identifier {
      Objects.requireNonNull(name, "name");
      if (name.isEmpty()) {
        throw new IllegalArgumentException("identifier name must not be empty");
      }
    }
  }

  /**
   * A constant: a {@link String}, a {@link BigDecimal} or a {@link Boolean}. Any other {@link
   * Number} is converted exactly (a {@code double} keeps its binary value), and numbers lose their
   * trailing zeros, so {@code 1}, {@code 1.0} and {@code 1E+0} make equal literals.
   */
  record Literal(Object value) implements Operand {
    public Literal {
      value = canonical(value);
    }

    static Object canonical(Object value) {
      Objects.requireNonNull(value, "literal value");
      if (value instanceof String || value instanceof Boolean) {
        return value;
      }
      if (value instanceof Number number) {
        BigDecimal exact = Numbers.exactOrNull(number);
        if (exact == null) {
          throw new IllegalArgumentException("a number literal must be finite, got " + number);
        }
        return exact.stripTrailingZeros();
      }
      throw new IllegalArgumentException(
          "a literal must be a String, a Number or a Boolean, got " + value.getClass().getName());
    }
  }
}
