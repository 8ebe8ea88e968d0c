package io.switchboard.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The allocation-free long and double paths against exact BigDecimal arithmetic. */
class NumberConstantTest {

  private static final long SEED = 42L;

  private static final List<String> CONSTANTS =
      List.of(
          "0",
          "1",
          "-1",
          "0.1",
          "-0.1",
          "0.5",
          "5.5",
          "-5.5",
          "1e-400",
          "-1e-400",
          "1e400",
          "-1e400",
          "9223372036854775807",
          "9223372036854775808",
          "-9223372036854775808",
          "-9223372036854775809",
          "9223372036854775806.5",
          "-9223372036854775807.5",
          "4.9E-324",
          "1.7976931348623157E+308",
          "1.7976931348623159E+308",
          "123.456",
          "9007199254740993",
          "0.30000000000000004",
          "1e-999999999",
          "1e999999999");

  @Test
  void compareFromDouble_edgeAndRandomDoubles_matchesExactComparison() {
    Random random = new Random(SEED);
    for (String text : CONSTANTS) {
      BigDecimal decimal = new BigDecimal(text);
      NumberConstant constant = new NumberConstant(decimal);
      for (double value : doublesAround(decimal.doubleValue(), random)) {
        assertEquals(
            exactSign(new BigDecimal(value), decimal),
            constant.compareFromDouble(value),
            () -> "seed " + SEED + ": " + value + " vs " + text);
      }
      assertEquals(1, constant.compareFromDouble(Double.POSITIVE_INFINITY), text);
      assertEquals(-1, constant.compareFromDouble(Double.NEGATIVE_INFINITY), text);
      assertEquals(Values.MISMATCH, constant.compareFromDouble(Double.NaN), text);
    }
  }

  @Test
  void compareFromLong_edgeAndRandomLongs_matchesExactComparison() {
    Random random = new Random(SEED);
    for (String text : CONSTANTS) {
      BigDecimal decimal = new BigDecimal(text);
      NumberConstant constant = new NumberConstant(decimal);
      List<Long> values = new ArrayList<>(List.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, 1L, -1L));
      if (decimal.abs().compareTo(new BigDecimal("1e19")) < 0) {
        long near = decimal.longValue();
        for (long delta = -2; delta <= 2; delta++) {
          values.add(near + delta);
        }
      }
      for (int i = 0; i < 100; i++) {
        values.add(random.nextLong());
      }
      for (long value : values) {
        assertEquals(
            exactSign(BigDecimal.valueOf(value), decimal),
            constant.compareFromLong(value),
            () -> value + " vs " + text);
      }
    }
  }

  private static List<Double> doublesAround(double nearest, Random random) {
    List<Double> values = new ArrayList<>();
    double down = nearest;
    double up = nearest;
    for (int i = 0; i < 3; i++) {
      values.add(down);
      values.add(up);
      down = Math.nextDown(down);
      up = Math.nextUp(up);
    }
    values.addAll(List.of(0.0, -0.0, Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_VALUE));
    for (int i = 0; i < 100; i++) {
      values.add(Double.longBitsToDouble(random.nextLong()));
      values.add(random.nextGaussian() * 10);
    }
    values.removeIf(v -> !Double.isFinite(v));
    return values;
  }

  private static int exactSign(BigDecimal value, BigDecimal constant) {
    return Integer.signum(value.compareTo(constant));
  }
}
