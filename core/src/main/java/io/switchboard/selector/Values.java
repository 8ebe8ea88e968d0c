package io.switchboard.selector;

import java.util.Collection;
import java.util.List;
import java.util.RandomAccess;
import org.jspecify.annotations.Nullable;

/**
 * The value semantics of the language. Operands evaluate to a {@link String}, a {@link Boolean}, a
 * {@link Number} from the lookup, a {@link NumberConstant} from the text, a collection, something
 * else, or {@code null} when missing. Comparisons yield a sign, or {@link #MISMATCH} when the two
 * values cannot be compared, which the operators turn into UNKNOWN.
 */
final class Values {

  /** Not a sign: the operands are missing, of different types, NaN, or not comparable at all. */
  static final int MISMATCH = Integer.MIN_VALUE;

  private Values() {}

  /** Whether IN, LIKE and comparisons accept {@code value}: not missing, not a list, not NaN. */
  static boolean isScalar(@Nullable Object value) {
    return value instanceof String
        || value instanceof Boolean
        || value instanceof NumberConstant
        || (value instanceof Number number && Numbers.isComparable(number));
  }

  /** Ordering of strings and numbers; booleans are unordered, so they mismatch here. */
  static int compare(@Nullable Object a, @Nullable Object b) {
    if (a instanceof String x) {
      return b instanceof String y ? Integer.signum(compareCodePoints(x, y)) : MISMATCH;
    }
    if (a instanceof NumberConstant x) {
      if (b instanceof NumberConstant y) {
        return Integer.signum(x.decimal.compareTo(y.decimal));
      }
      return b instanceof Number y ? negate(x.compareFrom(y)) : MISMATCH;
    }
    if (a instanceof Number x) {
      if (b instanceof NumberConstant y) {
        return y.compareFrom(x);
      }
      return b instanceof Number y ? Numbers.compare(x, y) : MISMATCH;
    }
    return MISMATCH;
  }

  /** {@code a = b}: like {@link #compare}, but booleans have equality. */
  static Truth equal(@Nullable Object a, @Nullable Object b) {
    if (a instanceof Boolean x) {
      return b instanceof Boolean y ? Truth.of(x.equals(y)) : Truth.UNKNOWN;
    }
    if (a instanceof String x) {
      return b instanceof String y ? Truth.of(x.equals(y)) : Truth.UNKNOWN;
    }
    int sign = compare(a, b);
    return sign == MISMATCH ? Truth.UNKNOWN : Truth.of(sign == 0);
  }

  /** Whether {@code element} of a list attribute equals {@code constant}. */
  static boolean sameValue(Object element, Object constant) {
    return equal(element, constant) == Truth.TRUE;
  }

  private static int negate(int sign) {
    return sign == MISMATCH ? MISMATCH : -sign;
  }

  /**
   * Compares by Unicode code point. {@link String#compareTo} compares UTF-16 units, which puts
   * U+E000..U+FFFF after the supplementary characters (U+10000 and up) encoded as surrogates; at
   * the first differing unit, lifting surrogates above U+FFFF restores code point order.
   */
  static int compareCodePoints(String a, String b) {
    int length = Math.min(a.length(), b.length());
    for (int i = 0; i < length; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y) {
        return codePointRank(x) - codePointRank(y);
      }
    }
    return a.length() - b.length();
  }

  private static int codePointRank(char c) {
    return Character.isSurrogate(c) ? c + 0x10000 : c;
  }

  /**
   * The elements of a HAS operand: a collection as it is, a string as a one-element list. Returns
   * {@code null} for anything else (numbers, booleans, missing), which HAS treats as UNKNOWN.
   */
  static @Nullable Object hasElements(@Nullable Object value) {
    return value instanceof String || value instanceof Collection<?> ? value : null;
  }

  /**
   * Whether {@code elements} (from {@link #hasElements}) holds a value equal to {@code constant}.
   */
  static boolean holds(Object elements, Object constant) {
    if (elements instanceof String single) {
      return sameValue(single, constant);
    }
    if (elements instanceof List<?> list && list instanceof RandomAccess) {
      for (int i = 0, n = list.size(); i < n; i++) {
        if (sameValue(list.get(i), constant)) {
          return true;
        }
      }
      return false;
    }
    for (Object element : (Collection<?>) elements) {
      if (sameValue(element, constant)) {
        return true;
      }
    }
    return false;
  }
}
