package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The attribute index must change nothing but speed: on random queues, attributes and selectors, a
 * queue that indexes its attributes and one that does not (and so scans) deliver exactly the same
 * messages in exactly the same order, for receives and browses, through leases, delays, releases,
 * priority changes, attribute updates, and in standard (FIFO, LIFO) and grouped queues. Seeded;
 * rerun one case with {@code -Dswitchboard.index.seed=N}.
 */
class IndexDifferentialTest {

  private static final int CASES = 10_000;
  private static final String[] LANGUAGES = {
    "es", "en", "fr", "de", "pt", "it", "nl", "sv", "pl", "ja"
  };
  private static final String[] GENDERS = {"M", "F", "X"};
  private static final String[] SKILLS = {"billing", "tech", "sales", "vip", "refunds", "spanish"};

  @Test
  void indexedReceive_matchesScanningReceive_onRandomQueuesAndSelectors() {
    String only = System.getProperty("switchboard.index.seed");
    long first = only == null ? 1 : Long.parseLong(only);
    long last = only == null ? CASES : first;
    for (long seed = first; seed <= last; seed++) {
      try {
        runCase(seed);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("case failed; rerun with -Dswitchboard.index.seed=" + seed, e);
      }
    }
  }

  private void runCase(long seed) {
    Random rnd = new Random(seed);
    ManualClock clock = ManualClock.create();
    try (QueueEngine engine = QueueEngine.builder().clock(clock).build()) {
      boolean grouped = rnd.nextInt(4) == 0;
      String suffix = grouped ? ".fifo" : "";
      QueueConfig.Builder config =
          QueueConfig.builder()
              .order(!grouped && rnd.nextBoolean() ? Order.LIFO : Order.FIFO)
              .contentBasedDeduplication(grouped);
      engine.createQueue("scan" + suffix, config.build());
      engine.createQueue(
          "index" + suffix,
          config.indexedAttributes("language", "gender", "tier", "skills", "score").build());
      Twin twin = new Twin(engine, "index" + suffix, "scan" + suffix);
      int messages = 1 + rnd.nextInt(60);
      for (int i = 0; i < messages; i++) {
        twin.send(randomMessage(rnd, i, grouped));
        if (rnd.nextInt(10) == 0) {
          clock.advanceMillis(rnd.nextInt(3000));
        }
      }
      for (int step = 0; step < 6; step++) {
        String selector = randomSelector(rnd, 0);
        switch (rnd.nextInt(6)) {
          case 0, 1, 2 -> twin.receive(selector, 1 + rnd.nextInt(5), rnd.nextInt(3) == 0);
          case 3 -> twin.browse(selector);
          case 4 -> twin.reprioritizeSome(rnd);
          default -> clock.advanceMillis(500 + rnd.nextInt(4000));
        }
      }
      twin.browse("tier >= 1 OR tier IS NULL");
    }
  }

  /** The same operations on an indexed and a scanning queue, compared result by result. */
  private static final class Twin {
    final QueueEngine engine;
    final String indexed;
    final String scanned;
    final List<String> sentIndexed = new ArrayList<>();
    final List<String> sentScanned = new ArrayList<>();

    Twin(QueueEngine engine, String indexed, String scanned) {
      this.engine = engine;
      this.indexed = indexed;
      this.scanned = scanned;
    }

    void send(NewMessage m) {
      sentIndexed.add(engine.send(indexed, m).id());
      sentScanned.add(engine.send(scanned, m).id());
    }

    void receive(String selector, int max, boolean release) {
      ReceiveRequest request =
          ReceiveRequest.builder()
              .maxMessages(max)
              .visibilityTimeout(Duration.ofSeconds(2))
              .selector(selector)
              .build();
      List<Message> a = engine.receive(indexed, request);
      List<Message> b = engine.receive(scanned, request);
      assertEquals(bodies(b), bodies(a), "receive " + selector);
      if (release) {
        for (int i = 0; i < a.size(); i++) {
          engine.release(indexed, a.get(i).receipt().orElseThrow());
          engine.release(scanned, b.get(i).receipt().orElseThrow());
        }
      }
    }

    void browse(String selector) {
      BrowseRequest request = BrowseRequest.first(1000).filter(SelectorFilter.parse(selector));
      assertEquals(
          bodies(engine.browse(scanned, request).items()),
          bodies(engine.browse(indexed, request).items()),
          "browse " + selector);
    }

