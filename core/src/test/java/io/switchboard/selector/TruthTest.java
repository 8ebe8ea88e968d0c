package io.switchboard.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** SQL's truth tables, through {@link Truth} and through selectors, over all nine combinations. */
class TruthTest {

  private static final Attributes NOTHING = Attributes.of(Map.of());

  /** A predicate that evaluates to {@code truth} on {@link #NOTHING}. */
  private static String predicate(Truth truth) {
    return switch (truth) {
      case TRUE -> "1 = 1";
      case FALSE -> "1 = 2";
      case UNKNOWN -> "missing = 1";
    };
  }

  static Stream<Arguments> table() {
    return Tables.rows(
        """
        # left    ==> right   ==> AND     ==> OR
        TRUE      ==> TRUE    ==> TRUE    ==> TRUE
        TRUE      ==> FALSE   ==> FALSE   ==> TRUE
        TRUE      ==> UNKNOWN ==> UNKNOWN ==> TRUE
        FALSE     ==> TRUE    ==> FALSE   ==> TRUE
        FALSE     ==> FALSE   ==> FALSE   ==> FALSE
        FALSE     ==> UNKNOWN ==> FALSE   ==> UNKNOWN
        UNKNOWN   ==> TRUE    ==> UNKNOWN ==> TRUE
        UNKNOWN   ==> FALSE   ==> FALSE   ==> UNKNOWN
        UNKNOWN   ==> UNKNOWN ==> UNKNOWN ==> UNKNOWN
        """,
        4);
  }

  @ParameterizedTest(name = "{0} AND/OR {1}")
  @MethodSource("table")
  void andOr_allCombinations_followSql(String left, String right, String and, String or) {
    Truth x = Truth.valueOf(left);
    Truth y = Truth.valueOf(right);

    assertEquals(Truth.valueOf(and), x.and(y));
    assertEquals(Truth.valueOf(or), x.or(y));
  }

  @ParameterizedTest(name = "{0} AND/OR {1}")
  @MethodSource("table")
  void evaluate_andOrOfPredicates_followSql(String left, String right, String and, String or) {
    String x = predicate(Truth.valueOf(left));
    String y = predicate(Truth.valueOf(right));

    assertEquals(Truth.valueOf(and), Selector.parse(x + " AND " + y).evaluate(NOTHING));
    assertEquals(Truth.valueOf(or), Selector.parse(x + " OR " + y).evaluate(NOTHING));
    assertEquals(
        Truth.valueOf(and), Selector.parse(x + " AND " + y + " AND 1 = 1").evaluate(NOTHING));
    assertEquals(Truth.valueOf(or), Selector.parse(x + " OR " + y + " OR 1 = 2").evaluate(NOTHING));
  }

  @ParameterizedTest
  @CsvSource({"TRUE, FALSE", "FALSE, TRUE", "UNKNOWN, UNKNOWN"})
  void not_eachValue_followsSql(Truth value, Truth negated) {
    assertEquals(negated, value.not());
    assertEquals(negated, Selector.parse("NOT " + predicate(value)).evaluate(NOTHING));
  }

  @ParameterizedTest
  @CsvSource({"true, TRUE", "false, FALSE"})
  void of_boolean_mapsToTruth(boolean value, Truth truth) {
    assertEquals(truth, Truth.of(value));
  }
}
