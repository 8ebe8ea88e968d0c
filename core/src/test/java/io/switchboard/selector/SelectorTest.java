package io.switchboard.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.selector.Expression.And;
import io.switchboard.selector.Expression.Comparison;
import io.switchboard.selector.Expression.Has;
import io.switchboard.selector.Expression.HasMode;
import io.switchboard.selector.Expression.In;
import io.switchboard.selector.Expression.Like;
import io.switchboard.selector.Expression.Not;
import io.switchboard.selector.Expression.Op;
import io.switchboard.selector.Expression.Or;
import io.switchboard.selector.Operand.Identifier;
import io.switchboard.selector.Operand.Literal;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SelectorTest {

  @Test
  void expression_parsedText_isTheExpectedTree() {
    Selector selector =
        Selector.parse(
            "language = 'es' AND (skills HAS ALL ('billing', 'spanish') OR NOT vip = TRUE)");

    assertEquals(
        new And(
            List.of(
                new Comparison(new Identifier("language"), Op.EQ, new Literal("es")),
                new Or(
                    List.of(
                        new Has(
                            new Identifier("skills"), HasMode.ALL, List.of("billing", "spanish")),
                        new Not(
                            new Comparison(new Identifier("vip"), Op.EQ, new Literal(true))))))),
        selector.expression());
  }

  @Test
  void equals_sameTreeDifferentSpelling_isEqual() {
    Selector a = Selector.parse("a=1.0 and b!='x' or c in (1,2)");
    Selector b = Selector.parse("(A_unused = 1 OR TRUE = TRUE) AND a = 1");
    Selector c = Selector.parse("((a = 1 AND b <> 'x')) OR c IN (1, 2.00)");

    assertEquals(a, c);
    assertEquals(a.hashCode(), c.hashCode());
    assertNotEquals(a, b);
    assertEquals("a=1.0 and b!='x' or c in (1,2)", a.toString());
    assertEquals("a=1.0 and b!='x' or c in (1,2)", a.text());
    assertEquals("a = 1 AND b <> 'x' OR c IN (1, 2)", a.normalized());
  }

  @Test
  void attributeNames_everyIdentifier_inOrderOfAppearance() {
    Selector selector =
        Selector.parse(
            "b = a AND \"my attr\" IN (1) OR x BETWEEN lo AND hi OR s LIKE 'x' OR l HAS 'y'"
                + " OR sys.age IS NULL OR 'lit' = b");

    assertEquals(
        List.of("b", "a", "my attr", "x", "lo", "hi", "s", "l", "sys.age"),
        List.copyOf(selector.attributeNames()));
    assertThrows(UnsupportedOperationException.class, () -> selector.attributeNames().add("z"));
  }

  @Test
  void matches_onlyTrue_matches() {
    Selector selector = Selector.parse("priority > 5");

    assertTrue(selector.matches(Attributes.of(Map.of("priority", 6))));
    assertFalse(selector.matches(Attributes.of(Map.of("priority", 5))));
    assertFalse(selector.matches(Attributes.of(Map.of())));
  }

  @Test
  void attributesOf_map_isALiveView() {
    Map<String, Object> map = new HashMap<>();
    Attributes attributes = Attributes.of(map);
    Selector selector = Selector.parse("a IS NULL");

    assertEquals(Truth.TRUE, selector.evaluate(attributes));
    map.put("a", 1);
    assertEquals(Truth.FALSE, selector.evaluate(attributes));
  }

  @Test
  void systemFacts_names_areReservedAndReadLikeAttributes() {
    assertEquals(
        Set.of("sys.priority", "sys.groupId", "sys.age", "sys.receiveCount", "sys.sentAt"),
        SystemFacts.names());
    assertTrue(SystemFacts.names().stream().allMatch(SystemFacts::isReserved));
    assertFalse(SystemFacts.isReserved("system"));

    Selector selector = Selector.parse("sys.age > 60 AND sys.receiveCount < 3");
    assertTrue(
        selector.matches(
            Attributes.of(Map.of(SystemFacts.AGE, 61L, SystemFacts.RECEIVE_COUNT, 0))));
  }

  @Test
  void literal_anyNumberClass_isCanonicalBigDecimal() {
    assertEquals(new Literal(BigDecimal.ONE), new Literal(1));
    assertEquals(new Literal(new BigDecimal("1.00")), new Literal(1L));
    assertEquals(new Literal(new BigDecimal("0.5")), new Literal(0.5d));
    assertEquals(new BigDecimal(0.1d), new Literal(0.1d).value());
    assertEquals(
        List.of(BigDecimal.ONE, "x"),
        new In(new Identifier("a"), List.of(1, "x"), false).literals());
  }

  @Test
  void literal_badValue_isRefused() {
    assertThrows(IllegalArgumentException.class, () -> new Literal(Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> new Literal(Double.POSITIVE_INFINITY));
    assertThrows(IllegalArgumentException.class, () -> new Literal(List.of("x")));
    assertThrows(NullPointerException.class, () -> new Literal(null));
    assertThrows(IllegalArgumentException.class, () -> new Identifier(""));
  }

  @Test
  void andOr_nested_areFlattenedAndNeedTwoOperands() {
    Expression x = new Comparison(new Identifier("x"), Op.EQ, new Literal(1));
    Expression y = new Comparison(new Identifier("y"), Op.EQ, new Literal(2));

    assertEquals(new And(List.of(x, y, x)), new And(List.of(x, new And(List.of(y, x)))));
    assertEquals(3, new Or(List.of(new Or(List.of(x, y)), x)).operands().size());
    assertEquals(2, new And(List.of(new Or(List.of(x, y)), x)).operands().size());
    assertThrows(IllegalArgumentException.class, () -> new And(List.of(x)));
    assertThrows(IllegalArgumentException.class, () -> new Or(List.of()));
  }

  @Test
  void listsAndPatterns_invalid_areRefused() {
    Identifier a = new Identifier("a");

    assertThrows(IllegalArgumentException.class, () -> new In(a, List.of(), false));
    assertThrows(IllegalArgumentException.class, () -> new Has(a, HasMode.ONE, List.of("x", "y")));
    assertThrows(IllegalArgumentException.class, () -> new Has(a, HasMode.ANY, List.of()));
    assertThrows(IllegalArgumentException.class, () -> new Like(a, "x!", Optional.of("!"), false));
    assertThrows(IllegalArgumentException.class, () -> new Like(a, "x", Optional.of("!!"), false));
  }

  @Test
  void exception_accessors_areStable() {
    SelectorException error =
        assertThrows(SelectorException.class, () -> Selector.parse("a = 1 b"));

    assertEquals("INVALID_SELECTOR", error.code());
    assertEquals(SelectorException.CODE, error.code());
    assertEquals(7, error.column());
    assertEquals("expected AND, OR or end of input, found identifier b", error.reason());
    assertEquals(
        "selector error at column 7: expected AND, OR or end of input, found identifier b",
        error.getMessage());
    assertTrue(error instanceof IllegalArgumentException);
  }

  @Test
  void parse_examplesFromTheDocs_matchAsDocumented() {
    Map<String, Object> agent =
        Map.of(
            "language", "es",
            "gender", "M",
            "skills", List.of("billing", "spanish"),
            "proficiency", 4,
            "region", "emea");

    assertTrue(Selector.parse("language = 'es' AND gender = 'M'").matches(Attributes.of(agent)));
    assertTrue(
        Selector.parse("skills HAS ALL ('billing', 'spanish') AND proficiency >= 3")
            .matches(Attributes.of(agent)));
    assertEquals(
        Truth.UNKNOWN,
        Selector.parse("priority > 5 OR (region IN ('emea', 'apac') AND NOT vip = TRUE)")
            .evaluate(Attributes.of(agent)));
    assertEquals(Truth.FALSE, Selector.parse("NOT region = 'emea'").evaluate(Attributes.of(agent)));
    assertEquals(
        Truth.TRUE,
        Selector.parse("region2 IS NULL OR NOT region2 = 'emea'").evaluate(Attributes.of(agent)));
  }

  @Test
  void parse_null_isRefused() {
    assertThrows(NullPointerException.class, () -> Selector.parse(null));
  }
}
