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
