package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.SelectorFilter;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Selectors pushed into SQL must select exactly what the selector selects: the same random messages
 * in a queue with indexed attributes and in one without give the same browse pages and the same
 * receives, for random selectors over every indexable form and some that are not indexable.
 */
class PushdownAgreementTest {

  private static final String[] LANGS = {"en", "es", "fr", "de"};
  private static final String[] SKILLS = {"billing", "tech", "sales", "vip"};

  @Test
  void randomSelectors_indexedAndUnindexedQueuesAgree() {
    long seed = Long.getLong("switchboard.pushdown.seed", 20261122L);
    Random random = new Random(seed);
    try (QueueEngine engine =
        PostgresQueueEngine.builder()
            .dataSource(TestDatabase.fresh())
            .clock(ManualClock.create())
            .notifications(false)
            .build()) {
      engine.createQueue("plain", QueueConfig.defaults());
      engine.createQueue(
          "indexed",
          QueueConfig.builder().indexedAttributes("lang", "tier", "skills", "region").build());
      for (int i = 0; i < 300; i++) {
        NewMessage m = message(random, i);
        engine.send("plain", m);
        engine.send("indexed", m);
      }
      for (int round = 0; round < 150; round++) {
        String selector = selector(random);
        String why = "seed " + seed + ", selector " + selector;
        assertEquals(
            bodies(engine.browse("plain", browse(selector)).items()),
            bodies(engine.browse("indexed", browse(selector)).items()),
            why);
        if (round % 10 == 0) {
          ReceiveRequest take =
              ReceiveRequest.builder()
                  .maxMessages(5)
                  .visibilityTimeout(Duration.ofHours(1))
                  .selector(selector)
                  .build();
          assertEquals(
              bodies(engine.receive("plain", take)), bodies(engine.receive("indexed", take)), why);
        }
      }
    }
  }

  @Test
  void indexableForms_becomeArrayConditions_othersStayInJava() {
    java.util.Set<String> indexed = java.util.Set.of("lang", "tier", "skills");
    assertEquals("idx @> ?", pushed("lang = 'en'", indexed));
    assertEquals("idx && ?", pushed("tier IN (1, 2)", indexed));
    assertEquals("idx && ?", pushed("skills HAS ANY ('a', 'b')", indexed));
    assertEquals("(idx @> ? or idx @> ?)", pushed("lang = 'en' OR skills HAS 'x'", indexed));
    assertEquals("(idx @> ?)", pushed("lang = 'en' AND tier > 2", indexed));
    assertEquals(null, pushed("tier > 2", indexed));
    assertEquals(null, pushed("lang = 'en' OR tier > 2", indexed));
    assertEquals(null, pushed("other = 'x'", indexed));
    assertEquals(null, pushed("NOT lang = 'en'", indexed));
  }

  private static String pushed(String selector, java.util.Set<String> indexed) {
    Pushdown.Condition c = Pushdown.condition(SelectorFilter.parse(selector), indexed);
    return c == null ? null : c.sql();
  }

  private static BrowseRequest browse(String selector) {
    return BrowseRequest.first(1000).filter(SelectorFilter.parse(selector));
  }

  private static NewMessage message(Random random, int i) {
    NewMessage.Builder b = NewMessage.builder("m" + i).priority(random.nextInt(3));
    if (random.nextInt(10) > 0) {
      b.attribute("lang", LANGS[random.nextInt(LANGS.length)]);
    }
    if (random.nextInt(10) > 0) {
      b.attribute("tier", AttributeValue.number(random.nextInt(4)));
    }
    if (random.nextInt(10) > 0) {
      List<String> skills = new ArrayList<>();
      for (String s : SKILLS) {
        if (random.nextBoolean()) {
          skills.add(s);
        }
      }
      if (!skills.isEmpty()) {
        b.attribute("skills", AttributeValue.stringList(skills));
      }
    }
    if (random.nextInt(4) == 0) {
      b.attribute("region", random.nextBoolean() ? "tech" : "emea"); // a string HAS can test
    }
    return b.build();
  }

  private static String selector(Random random) {
    String one = atom(random);
    return switch (random.nextInt(4)) {
      case 0 -> one;
      case 1 -> one + " AND " + atom(random);
      case 2 -> one + " OR " + atom(random);
      default -> "(" + one + " OR " + atom(random) + ") AND " + atom(random);
    };
  }

  private static String atom(Random random) {
    String lang = LANGS[random.nextInt(LANGS.length)];
    String skill = SKILLS[random.nextInt(SKILLS.length)];
    String other = SKILLS[random.nextInt(SKILLS.length)];
    return switch (random.nextInt(12)) {
      case 0 -> "lang = '" + lang + "'";
      case 1 -> "lang IN ('" + lang + "', '" + LANGS[random.nextInt(LANGS.length)] + "')";
      case 2 -> "tier = " + random.nextInt(4);
      case 3 -> "tier = " + random.nextInt(4) + ".0";
      case 4 -> "tier IN (1, 3)";
      case 5 -> "skills HAS '" + skill + "'";
      case 6 -> "skills HAS ANY ('" + skill + "', '" + other + "')";
      case 7 -> "skills HAS ALL ('" + skill + "', '" + other + "')";
      case 8 -> "region HAS '" + (random.nextBoolean() ? "tech" : "emea") + "'";
      case 9 -> "tier >= " + random.nextInt(4);
      case 10 -> "NOT lang = '" + lang + "'";
      default -> "lang = '" + random.nextInt(3) + "' OR tier = '1'";
    };
  }

  private static List<String> bodies(List<Message> messages) {
    return messages.stream().map(Message::body).toList();
  }
}
