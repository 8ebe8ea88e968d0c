package io.switchboard.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Truth tables per operator: a present value, a missing attribute ({@code missing}) and a type
 * mismatch, against one fixed set of attributes.
 */
class SelectorEvaluationTest {

  private static final Attributes ATTRIBUTES = Attributes.of(attributes());

  private static Map<String, Object> attributes() {
    Map<String, Object> map = new HashMap<>();
    map.put("s", "abc");
    map.put("n", 5);
    map.put("neg", -5);
    map.put("l", 5L);
    map.put("d", 5.5d);
    map.put("f", 0.5f);
    map.put("tenth", 0.1d);
    map.put("bd", new BigDecimal("5.00"));
    map.put("big", new BigInteger("123456789012345678901234567890"));
    map.put("atomic", new AtomicLong(5));
    map.put("nan", Double.NaN);
    map.put("inf", Double.POSITIVE_INFINITY);
    map.put("ninf", Double.NEGATIVE_INFINITY);
    map.put("t", true);
    map.put("fl", false);
    map.put("skills", List.of("billing", "spanish"));
    map.put("linked", new LinkedList<>(List.of("billing", "spanish")));
    map.put("set", new TreeSet<>(Set.of("x", "y")));
    map.put("none", List.of());
    map.put("numbers", List.of(1, 2L, 2.5d));
    map.put("uni", "ñandú");
    map.put("emoji", "😀");
    map.put("replacement", "\uFFFD");
    map.put("pct", "100%");
    map.put("pctx", "100x");
    map.put("other", 'c');
    map.put("sys.age", 42L);
    return map;
  }

  static Stream<Arguments> comparisons() {
    return Tables.rows(
        """
        s = 'abc'                          ==> TRUE
        s = 'abd'                          ==> FALSE
        s <> 'abd'                         ==> TRUE
        s != 'abc'                         ==> FALSE
        s < 'abd'                          ==> TRUE
        s <= 'abc'                         ==> TRUE
        s > 'ab'                           ==> TRUE
        s >= 'abd'                         ==> FALSE
        missing = 'abc'                    ==> UNKNOWN
        missing <> 'abc'                   ==> UNKNOWN
        missing < 1                        ==> UNKNOWN
        missing = missing2                 ==> UNKNOWN
        s = 1                              ==> UNKNOWN
        s <> 1                             ==> UNKNOWN
        s < 1                              ==> UNKNOWN
        n = '5'                            ==> UNKNOWN
        uni = 'ñandú'                      ==> TRUE
        uni > 'n'                          ==> TRUE
        emoji > replacement                ==> TRUE
        emoji > 'ﬀ'                        ==> TRUE
        '😀' > '\uFFFD'                     ==> TRUE
        # numbers of every class compare exactly
        n = 5                              ==> TRUE
        n = 5.0                            ==> TRUE
        n = 5.000001                       ==> FALSE
        n < 5.000001                       ==> TRUE
        n > 4.9999                         ==> TRUE
        n <= 4.5                           ==> FALSE
        n >= 4.5                           ==> TRUE
        neg < -4.5                         ==> TRUE
        neg > -5.5                         ==> TRUE
        neg = -5.0                         ==> TRUE
        l = 5                              ==> TRUE
        l >= 6                             ==> FALSE
        l < 9223372036854775808            ==> TRUE
        l > -9223372036854775809           ==> TRUE
        l < 1e-400                         ==> FALSE
        d = 5.5                            ==> TRUE
        d > 5.4999999999999999999          ==> TRUE
        d < 5.5000000000000000001          ==> TRUE
        d <> 5.5000000000000000001         ==> TRUE
        f = 0.5                            ==> TRUE
        f < 0.50000000000000000001         ==> TRUE
        tenth = 0.1                        ==> FALSE
        tenth > 0.1                        ==> TRUE
        tenth < 0.10000000000000001        ==> TRUE
        tenth = 0.1000000000000000055511151231257827021181583404541015625 ==> TRUE
        bd = 5                             ==> TRUE
        bd < 5.01                          ==> TRUE
        big = 123456789012345678901234567890 ==> TRUE
        big > 9223372036854775807          ==> TRUE
        atomic = 5                         ==> TRUE
        sys.age > 30                       ==> TRUE
        # attribute against attribute, literal against literal
        bd = n                             ==> TRUE
        bd = l                             ==> TRUE
        n = l                              ==> TRUE
        atomic = bd                        ==> TRUE
        d > n                              ==> TRUE
        f < tenth                          ==> FALSE
        big > d                            ==> TRUE
        s = n                              ==> UNKNOWN
        1 = 1.0                            ==> TRUE
        1 <> 1                             ==> FALSE
        'a' < 'b'                          ==> TRUE
        1 = 'a'                            ==> UNKNOWN
        TRUE = TRUE                        ==> TRUE
        # NaN compares to nothing; infinities lie beyond every number
        nan = 1                            ==> UNKNOWN
        nan <> 1                           ==> UNKNOWN
        nan = nan                          ==> UNKNOWN
        nan < d                            ==> UNKNOWN
        inf > 1e308                        ==> TRUE
        inf > 1e400                        ==> TRUE
        inf = inf                          ==> TRUE
        d < inf                            ==> TRUE
        bd < inf                           ==> TRUE
        inf > big                          ==> TRUE
        ninf < -1e400                      ==> TRUE
        ninf < l                           ==> TRUE
        # booleans have equality but no order
        t = TRUE                           ==> TRUE
        t = FALSE                          ==> FALSE
        t <> FALSE                         ==> TRUE
        t != TRUE                          ==> FALSE
        fl = FALSE                         ==> TRUE
        t = fl                             ==> FALSE
        t < TRUE                           ==> UNKNOWN
        t >= FALSE                         ==> UNKNOWN
        t = 1                              ==> UNKNOWN
        t = 'true'                         ==> UNKNOWN
        # lists and other types are a mismatch for comparisons
        skills = 'billing'                 ==> UNKNOWN
        skills <> 'x'                      ==> UNKNOWN
        'billing' = skills                 ==> UNKNOWN
        skills = skills                    ==> UNKNOWN
        other = 'c'                        ==> UNKNOWN
        """,
        2);
  }

