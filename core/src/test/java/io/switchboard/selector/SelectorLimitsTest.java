package io.switchboard.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SelectorLimitsTest {

  @Test
  void parse_textOfMaxLength_isAccepted() {
    String text = "a = '" + "x".repeat(4090) + "'";

    assertEquals(4096, text.length());
    assertEquals(Truth.TRUE, Selector.parse(text).evaluate(name -> "x".repeat(4090)));
  }

  @ParameterizedTest
  @ValueSource(ints = {4097, 5000})
  void parse_textOverMaxLength_isRefused(int length) {
    String text = "a = '" + "x".repeat(length - 6) + "'";

    SelectorException error = assertThrows(SelectorException.class, () -> Selector.parse(text));

    assertEquals("text length must be at most 4096 characters, got " + length, error.reason());
    assertEquals(4097, error.column());
  }

  @Test
  void parse_32NestedParentheses_isAccepted() {
    String text = "(".repeat(32) + "a = 1" + ")".repeat(32);

    assertEquals("a = 1", Selector.parse(text).normalized());
  }

  @Test
  void parse_33NestedParentheses_isRefusedAtThe33rd() {
    String text = "(".repeat(33) + "a = 1" + ")".repeat(33);

    SelectorException error = assertThrows(SelectorException.class, () -> Selector.parse(text));

    assertEquals(33, error.column());
    assertEquals(
        "nesting depth must be at most 32 (each '(' and NOT counts), found depth 33 at '('",
        error.reason());
  }

  @Test
  void parse_32NestedNots_isAccepted() {
    Selector selector = Selector.parse("NOT ".repeat(32) + "a = 1");

    assertEquals(Truth.TRUE, selector.evaluate(name -> 1));
  }

  @Test
  void parse_33NestedNots_isRefusedAtThe33rd() {
    SelectorException error =
        assertThrows(SelectorException.class, () -> Selector.parse("NOT ".repeat(33) + "a = 1"));

    assertEquals(129, error.column());
  }

  @Test
  void parse_notsAndParenthesesTogether_countTowardsOneDepth() {
    Selector.parse("NOT (".repeat(16) + "a = 1" + ")".repeat(16));
    SelectorException error =
        assertThrows(
            SelectorException.class,
            () -> Selector.parse("NOT (".repeat(16) + "NOT a = 1" + ")".repeat(16)));

    assertEquals(81, error.column());
  }

  @Test
  void parse_siblingGroups_doNotAddUpTheirDepths() {
    String group = "(".repeat(32) + "a = 1" + ")".repeat(32);

    Selector.parse(
        group + " AND " + group + " OR NOT " + "(".repeat(31) + "b = 2" + ")".repeat(31));
  }

  @ParameterizedTest
  @ValueSource(strings = {"a IN", "a NOT IN", "a HAS ANY", "a HAS ALL"})
  void parse_listOf1000Literals_isAccepted(String prefix) {
    Selector selector = Selector.parse(prefix + " (" + numbers(1000) + ")");

    assertEquals(1000, literalCount(selector.expression()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"a IN", "a NOT IN", "a HAS ANY", "a HAS ALL"})
  void parse_listOf1001Literals_isRefusedAtThe1001st(String prefix) {
    String text = prefix + " (" + numbers(1001) + ")";

    SelectorException error = assertThrows(SelectorException.class, () -> Selector.parse(text));

    assertEquals(text.lastIndexOf("1000") + 1, error.column());
    assertTrue(error.reason().startsWith("expected at most 1000 literals in the list after "));
    assertTrue(error.reason().endsWith(", found literal number 1001"), error.reason());
  }

  private static String numbers(int count) {
    return IntStream.range(0, count).mapToObj(Integer::toString).collect(Collectors.joining(","));
  }

  private static int literalCount(Expression expression) {
    return switch (expression) {
      case Expression.In in -> in.literals().size();
      case Expression.Has has -> has.literals().size();
      default -> throw new AssertionError(expression);
    };
  }

  @Test
  void parse_longestAndChain_staysFlatAndEvaluates() {
    String text = "a=1" + " AND a=1".repeat(511);
    assertTrue(text.length() <= 4096);

    Selector selector = Selector.parse(text);

    Expression.And and = assertInstanceOf(Expression.And.class, selector.expression());
    assertEquals(512, and.operands().size());
    assertEquals(Truth.TRUE, selector.evaluate(name -> 1));
    assertEquals(Truth.FALSE, selector.evaluate(name -> 2));
  }

  @Test
  void parse_longestMixedChain_needsNoDeepStack() throws InterruptedException {
    String text = "a=1 OR b=2 AND c=3" + " OR a=1 AND b=2".repeat(260);
    assertTrue(text.length() <= 4096);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicReference<Selector> parsed = new AtomicReference<>();
    AtomicReference<Truth> truth = new AtomicReference<>();

    // A parser that recursed once per AND/OR would need hundreds of frames; 64 KiB holds few.
    Thread thread =
        new Thread(
            null,
            () -> {
              try {
                Selector selector = Selector.parse(text);
                truth.set(selector.evaluate(Attributes.of(Map.of("a", 1, "b", 2))));
                selector.normalized();
                selector.hashCode();
                parsed.set(selector);
              } catch (Throwable t) {
                failure.set(t);
              }
            },
            "small-stack",
            64 * 1024);
    thread.start();
    thread.join();

    assertNull(failure.get());
    Expression.Or or = assertInstanceOf(Expression.Or.class, parsed.get().expression());
    assertEquals(262, or.operands().size());
    assertEquals(Truth.TRUE, truth.get());
    assertEquals(Truth.FALSE, parsed.get().evaluate(Attributes.of(Map.of("a", 2, "b", 1))));
  }
}
