package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.switchboard.selector.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the partitioned index hands a receive: for a selector over indexed attributes only, exactly
 * the matching messages (none tested in vain, however many precede them); with unindexed parts, the
 * messages of the partitions the indexed parts allow; nothing it can narrow, null. 600 messages:
 * language cycles es/en/fr, gender M/F, tier 1..5 (a number), skills a list, note unindexed.
 */
class PartitionIndexTest {

  private final PartitionIndex index =
      new PartitionIndex(
          Set.of("language", "gender", "tier", "skills"), Ordering.comparator(Order.FIFO));

  PartitionIndexTest() {
    String[] languages = {"es", "en", "fr"};
    String[] genders = {"M", "F"};
    for (int i = 0; i < 600; i++) {
      Object[] attributes = {
        "language", AttributeValue.string(languages[i % 3]),
        "gender", AttributeValue.string(genders[i % 2]),
        "tier", AttributeValue.number(1 + i % 5),
        "skills",
            AttributeValue.stringList(i % 4 == 0 ? List.of("vip", "billing") : List.of("billing")),
        "note", AttributeValue.string("n" + (i % 7))
      };
      index.add(new StoredMessage(i + 1, i + 1, 0, new byte[0], attributes, 0, null, null));
    }
  }

  @ParameterizedTest(name = "{0} -> {1} candidates")
  @CsvSource(
      delimiter = '|',
      value = {
        "language = 'es'                                | 200",
        "language = 'es' AND gender = 'M'               | 100",
        "'es' = language AND gender = 'M' AND tier = 3  | 20",
        "language IN ('es', 'fr')                       | 400",
        "tier > 3                                       | 240",
        "tier BETWEEN 2 AND 3                           | 240",
        "tier = 3.0                                     | 120",
        "skills HAS 'vip'                               | 150",
        "skills HAS ALL ('vip', 'billing')              | 150",
        "skills HAS ANY ('vip', 'nothing')              | 150",
        "language LIKE 'e%'                             | 400",
        "language = 'de'                                | 0",
        "language = 'es' OR gender = 'F'                | 400",
        "language = 'es' AND NOT gender = 'M'           | 100",
        "language = 'es' AND (tier < 2 OR tier > 4)     | 80",
        "language = 'es' AND note = 'n1'                | 200",
      })
  void candidates_yieldOnlyWhatTheIndexCannotRuleOut(String selector, int expected) {
    Iterable<StoredMessage> candidates = index.candidates(Selector.parse(selector), null);
    List<StoredMessage> all = new ArrayList<>();
    candidates.forEach(all::add);
    assertEquals(expected, all.size(), selector);
    for (int i = 1; i < all.size(); i++) {
      assertEquals(true, all.get(i - 1).seq < all.get(i).seq, "delivery order for " + selector);
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "NOT language = 'es'",
        "language <> 'es'",
        "gender IS NULL",
        "note = 'n1'",
        "language = 'es' OR note = 'n1'",
        "language LIKE '%s'"
      })
  void candidates_selectorTheIndexCannotNarrow_isNull(String selector) {
    assertNull(index.candidates(Selector.parse(selector), null), selector);
  }
}