  static Stream<Arguments> inAndBetween() {
    return Tables.rows(
        """
        s IN ('x', 'abc')                  ==> TRUE
        s IN ('x', 'y')                    ==> FALSE
        s NOT IN ('x', 'y')                ==> TRUE
        s NOT IN ('abc')                   ==> FALSE
        s IN (1, 2)                        ==> FALSE
        n IN (1, 5.0)                      ==> TRUE
        n IN ('5', TRUE)                   ==> FALSE
        l IN (4, 5, 6)                     ==> TRUE
        l IN (4.5, 9223372036854775808)    ==> FALSE
        d IN (5, 5.5)                      ==> TRUE
        d IN (5, 6)                        ==> FALSE
        f IN (0.5)                         ==> TRUE
        bd IN (5)                          ==> TRUE
        big IN (123456789012345678901234567890) ==> TRUE
        t IN (TRUE)                        ==> TRUE
        t IN (FALSE, 1)                    ==> FALSE
        fl NOT IN (TRUE)                   ==> TRUE
        'abc' IN ('abc')                   ==> TRUE
        5 IN (5.0)                         ==> TRUE
        1.5 IN (1.50, 'x')                 ==> TRUE
        missing IN (1)                     ==> UNKNOWN
        missing NOT IN (1)                 ==> UNKNOWN
        skills IN ('billing')              ==> UNKNOWN
        skills NOT IN ('x')                ==> UNKNOWN
        nan IN (1)                         ==> UNKNOWN
        nan NOT IN (1)                     ==> UNKNOWN
        other IN ('c')                     ==> UNKNOWN
        # BETWEEN is x >= low AND x <= high, bounds included
        n BETWEEN 1 AND 10                 ==> TRUE
        n BETWEEN 5 AND 5                  ==> TRUE
        n BETWEEN 5.0 AND 6                ==> TRUE
        n BETWEEN 6 AND 10                 ==> FALSE
        n BETWEEN 10 AND 1                 ==> FALSE
        n BETWEEN 1 AND 4.99               ==> FALSE
        n NOT BETWEEN 6 AND 10             ==> TRUE
        n NOT BETWEEN 1 AND 10             ==> FALSE
        n BETWEEN l AND d                  ==> TRUE
        d BETWEEN 5.5 AND 5.5              ==> TRUE
        s BETWEEN 'abc' AND 'abd'          ==> TRUE
        s BETWEEN 'b' AND 'c'              ==> FALSE
        missing BETWEEN 1 AND 2            ==> UNKNOWN
        missing NOT BETWEEN 1 AND 2        ==> UNKNOWN
        s BETWEEN 1 AND 10                 ==> UNKNOWN
        n BETWEEN 1 AND 'z'                ==> UNKNOWN
        n BETWEEN 'a' AND 3                ==> FALSE
        n NOT BETWEEN 'a' AND 3            ==> TRUE
        n BETWEEN 1 AND missing            ==> UNKNOWN
        t BETWEEN FALSE AND TRUE           ==> UNKNOWN
        skills BETWEEN 'a' AND 'z'         ==> UNKNOWN
        skills NOT BETWEEN 'a' AND 'z'     ==> UNKNOWN
        """,
        2);
  }

