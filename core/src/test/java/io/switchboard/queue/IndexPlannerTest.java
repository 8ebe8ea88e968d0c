package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.switchboard.selector.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the planner can serve from the index, and that the cursor yields exactly the candidates (not
 * the whole queue): 60 messages, language cycling through es/en/fr, gender through M/F, tier 1..5
 * as a number, skills a list.
 */
class IndexPlannerTest {

  private final AttributeIndex index =
      new AttributeIndex(
          Set.of("language", "gender", "tier", "skills"), Ordering.comparator(Order.FIFO));

  IndexPlannerTest() {
    String[] languages = {"es", "en", "fr"};
    String[] genders = {"M", "F"};
    for (int i = 0; i < 60; i++) {
      Object[] attributes = {
        "language", AttributeValue.string(languages[i % 3]),
        "gender", AttributeValue.string(genders[i % 2]),
        "tier", AttributeValue.number(1 + i % 5),
        "skills",
            AttributeValue.stringList(i % 4 == 0 ? List.of("vip", "billing") : List.of("billing"))
      };
      index.add(new StoredMessage(i + 1, i + 1, 0, new byte[0], attributes, 0, null, null));
    }
  }

  @ParameterizedTest(name = "{0} -> {1} candidates")
  @CsvSource(
      delimiter = '|',
      value = {
        "language = 'es'                              | 20",
        "language = 'es' AND gender = 'M'             | 10",
        "'es' = language AND gender = 'M' AND tier = 3 | 2",
        "language IN ('es', 'fr')                     | 40",
        "tier > 3                                     | 24",
        "tier BETWEEN 2 AND 3                         | 24",
        "tier = 3.0                                   | 12",
        "skills HAS 'vip'                             | 15",
        "skills HAS ALL ('vip', 'billing')            | 15",
        "skills HAS ANY ('vip', 'nothing')            | 15",
        "language LIKE 'e%'                           | 40",
        "language = 'de'                              | 0",
        "language = 'es' OR gender = 'F'              | 40",
        "language = 'es' AND NOT gender = 'M'         | 20",
      })
  void plan_servesIndexablePredicates_withExactlyTheCandidates(String selector, int candidates) {
    AttributeIndex.Cursor cursor = IndexPlanner.plan(Selector.parse(selector).expression(), index);
    assertNotNull(cursor, selector);
    assertEquals(candidates, drain(cursor).size(), selector);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "NOT language = 'es'",
        "language <> 'es'",
        "gender IS NULL",
        "unindexed = 'x'",
        "language = 'es' OR unindexed = 'x'",
        "language LIKE '%s'",
      })
  void plan_refusesWhatTheIndexCannotServe(String selector) {
    assertNull(IndexPlanner.plan(Selector.parse(selector).expression(), index), selector);
  }

  private static List<StoredMessage> drain(AttributeIndex.Cursor cursor) {
    List<StoredMessage> out = new ArrayList<>();
    for (StoredMessage m = cursor.higher(null); m != null; m = cursor.higher(m)) {
      out.add(m);
    }
    return out;
  }
}
