package io.switchboard.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class SelectorParserTest {

  static Stream<Arguments> valid() {
    return Tables.rows(
        """
        # every comparison operator, with and without spaces
        a = 1                                   ==> a = 1
        a=1                                     ==> a = 1
        a != 1                                  ==> a <> 1
        a<>'x'                                  ==> a <> 'x'
        a < 1                                   ==> a < 1
        a <= 1.50                               ==> a <= 1.5
        a>-2                                    ==> a > -2
        a >= 1e3                                ==> a >= 1000
        a >= 1.5E-7                             ==> a >= 1.5E-7
        a = 2E+2                                ==> a = 200
        a = 1.0                                 ==> a = 1
        a = -0.0                                ==> a = 0
        a = 0.001                               ==> a = 0.001
        a = 123456789012345678901234567890      ==> a = 1.2345678901234567890123456789E+29
        a = 9223372036854775808                 ==> a = 9223372036854775808
        # literals and values on either side
        a = 'it''s'                             ==> a = 'it''s'
        a = ''                                  ==> a = ''
        a = ''''                                ==> a = ''''
        'x' = a                                 ==> 'x' = a
        1 = 1                                   ==> 1 = 1
        a = b                                   ==> a = b
        a = true                                ==> a = TRUE
        a = False                               ==> a = FALSE
        a = 'ñandú 😀'                           ==> a = 'ñandú 😀'
        a = 'AND OR ( ) , = "'                  ==> a = 'AND OR ( ) , = "'
        # identifiers: bare, dotted, dashed, quoted
        sys.priority > 5                        ==> sys.priority > 5
        x-y.z_1 = 'v'                           ==> x-y.z_1 = 'v'
        _a = 1                                  ==> _a = 1
        A = 1                                   ==> A = 1
        "my attr" = 1                           ==> "my attr" = 1
        "and" = 1                               ==> "and" = 1
        "In" = 1                                ==> "In" = 1
        "a" = 1                                 ==> a = 1
        "say ""hi\""" = 1                       ==> "say ""hi\""" = 1
        "1st" = 1                               ==> "1st" = 1
        "é" = 1                                 ==> "é" = 1
        # IN, BETWEEN, LIKE, HAS, IS
        a in (1, 2,3)                           ==> a IN (1, 2, 3)
        a NOT IN ('x','y')                      ==> a NOT IN ('x', 'y')
        a IN (1, 'x', TRUE, 1.50)               ==> a IN (1, 'x', TRUE, 1.5)
        a between 1 and 10                      ==> a BETWEEN 1 AND 10
        a not between b and 'z'                 ==> a NOT BETWEEN b AND 'z'
        name like 'J%n_'                        ==> name LIKE 'J%n_'
        name NOT LIKE '100!%' escape '!'        ==> name NOT LIKE '100!%' ESCAPE '!'
        a like 'it''s%'                         ==> a LIKE 'it''s%'
        a LIKE '%'                              ==> a LIKE '%'
        a LIKE ''                               ==> a LIKE ''
        skills has 'billing'                    ==> skills HAS 'billing'
        skills HAS 2                            ==> skills HAS 2
        skills HAS any ('a','b')                ==> skills HAS ANY ('a', 'b')
        skills has ALL ('billing', 'spanish')   ==> skills HAS ALL ('billing', 'spanish')
        a is null                               ==> a IS NULL
        a IS NOT NULL                           ==> a IS NOT NULL
        1 IS NULL                               ==> 1 IS NULL
        # NOT > AND > OR, parentheses only where needed
        not a = 1                               ==> NOT a = 1
        NOT NOT a = 1                           ==> NOT NOT a = 1
        NOT (a = 1)                             ==> NOT a = 1
        NOT (a = 1 AND b = 2)                   ==> NOT (a = 1 AND b = 2)
        NOT (a = 1 OR b = 2)                    ==> NOT (a = 1 OR b = 2)
        NOT a = 1 AND b = 2                     ==> NOT a = 1 AND b = 2
        a = 1 and b = 2 or c = 3                ==> a = 1 AND b = 2 OR c = 3
        a = 1 or b = 2 and c = 3                ==> a = 1 OR b = 2 AND c = 3
        (a = 1 or b = 2) and c = 3              ==> (a = 1 OR b = 2) AND c = 3
        a = 1 and (b = 2 or c = 3)              ==> a = 1 AND (b = 2 OR c = 3)
        (a = 1 and b = 2) or c = 3              ==> a = 1 AND b = 2 OR c = 3
        ((a = 1))                               ==> a = 1
        a = 1 AND (b = 2 AND c = 3)             ==> a = 1 AND b = 2 AND c = 3
        (a = 1 OR b = 2) OR c = 3               ==> a = 1 OR b = 2 OR c = 3
        a BETWEEN 1 AND 2 AND b = 3             ==> a BETWEEN 1 AND 2 AND b = 3
        a = 1 AnD b = 2 oR NoT c = 3            ==> a = 1 AND b = 2 OR NOT c = 3
        language = 'es' AND gender = 'M'        ==> language = 'es' AND gender = 'M'
        """,
        2);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valid")
  void parse_validText_normalizesAndReparsesEqual(String text, String normalized) {
    Selector selector = Selector.parse(text);

    assertEquals(normalized, selector.normalized());
    Selector reparsed = Selector.parse(normalized);
    assertEquals(selector.expression(), reparsed.expression());
    assertEquals(selector, reparsed);
    assertEquals(normalized, reparsed.normalized());
  }

  static Stream<Arguments> invalid() {
    return Tables.rows(
        """
        # a bare value is not a predicate
        a                       ==> 2  ==> expected an operator (=, <>, !=, <, <=, >, >=, IN, BETWEEN, LIKE, HAS or IS) after identifier a, found end of input
        TRUE                    ==> 5  ==> after literal TRUE, found end of input
        'x' AND a = 1           ==> 5  ==> after literal 'x', found keyword AND
        # trailing garbage, unbalanced parentheses, missing operands
        a = 1 b                 ==> 7  ==> expected AND, OR or end of input, found identifier b
        a = 1)                  ==> 6  ==> expected AND, OR or end of input, found ')'
        (a = 1                  ==> 7  ==> expected AND, OR or ')', found end of input
        a = 1 AND (b = 2        ==> 17 ==> expected AND, OR or ')', found end of input
        ()                      ==> 2  ==> expected a predicate, found ')'
        a = 1 AND               ==> 10 ==> expected a predicate, found end of input
        AND a = 1               ==> 1  ==> expected a predicate, found keyword AND
        and = 1                 ==> 1  ==> expected a predicate, found keyword AND
        NOT                     ==> 4  ==> expected a predicate, found end of input
        a =                     ==> 4  ==> expected a value after =, found end of input
        a == 1                  ==> 4  ==> expected a value after =, found '='
        a = NULL                ==> 5  ==> expected a value after =, found keyword NULL
        a < (1)                 ==> 5  ==> expected a value after <, found '('
        # lexical errors
        a = 'abc                ==> 5  ==> expected a closing ' to end the string, found end of input
        a = 'it''s              ==> 5  ==> expected a closing ' to end the string, found end of input
        "abc = 1                ==> 1  ==> expected a closing " to end the quoted identifier, found end of input
        "" = 1                  ==> 1  ==> expected an attribute name between the double quotes, found ""
        a = 1 # b               ==> 7  ==> expected an identifier, a literal, an operator or a parenthesis, found '#'
        a = ¤                   ==> 5  ==> found '¤'
        a = 😀                   ==> 5  ==> found '😀'
        a = .5                  ==> 5  ==> found '.'
        a ! 1                   ==> 4  ==> expected '=' after '!', found ' '
        a !                     ==> 4  ==> expected '=' after '!', found end of input
        a = 1.                  ==> 5  ==> expected a number such as 42, -1.5 or 2e3, found '1.'
        a = 1e                  ==> 5  ==> found '1e'
        a = 1e+                 ==> 5  ==> found '1e+'
        a = - 1                 ==> 5  ==> found '-'
        a = --1                 ==> 5  ==> found '--1'
        a = 12abc               ==> 5  ==> found '12abc'
        a = 1.2.3               ==> 5  ==> found '1.2.3'
        a = 1AND b = 2          ==> 5  ==> found '1AND'
        a = 1e99999999999       ==> 5  ==> found '1e99999999999'
        # IN and HAS lists
        a IN ()                 ==> 7  ==> expected a literal after IN (, found ')'
        language IN ()          ==> 14 ==> selector error at column 14: expected a literal after IN (, found ')'
        a IN (1,)               ==> 9  ==> expected a literal after ',', found ')'
        a IN (1 2)              ==> 9  ==> expected ',' or ')' in the list after IN, found number 2
        a IN (1, 2              ==> 11 ==> expected ',' or ')' in the list after IN, found end of input
        a IN 1                  ==> 6  ==> expected '(' after IN, found number 1
        a IN (b)                ==> 7  ==> expected a literal after IN (, found identifier b
        a NOT IN ()             ==> 11 ==> expected a literal after NOT IN (, found ')'
        a HAS b                 ==> 7  ==> expected a literal, ANY or ALL after HAS, found identifier b
        a HAS ANY 'x'           ==> 11 ==> expected '(' after HAS ANY, found string 'x'
        a HAS ALL ()            ==> 12 ==> expected a literal after HAS ALL (, found ')'
        a HAS ANY (NULL)        ==> 12 ==> expected a literal after HAS ANY (, found keyword NULL
        # NOT, BETWEEN, LIKE, IS
        a NOT = 1               ==> 7  ==> expected IN, BETWEEN or LIKE after NOT, found '='
        a NOT HAS 'x'           ==> 7  ==> expected IN, BETWEEN or LIKE after NOT, found keyword HAS
        a BETWEEN 1 OR 2        ==> 13 ==> expected AND after the lower bound of BETWEEN, found keyword OR
        a BETWEEN 1             ==> 12 ==> expected AND after the lower bound of BETWEEN, found end of input
        a BETWEEN 1 AND         ==> 16 ==> expected a value after BETWEEN ... AND, found end of input
        a LIKE b                ==> 8  ==> expected a string pattern after LIKE, found identifier b
        a LIKE 'x' ESCAPE 'ab'  ==> 19 ==> expected a one-character string after ESCAPE, found string 'ab'
        a LIKE 'x' ESCAPE ''    ==> 19 ==> expected a one-character string after ESCAPE, found string ''
        a LIKE 'x' ESCAPE 1     ==> 19 ==> expected a one-character string after ESCAPE, found number 1
        a LIKE 'x!' ESCAPE '!'  ==> 8  ==> expected '%', '_' or '!' after the escape character '!' in the LIKE pattern, found end of pattern
        a LIKE '!a' ESCAPE '!'  ==> 8  ==> expected '%', '_' or '!' after the escape character '!' in the LIKE pattern, found 'a'
        a IS 1                  ==> 6  ==> expected NULL or NOT after IS, found number 1
        a IS NOT 1              ==> 10 ==> expected NULL after IS NOT, found number 1
        a IS NOT                ==> 9  ==> expected NULL after IS NOT, found end of input
        """,
        3);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void parse_invalidText_throwsWithColumnAndExplanation(
      String text, String column, String message) {
    SelectorException error = assertThrows(SelectorException.class, () -> Selector.parse(text));

    assertEquals(Integer.parseInt(column), error.column(), error.getMessage());
    assertTrue(
        error.getMessage().contains(message),
        () -> "message [" + error.getMessage() + "] lacks [" + message + "]");
    assertTrue(error.getMessage().startsWith("selector error at column " + column + ": "));
    assertEquals("INVALID_SELECTOR", error.code());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "   \t\n  "})
  void parse_emptyOrBlank_isRefused(String text) {
    SelectorException error = assertThrows(SelectorException.class, () -> Selector.parse(text));

    assertEquals(text.length() + 1, error.column());
    assertEquals("expected a predicate, found end of input", error.reason());
  }

  @Test
  void parse_whitespaceOfAnyKind_separatesTokens() {
    assertEquals("a = 1 AND b = 2", Selector.parse("\t a\n=\r\n1   AND\tb=2 ").normalized());
  }

  @Test
  void parse_columnsAfterSurrogatePairs_countUtf16Characters() {
    SelectorException error =
        assertThrows(SelectorException.class, () -> Selector.parse("a = '😀' b"));

    assertEquals(10, error.column());
  }

  @Test
  void parse_longStringInError_isShortened() {
    String text = "a = 1 '" + "x".repeat(100) + "'";

    SelectorException error = assertThrows(SelectorException.class, () -> Selector.parse(text));

    assertEquals(
        "expected AND, OR or end of input, found string '" + "x".repeat(36) + "...",
        error.reason());
  }
}
