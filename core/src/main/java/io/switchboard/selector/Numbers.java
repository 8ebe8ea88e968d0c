package io.switchboard.selector;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Exact comparison of numbers of any class. {@code 1}, {@code 1L}, {@code 1.0d} and {@code
 * BigDecimal("1.00")} are all equal, and {@code 0.1d} is not {@code 0.1}: a double is compared by
 * the binary value it holds, as {@code new BigDecimal(double)} would see it. NaN compares to
 * nothing ({@link Values#MISMATCH}); infinities are beyond every finite number.
 */
final class Numbers {

  private Numbers() {}

  /** Whether {@code longValue()} gives the exact value without allocating. */
  static boolean isIntegral(Object value) {
    return value instanceof Long
        || value instanceof Integer
        || value instanceof Short
        || value instanceof Byte
        || value instanceof AtomicLong
        || value instanceof AtomicInteger;
  }

  static boolean isFloating(Object value) {
    return value instanceof Double || value instanceof Float;
  }

  /** Whether {@code value} is a number the selector can compare: anything but NaN. */
  static boolean isComparable(Number value) {
    return !(isFloating(value) && Double.isNaN(value.doubleValue()));
  }

  /** The exact decimal value, or {@code null} for NaN, infinities and unreadable numbers. */
  static @Nullable BigDecimal exactOrNull(Number number) {
    if (number instanceof BigDecimal decimal) {
      return decimal;
    }
    if (isIntegral(number)) {
      return BigDecimal.valueOf(number.longValue());
    }
    if (isFloating(number)) {
      double value = number.doubleValue();
      return Double.isFinite(value) ? new BigDecimal(value) : null;
    }
    if (number instanceof BigInteger integer) {
      return new BigDecimal(integer);
    }
    try {
      return new BigDecimal(number.toString()); // LongAdder, DoubleAdder and friends
    } catch (NumberFormatException notDecimal) {
      return null;
    }
  }

  /** The sign of {@code a - b}, or {@link Values#MISMATCH} when either cannot be compared. */
  static int compare(Number a, Number b) {
    if (isIntegral(a) && isIntegral(b)) {
      return Long.compare(a.longValue(), b.longValue());
    }
    if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
      return Integer.signum(x.compareTo(y));
    }
    if (!isComparable(a) || !isComparable(b)) {
      return Values.MISMATCH;
    }
    boolean infiniteA = isFloating(a) && Double.isInfinite(a.doubleValue());
    boolean infiniteB = isFloating(b) && Double.isInfinite(b.doubleValue());
    if (infiniteA || infiniteB || (isFloating(a) && isFloating(b))) {
      return compareDoubles(
          infiniteA || isFloating(a) ? a.doubleValue() : 0,
          infiniteB || isFloating(b) ? b.doubleValue() : 0,
          infiniteA,
          infiniteB);
    }
    BigDecimal x = exactOrNull(a);
    BigDecimal y = exactOrNull(b);
    return x == null || y == null ? Values.MISMATCH : Integer.signum(x.compareTo(y));
  }

  /**
   * Compares two doubles, or an infinity with a finite number of any class (whose value then does
   * not matter, so the caller passes 0). Unlike {@link Double#compare}, {@code -0.0 == 0.0}.
   */
  private static int compareDoubles(double x, double y, boolean infiniteX, boolean infiniteY) {
    if (infiniteX && !infiniteY) {
      return x > 0 ? 1 : -1;
    }
    if (infiniteY && !infiniteX) {
      return y > 0 ? -1 : 1;
    }
    return x < y ? -1 : (x > y ? 1 : 0);
  }
}
