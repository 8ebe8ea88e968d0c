package io.switchboard.selector;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * A number literal prepared at parse time so that comparing it with a {@code long} or a {@code
 * double} from the lookup neither allocates nor loses exactness.
 *
 * <p>For longs: an integral constant in range compares directly; a fractional one lies strictly
 * between {@code floor} and {@code floor + 1}, so comparing with the floor decides; one outside the
 * long range is beyond every long. For doubles: {@code below} and {@code above} are the nearest
 * doubles on each side of the constant (the same double when it is exactly representable). No
 * double lies strictly between them, so a double is below the constant iff it is below {@code
 * above}, and above it iff above {@code below}.
 */
final class NumberConstant {

  private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

  final BigDecimal decimal;
  private final boolean integral;
  private final int outOfLongRange; // -1 below, 1 above, 0 within
  private final long floor;
  private final double below;
  private final double above;

  NumberConstant(BigDecimal decimal) {
    this.decimal = decimal;
    this.outOfLongRange =
        decimal.compareTo(LONG_MIN) < 0 ? -1 : (decimal.compareTo(LONG_MAX) > 0 ? 1 : 0);
    this.integral = outOfLongRange == 0 && decimal.stripTrailingZeros().scale() <= 0;
    this.floor = outOfLongRange == 0 ? floorWithinLongRange(decimal) : 0;
    double nearest = decimal.doubleValue();
    if (Double.isInfinite(nearest)) {
      this.below = nearest > 0 ? Double.MAX_VALUE : nearest;
      this.above = nearest > 0 ? nearest : -Double.MAX_VALUE;
    } else {
      int side = new BigDecimal(nearest).compareTo(decimal);
      this.below = side <= 0 ? nearest : Math.nextDown(nearest);
      this.above = side >= 0 ? nearest : Math.nextUp(nearest);
    }
  }

  /**
   * Rounds toward negative infinity. Numbers below 1 in magnitude are settled by their sign, so
   * that {@code setScale} never meets a literal such as {@code 1e-999999999}, whose rescaling would
   * compute a billion-digit power of ten.
   */
  private static long floorWithinLongRange(BigDecimal decimal) {
    if (decimal.precision() - decimal.scale() <= 0) { // |decimal| < 1
      return decimal.signum() < 0 ? -1 : 0;
    }
    return decimal.setScale(0, RoundingMode.FLOOR).longValueExact();
  }

  /** The sign of {@code value - this}, or {@link Values#MISMATCH} for NaN. */
  int compareFrom(Number value) {
    if (Numbers.isIntegral(value)) {
      return compareFromLong(value.longValue());
    }
    if (Numbers.isFloating(value)) {
      return compareFromDouble(value.doubleValue());
    }
    if (value instanceof BigDecimal other) {
      return Integer.signum(other.compareTo(decimal));
    }
    BigDecimal exact = Numbers.exactOrNull(value);
    return exact == null ? Values.MISMATCH : Integer.signum(exact.compareTo(decimal));
  }

  int compareFromLong(long value) {
    if (outOfLongRange != 0) {
      return -outOfLongRange;
    }
    if (integral) {
      return Long.compare(value, floor);
    }
    return value <= floor ? -1 : 1;
  }

  int compareFromDouble(double value) {
    if (Double.isNaN(value)) {
      return Values.MISMATCH;
    }
    if (value < above) {
      return -1;
    }
    return value > below ? 1 : 0;
  }

  @Override
  public String toString() {
    return decimal.toString();
  }
}
