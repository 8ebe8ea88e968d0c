package io.switchboard.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.switchboard.selector.Expression.HasMode;
import io.switchboard.selector.Expression.Op;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded random syntax trees: rendered, parsed back, compared, and evaluated against {@link
 * ReferenceEvaluator} on random attributes. A failure names the seed and the case, so it replays.
 */
class SelectorRandomizedTest {

  private static final long SEED = 0x5E1EC7L;
  private static final int CASES = 10_000;
  private static final int MAPS_PER_CASE = 8;

  private static final List<String> NAMES =
      List.of("a", "b", "c.d", "x-y", "my attr", "and", "sys.priority", "say \"hi\"");
  private static final List<String> STRINGS =
      List.of("", "a", "b", "ab", "ba", "é", "😀", "\uFFFD", "%", "_a", "it's", "A");
  private static final List<String> NUMBERS =
      List.of("0", "1", "1.0", "2", "0.5", "0.1", "-1.5", "1e2", "100", "1.5E-7", "-0");
  private static final List<String> PATTERN_PARTS = List.of("a", "b", "%", "_", "é", "😀", "'");

  private final Random random = new Random(SEED);

  @Test
  void parse_renderedRandomTree_roundTripsAndEvaluatesLikeTheReference() {
    int checked = 0;
    for (int i = 0; i < CASES; i++) {
      Expression tree = expression(0);
      String text = Renderer.render(tree);
      if (text.length() > Selector.MAX_LENGTH) {
        continue;
      }
      checked++;
      String replay = "seed " + SEED + ", case " + i + ": " + text;
      Selector selector = parseOrFail(text, replay);
      assertEquals(tree, selector.expression(), replay);
      assertEquals(text, selector.normalized(), replay);
      for (int m = 0; m < MAPS_PER_CASE; m++) {
        Map<String, Object> attributes = attributes();
        assertEquals(
            ReferenceEvaluator.evaluate(tree, attributes),
            selector.evaluate(Attributes.of(attributes)),
            () -> replay + " with " + attributes);
      }
    }
    assertTrue(checked > CASES * 9 / 10, "too many trees over the length limit: " + checked);
  }

  @Test
  void parse_randomTokenSoup_parsesOrThrowsSelectorException() {
    List<String> vocabulary =
        List.of(
            "a", "b", "=", "<>", "!=", "<", ">=", "(", ")", ",", "AND", "or", "NOT", "IN",
            "BETWEEN", "LIKE", "ESCAPE", "HAS", "ANY", "ALL", "IS", "NULL", "TRUE", "1", "-2.5",
            "'x'", "'", "\"q\"", "\"", "#", "1e", "!", "%", "'%'", "'!'", "-", ".", "😀");
    for (int i = 0; i < CASES; i++) {
      StringBuilder text = new StringBuilder();
      for (int t = random.nextInt(12); t >= 0; t--) {
        text.append(vocabulary.get(random.nextInt(vocabulary.size())));
        text.append(random.nextInt(4) == 0 ? "" : " ");
      }
      String replay = "seed " + SEED + ", case " + i + ": " + text;
      try {
        Selector selector = Selector.parse(text.toString());
        assertEquals(selector, Selector.parse(selector.normalized()), replay);
      } catch (SelectorException expected) {
        assertTrue(
            expected.column() >= 1 && expected.column() <= text.length() + 1,
            replay + " -> " + expected.getMessage());
      } catch (RuntimeException unexpected) {
        fail(replay, unexpected);
      }
    }
  }

  private static Selector parseOrFail(String text, String replay) {
    try {
      return Selector.parse(text);
    } catch (SelectorException e) {
      throw new AssertionError(replay + " -> " + e.getMessage(), e);
    }
  }

  private Expression expression(int depth) {
    int choice = depth >= 4 ? 9 : random.nextInt(12);
    return switch (choice) {
      case 0, 1 -> new Expression.And(operands(depth));
      case 2, 3 -> new Expression.Or(operands(depth));
      case 4 -> new Expression.Not(expression(depth + 1));
      default -> predicate();
    };
  }

  private List<Expression> operands(int depth) {
    List<Expression> operands = new ArrayList<>();
    for (int n = 2 + random.nextInt(2); n > 0; n--) {
      operands.add(expression(depth + 1));
    }
    return operands;
  }

  private Expression predicate() {
    return switch (random.nextInt(7)) {
      case 0 -> new Expression.Comparison(operand(), pick(Op.values()), operand());
      case 1 -> new Expression.In(operand(), literals(), random.nextBoolean());
      case 2 -> new Expression.Between(operand(), operand(), operand(), random.nextBoolean());
      case 3 -> like();
      case 4 -> new Expression.Has(operand(), HasMode.ONE, List.of(literal()));
      case 5 ->
          new Expression.Has(
              operand(), random.nextBoolean() ? HasMode.ANY : HasMode.ALL, literals());
      default -> new Expression.IsNull(operand(), random.nextBoolean());
    };
  }

  private Expression like() {
    boolean escaped = random.nextBoolean();
    StringBuilder pattern = new StringBuilder();
    for (int n = random.nextInt(5); n > 0; n--) {
      if (escaped && random.nextInt(4) == 0) {
        pattern.append('!').append(pick(new String[] {"%", "_", "!"}));
      } else {
        pattern.append(PATTERN_PARTS.get(random.nextInt(PATTERN_PARTS.size())));
      }
    }
    return new Expression.Like(
        operand(),
        pattern.toString(),
        escaped ? Optional.of("!") : Optional.empty(),
        random.nextBoolean());
  }

  private Operand operand() {
    return random.nextInt(3) == 0
        ? new Operand.Literal(literal())
        : new Operand.Identifier(NAMES.get(random.nextInt(NAMES.size())));
  }

  private List<Object> literals() {
    List<Object> literals = new ArrayList<>();
    for (int n = 1 + random.nextInt(4); n > 0; n--) {
      literals.add(literal());
    }
    return literals;
  }

  private Object literal() {
    return switch (random.nextInt(5)) {
      case 0, 1 -> STRINGS.get(random.nextInt(STRINGS.size()));
      case 2, 3 -> new BigDecimal(NUMBERS.get(random.nextInt(NUMBERS.size())));
      default -> random.nextBoolean();
    };
  }

  private Map<String, Object> attributes() {
    Map<String, Object> attributes = new HashMap<>();
    for (String name : NAMES) {
      Object value = attributeValue();
      if (value != null) {
        attributes.put(name, value);
      }
    }
    return attributes;
  }

  private Object attributeValue() {
    return switch (random.nextInt(12)) {
      case 0, 1 -> null;
      case 2, 3 -> STRINGS.get(random.nextInt(STRINGS.size()));
      case 4 -> pick(new Integer[] {-1, 0, 1, 2, 100});
      case 5 -> pick(new Long[] {-1L, 0L, 1L, 2L, 100L});
      case 6 -> pick(new Double[] {0.5, 1.0, 2.0, 0.1, -1.5, -0.0, 1.5e-7});
      case 7 -> pick(new Float[] {0.5f, 1.0f, 0.1f});
      case 8 -> new BigDecimal(NUMBERS.get(random.nextInt(NUMBERS.size())));
      case 9 -> random.nextBoolean();
      default -> stringList();
    };
  }

  private List<String> stringList() {
    List<String> list = random.nextBoolean() ? new ArrayList<>() : new LinkedList<>();
    for (int n = random.nextInt(4); n > 0; n--) {
      list.add(STRINGS.get(random.nextInt(STRINGS.size())));
    }
    return list;
  }

  private <T> T pick(T[] values) {
    return values[random.nextInt(values.length)];
  }
}