    void reprioritizeSome(Random rnd) {
      int i = rnd.nextInt(sentIndexed.size());
      int priority = rnd.nextInt(3);
      Function<String, Boolean> live = id -> true;
      try {
        engine.update(indexed, sentIndexed.get(i), MessageUpdate.priority(priority));
      } catch (QueueException gone) {
        assertEquals(ErrorCode.MESSAGE_NOT_FOUND, gone.code());
        live = id -> false;
      }
      if (live.apply(sentScanned.get(i))) {
        engine.update(scanned, sentScanned.get(i), MessageUpdate.priority(priority));
      }
      if (rnd.nextBoolean() && live.apply(sentScanned.get(i))) {
        var attributes = randomAttributes(rnd);
        engine.update(indexed, sentIndexed.get(i), MessageUpdate.attributes(attributes));
        engine.update(scanned, sentScanned.get(i), MessageUpdate.attributes(attributes));
      }
    }

    private static List<String> bodies(List<Message> messages) {
      return messages.stream().map(Message::body).toList();
    }
  }

  private static NewMessage randomMessage(Random rnd, int i, boolean grouped) {
    NewMessage.Builder b =
        NewMessage.builder("m" + i).priority(rnd.nextInt(3)).attributes(randomAttributes(rnd));
    if (grouped) {
      b.groupId("g" + rnd.nextInt(6));
    } else if (rnd.nextInt(8) == 0) {
      b.delay(Duration.ofSeconds(1 + rnd.nextInt(5)));
    }
    return b.build();
  }

  private static java.util.Map<String, AttributeValue> randomAttributes(Random rnd) {
    java.util.Map<String, AttributeValue> a = new java.util.LinkedHashMap<>();
    if (rnd.nextInt(10) > 0) {
      a.put("language", AttributeValue.string(pick(rnd, LANGUAGES)));
    }
    if (rnd.nextInt(10) > 0) {
      a.put("gender", AttributeValue.string(pick(rnd, GENDERS)));
    }
    if (rnd.nextInt(10) > 0) {
      a.put("tier", AttributeValue.number(1 + rnd.nextInt(5)));
    }
    if (rnd.nextInt(4) > 0) {
      List<String> skills = new ArrayList<>();
      for (String s : SKILLS) {
        if (rnd.nextInt(3) == 0) {
          skills.add(s);
        }
      }
      a.put("skills", AttributeValue.stringList(skills));
    }
    if (rnd.nextInt(3) == 0) {
      a.put("score", AttributeValue.number(rnd.nextInt(20) + "." + rnd.nextInt(10)));
    }
    if (rnd.nextInt(5) == 0) {
      a.put("note", AttributeValue.string(pick(rnd, LANGUAGES) + "-x"));
    }
    return a;
  }

  private static String randomSelector(Random rnd, int depth) {
    if (depth < 3 && rnd.nextInt(3) == 0) {
      String op = rnd.nextBoolean() ? " AND " : " OR ";
      String left = randomSelector(rnd, depth + 1);
      String right = randomSelector(rnd, depth + 1);
      String joined = "(" + left + op + right + ")";
      return rnd.nextInt(8) == 0 ? "NOT " + joined : joined;
    }
    return switch (rnd.nextInt(14)) {
      case 0 -> "language = '" + pick(rnd, LANGUAGES) + "'";
      case 1 -> "gender = '" + pick(rnd, GENDERS) + "'";
      case 2 ->
          "tier "
              + pick(rnd, new String[] {"=", "<", "<=", ">", ">=", "<>"})
              + " "
              + (1 + rnd.nextInt(5));
      case 3 -> "language IN ('" + pick(rnd, LANGUAGES) + "', '" + pick(rnd, LANGUAGES) + "')";
      case 4 -> "tier BETWEEN " + rnd.nextInt(4) + " AND " + (1 + rnd.nextInt(5));
      case 5 -> "skills HAS '" + pick(rnd, SKILLS) + "'";
      case 6 -> "skills HAS ANY ('" + pick(rnd, SKILLS) + "', '" + pick(rnd, SKILLS) + "')";
      case 7 -> "skills HAS ALL ('" + pick(rnd, SKILLS) + "', '" + pick(rnd, SKILLS) + "')";
      case 8 -> "language LIKE '" + pick(rnd, LANGUAGES).charAt(0) + "%'";
      case 9 -> "score > " + rnd.nextInt(20) + "." + rnd.nextInt(10);
      case 10 -> "gender IS NULL";
      case 11 -> "note LIKE '%x'";
      case 12 -> "'" + pick(rnd, LANGUAGES) + "' = language";
      default -> "sys.priority >= " + rnd.nextInt(3);
    };
  }

  private static String pick(Random rnd, String[] values) {
    return values[rnd.nextInt(values.length)];
  }
}