  static Stream<Arguments> likeHasAndNull() {
    return Tables.rows(
        """
        s LIKE 'abc'                       ==> TRUE
        s LIKE 'ab'                        ==> FALSE
        s LIKE 'ABC'                       ==> FALSE
        s LIKE 'a%'                        ==> TRUE
        s LIKE '%c'                        ==> TRUE
        s LIKE '%b%'                       ==> TRUE
        s LIKE '%x%'                       ==> FALSE
        s LIKE 'a_c'                       ==> TRUE
        s LIKE '_'                         ==> FALSE
        s LIKE '___'                       ==> TRUE
        s LIKE '____'                      ==> FALSE
        s LIKE '%'                         ==> TRUE
        s NOT LIKE 'x%'                    ==> TRUE
        s NOT LIKE 'a%'                    ==> FALSE
        uni LIKE '_andú'                   ==> TRUE
        emoji LIKE '_'                     ==> TRUE
        emoji LIKE '__'                    ==> FALSE
        pct LIKE '100!%' ESCAPE '!'        ==> TRUE
        pctx LIKE '100!%' ESCAPE '!'       ==> FALSE
        pctx LIKE '100%'                   ==> TRUE
        pct LIKE '100\\%' ESCAPE '\\'      ==> TRUE
        'abc' LIKE 'a%'                    ==> TRUE
        missing LIKE 'a%'                  ==> UNKNOWN
        missing NOT LIKE 'a%'              ==> UNKNOWN
        n LIKE '5'                         ==> UNKNOWN
        skills LIKE 'b%'                   ==> UNKNOWN
        skills NOT LIKE 'b%'               ==> UNKNOWN
        # HAS on lists, strings (a one-element list) and numbers (UNKNOWN)
        skills HAS 'billing'               ==> TRUE
        skills HAS 'french'                ==> FALSE
        skills HAS 1                       ==> FALSE
        linked HAS 'spanish'               ==> TRUE
        set HAS 'x'                        ==> TRUE
        set HAS 1                          ==> FALSE
        none HAS 'x'                       ==> FALSE
        numbers HAS 2                      ==> TRUE
        numbers HAS 2.50                   ==> TRUE
        numbers HAS '1'                    ==> FALSE
        s HAS 'abc'                        ==> TRUE
        s HAS 'ab'                         ==> FALSE
        'x' HAS 'x'                        ==> TRUE
        n HAS 5                            ==> UNKNOWN
        t HAS TRUE                         ==> UNKNOWN
        missing HAS 'x'                    ==> UNKNOWN
        skills HAS ANY ('french', 'spanish') ==> TRUE
        skills HAS ANY ('french', 'german')  ==> FALSE
        linked HAS ANY ('french', 'billing') ==> TRUE
        set HAS ANY (1, 'y')               ==> TRUE
        numbers HAS ANY (3, 1.0)           ==> TRUE
        none HAS ANY ('x')                 ==> FALSE
        s HAS ANY ('x', 'abc')             ==> TRUE
        s HAS ANY ('x', 1)                 ==> FALSE
        n HAS ANY (5)                      ==> UNKNOWN
        missing HAS ANY ('x')              ==> UNKNOWN
        skills HAS ALL ('billing', 'spanish') ==> TRUE
        skills HAS ALL ('spanish', 'billing', 'spanish') ==> TRUE
        skills HAS ALL ('billing', 'french')  ==> FALSE
        linked HAS ALL ('billing', 'spanish') ==> TRUE
        set HAS ALL ('x', 'y')             ==> TRUE
        set HAS ALL ('x', 1)               ==> FALSE
        numbers HAS ALL (1, 2.5, 2.0)      ==> TRUE
        none HAS ALL ('x')                 ==> FALSE
        s HAS ALL ('abc', 'abc')           ==> TRUE
        s HAS ALL ('abc', 'x')             ==> FALSE
        t HAS ALL (TRUE)                   ==> UNKNOWN
        missing HAS ALL ('x')              ==> UNKNOWN
        # IS NULL is never UNKNOWN
        missing IS NULL                    ==> TRUE
        missing IS NOT NULL                ==> FALSE
        s IS NULL                          ==> FALSE
        s IS NOT NULL                      ==> TRUE
        none IS NULL                       ==> FALSE
        nan IS NOT NULL                    ==> TRUE
        other IS NOT NULL                  ==> TRUE
        NOT missing IS NULL                ==> FALSE
        1 IS NULL                          ==> FALSE
        # NOT, AND, OR over UNKNOWN
        NOT s = 'abc'                      ==> FALSE
        NOT missing = 1                    ==> UNKNOWN
        NOT NOT missing = 1                ==> UNKNOWN
        NOT (missing = 1 AND s = 'x')      ==> TRUE
        missing = 1 OR s = 'abc'           ==> TRUE
        missing = 1 OR s = 'x'             ==> UNKNOWN
        missing = 1 AND s = 'x'            ==> FALSE
        missing = 1 AND s = 'abc'          ==> UNKNOWN
        """,
        2);
  }

  @ParameterizedTest(name = "{0} is {1}")
  @MethodSource({"comparisons", "inAndBetween", "likeHasAndNull"})
  void evaluate_predicate_givesThreeValuedTruth(String selector, String expected) {
    Selector parsed = Selector.parse(selector);

    assertEquals(Truth.valueOf(expected), parsed.evaluate(ATTRIBUTES));
    assertEquals(expected.equals("TRUE"), parsed.matches(ATTRIBUTES));
  }
}
