package io.switchboard.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LikePatternTest {

  static Stream<Arguments> cases() {
    return Tables.rows(
        """
        # pattern  ==> escape ==> text      ==> matches
        ''         ==> none   ==> ''        ==> true
        ''         ==> none   ==> 'a'       ==> false
        '%'        ==> none   ==> ''        ==> true
        '%%'       ==> none   ==> 'abc'     ==> true
        '_'        ==> none   ==> ''        ==> false
        '_'        ==> none   ==> 'é'       ==> true
        '_'        ==> none   ==> '𝄞'       ==> true
        '__'       ==> none   ==> '𝄞'       ==> false
        'a_c'      ==> none   ==> 'a𝄞c'     ==> true
        '%𝄞'       ==> none   ==> 'xx𝄞'     ==> true
        '%_'       ==> none   ==> '𝄞'       ==> true
        '_%_'      ==> none   ==> '𝄞'       ==> false
        'a%'       ==> none   ==> 'a'       ==> true
        'a%a'      ==> none   ==> 'a'       ==> false
        'a%a'      ==> none   ==> 'aa'      ==> true
        '%a%a%'    ==> none   ==> 'aba'     ==> true
        '%ab%ab%'  ==> none   ==> 'aab'     ==> false
        '%ab%ab%'  ==> none   ==> 'abab'    ==> true
        '%a_b%'    ==> none   ==> 'xaxxaybz' ==> true
        '%a_b%'    ==> none   ==> 'axxb'    ==> false
        '%a_b'     ==> none   ==> 'aybaxb'  ==> true
        'x%y%z'    ==> none   ==> 'xyz'     ==> true
        'x%y%z'    ==> none   ==> 'xzy'     ==> false
        'x%yz%z'   ==> none   ==> 'xyzz'    ==> true
        'x%yz%z'   ==> none   ==> 'xyz'     ==> false
        'ab%bc'    ==> none   ==> 'abc'     ==> false
        '%bc%c'    ==> none   ==> 'abcbc'   ==> true
        '!%%'      ==> '!'    ==> '%x'      ==> true
        '!%%'      ==> '!'    ==> 'x%'      ==> false
        '%!_'      ==> '!'    ==> 'a_'      ==> true
        '%!_'      ==> '!'    ==> 'ab'      ==> false
        'a!!b'     ==> '!'    ==> 'a!b'     ==> true
        '%%'       ==> '%'    ==> '%'       ==> true
        '%%'       ==> '%'    ==> 'x'       ==> false
        '%_%%'     ==> '%'    ==> '_%'      ==> true
        '%_%%'     ==> '%'    ==> '_x'      ==> false
        '𝄞%_'      ==> '𝄞'    ==> '%x'      ==> true
        """,
        4);
  }

  @ParameterizedTest(name = "{2} LIKE {0} ESCAPE {1}: {3}")
  @MethodSource("cases")
  void matches_table_agreesWithSqlLike(
      String pattern, String escape, String text, String expected) {
    LikePattern like =
        LikePattern.compile(
            unquote(pattern),
            escape.equals("none") ? Optional.empty() : Optional.of(unquote(escape)));

    assertEquals(Boolean.parseBoolean(expected), like.matches(unquote(text)));
  }

  private static String unquote(String cell) {
    return cell.substring(1, cell.length() - 1);
  }

  @Test
  void matches_adversarialPatternOnLongText_isLinear() {
    String text = "a".repeat(100_000);
    LikePattern manyPercents = LikePattern.compile("%a%a%a%a%a%b", Optional.empty());
    LikePattern underscores = LikePattern.compile("%a_a%a_a%a_a%b", Optional.empty());
    Selector selector = Selector.parse("s LIKE '%a%a%a%a%a%a%a%a%a%a%b' OR s NOT LIKE '%a%'");

    // A backtracking matcher takes ages on each of these; the segment matcher a few ms in all.
    assertTimeoutPreemptively(
        Duration.ofSeconds(5),
        () -> {
          for (int i = 0; i < 100; i++) {
            assertFalse(manyPercents.matches(text));
            assertFalse(underscores.matches(text));
            assertEquals(Truth.FALSE, selector.evaluate(name -> text));
          }
        });
    assertTrue(manyPercents.matches(text + "b"));
  }

  /**
   * The operator's selector that froze a queue (docs/operations.md, "Bounded work per request"):
   * {@code _} by the thousand before a literal, against a megabyte. The segment matcher took text ×
   * segment length (4 billion steps); peeling the {@code _} off the core and Shift-And make it one
   * pass.
   */
  @Test
  void matches_thousandsOfUnderscoresOnMegabyteText_isLinear() {
    String text = "y".repeat(1 << 20);
    LikePattern operators = LikePattern.compile("%" + "_".repeat(4000) + "X%", Optional.empty());
    LikePattern sparseCore = LikePattern.compile("%y" + "_".repeat(4000) + "X%", Optional.empty());
    LikePattern denseCore = LikePattern.compile("%" + "y_".repeat(2000) + "X%", Optional.empty());

    assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () -> {
          assertFalse(operators.matches(text));
          assertFalse(sparseCore.matches(text));
          assertFalse(denseCore.matches(text));
        });
    assertTrue(operators.matches(text + "X"));
    assertTrue(sparseCore.matches(text + "X"));
    assertTrue(denseCore.matches(text + "X"));
    assertFalse(operators.matches("y".repeat(3999) + "X"));
  }

  /**
   * Random patterns and texts over a small alphabet (with a character outside the BMP, so {@code _}
   * must take a surrogate pair as one) agree with a regular expression for short patterns (a
   * backtracking regex takes ages on long ones with many {@code %}) and with a plain dynamic
   * programme for long ones, whose {@code _} runs and cores reach the multi-word Shift-And.
   */
  @Test
  void matches_randomPatternsAndTexts_agreeWithRegex() {
    java.util.Random random = new java.util.Random(16);
    String[] alphabet = {"a", "b", "\uD83D\uDE00"};
    for (int round = 0; round < 20_000; round++) {
      boolean long_ = round % 10 == 0;
      StringBuilder pattern = new StringBuilder();
      int patternLength = random.nextInt(long_ ? 150 : 12);
      for (int i = 0; i < patternLength; i++) {
        int pick = random.nextInt(10);
        pattern.append(pick < 2 ? "%" : pick < 5 ? "_" : alphabet[random.nextInt(alphabet.length)]);
      }
      StringBuilder text = new StringBuilder();
      int textLength = random.nextInt(long_ ? 300 : 20);
      for (int i = 0; i < textLength; i++) {
        text.append(alphabet[random.nextInt(random.nextInt(4) == 0 ? 3 : 2)]);
      }
      String p = pattern.toString();
      String t = text.toString();

      boolean expected =
          long_
              ? naiveLike(p.codePoints().toArray(), t.codePoints().toArray())
              : ReferenceEvaluator.likeRegex(p, Optional.empty()).matcher(t).matches();

      assertEquals(
          expected,
          LikePattern.compile(p, Optional.empty()).matches(t),
          () -> "'" + t + "' LIKE '" + p + "'");
    }
  }

  /** The textbook O(n × m) table: can the first i pattern code points match the first j text? */
  private static boolean naiveLike(int[] pattern, int[] text) {
    boolean[] row = new boolean[text.length + 1];
    row[0] = true;
    for (int p : pattern) {
      boolean[] next = new boolean[text.length + 1];
      next[0] = p == '%' && row[0];
      for (int j = 1; j <= text.length; j++) {
        next[j] = p == '%' ? row[j] || next[j - 1] : row[j - 1] && (p == '_' || p == text[j - 1]);
      }
      row = next;
    }
    return row[text.length];
  }

  @Test
  void compile_escapeCharacterAtTheEnd_isRefused() {
    IllegalArgumentException error =
        assertThrows(
            IllegalArgumentException.class, () -> LikePattern.compile("%%%", Optional.of("%")));

    assertTrue(error.getMessage().endsWith("found end of pattern"), error.getMessage());
  }

  @Test
  void compile_escapeOfSeveralCharacters_isRefused() {
    assertThrows(IllegalArgumentException.class, () -> LikePattern.compile("a", Optional.of("ab")));
  }
}
