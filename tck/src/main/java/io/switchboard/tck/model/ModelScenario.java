package io.switchboard.tck.model;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.DedupScope;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;

/**
 * The queues one seed runs against, and the random inputs drawn for them. Settings that the
 * documents let vary (maxReceiveCount, history, deduplication mode and scope) vary with the seed.
 */
final class ModelScenario {

  static final String STD = "std";
  static final String DLQ = "dlq";
  static final String LIFO = "lifo";
  static final String LIFO_DLQ = "lifo-dlq";
  static final String GROUPED = "grp.fifo";
  static final String GROUPED_DLQ = "grp-dlq.fifo";
  static final String DROP = "drop";
  static final String REJECT = "reject";

  /** Queues for sends and most operations, each listed as often as it should be picked. */
  static final List<String> WORK_QUEUES =
      List.of(STD, STD, STD, LIFO, LIFO, GROUPED, GROUPED, GROUPED, DROP, REJECT);

  static final List<String> DEAD_LETTER_QUEUES = List.of(DLQ, LIFO_DLQ, GROUPED_DLQ);

  private static final List<String> COLORS = List.of("red", "green", "blue");
  private static final List<String> TAGS = List.of("a", "b", "c");

  private final Random random;
  private final Map<String, QueueConfig> configs = new LinkedHashMap<>();
  private int bodies;

  private final boolean indexed;

  ModelScenario(Random random) {
    this(random, false);
  }

  /** With {@code indexed}, the standard queues index {@code color}, {@code n} and {@code tags}. */
  ModelScenario(Random random, boolean indexed) {
    this.random = random;
    this.indexed = indexed;
    Set<String> attributes = indexed ? Set.of("color", "n", "tags") : Set.of();
    Duration history = pick(Duration.ZERO, Duration.ofSeconds(20), Duration.ofSeconds(90));
    QueueConfig dlq =
        QueueConfig.builder()
            .retention(Duration.ofSeconds(300))
            .visibilityTimeout(Duration.ofSeconds(5))
            .historyRetention(history)
            .build();
    configs.put(DLQ, dlq);
    configs.put(LIFO_DLQ, dlq);
    configs.put(GROUPED_DLQ, dlq.toBuilder().contentBasedDeduplication(true).build());
    configs.put(
        STD,
        QueueConfig.builder()
            .indexedAttributes(attributes)
            .visibilityTimeout(Duration.ofSeconds(5))
            .retention(Duration.ofSeconds(120))
            .deadLetter(DLQ, 2 + random.nextInt(2))
            .historyRetention(history)
            .build());
    configs.put(
        LIFO,
        QueueConfig.builder()
            .order(Order.LIFO)
            .indexedAttributes(attributes)
            .visibilityTimeout(Duration.ofSeconds(3))
            .retention(Duration.ofSeconds(60))
            .deadLetter(LIFO_DLQ, 2 + random.nextInt(2))
            .onExpire(ExpiryAction.DEAD_LETTER)
            .historyRetention(history)
            .build());
    configs.put(
        GROUPED,
        QueueConfig.builder()
            .visibilityTimeout(Duration.ofSeconds(4))
            .retention(Duration.ofSeconds(90))
            .deadLetter(GROUPED_DLQ, 2 + random.nextInt(2))
            .contentBasedDeduplication(random.nextInt(3) > 0)
            .dedupScope(random.nextBoolean() ? DedupScope.QUEUE : DedupScope.GROUP)
            .historyRetention(history)
            .build());
    configs.put(
        DROP,
        QueueConfig.builder()
            .visibilityTimeout(Duration.ofSeconds(5))
            .retention(Duration.ofSeconds(60))
            .maxDepth(5, Overflow.DROP_OLDEST)
            .build());
    configs.put(
        REJECT,
        QueueConfig.builder()
            .visibilityTimeout(Duration.ofSeconds(2))
            .delay(Duration.ofSeconds(1))
            .maxDepth(4, Overflow.REJECT)
            .historyRetention(history)
            .build());
  }

  /** Whether the standard queues index the attributes the filters read. */
  boolean indexed() {
    return indexed;
  }

  /** Queue configurations in creation order (dead-letter targets first). */
  Map<String, QueueConfig> configs() {
    return configs;
  }

  NewMessage message(String queue) {
    QueueConfig config = Objects.requireNonNull(configs.get(queue), queue);
    boolean grouped = queue.endsWith(".fifo");
    String body = grouped && random.nextInt(3) == 0 ? "b" + random.nextInt(6) : "m" + ++bodies;
    NewMessage.Builder b = NewMessage.builder(body);
    if (random.nextInt(5) > 0) {
      b.attribute("color", pick(COLORS));
    }
    if (random.nextInt(5) > 1) {
      b.attribute("n", AttributeValue.number(random.nextInt(10)));
    }
    if (random.nextInt(5) == 0) {
      b.attribute("tags", AttributeValue.stringList(TAGS.subList(random.nextInt(3), 3)));
    }
    if (random.nextInt(5) < 2) {
      b.priority(random.nextInt(5) - 1);
    }
    if (grouped && random.nextInt(50) > 0) {
      b.groupId("g" + random.nextInt(4));
    }
    if (grouped) {
      boolean explicit =
          config.contentBasedDeduplication() ? random.nextInt(3) == 0 : random.nextInt(30) > 0;
      if (explicit) {
        b.deduplicationId("d" + random.nextInt(12));
      }
    } else if (random.nextInt(20) == 0) {
      b.deduplicationId("s" + random.nextInt(4));
    }
    int delay = random.nextInt(100);
    if (delay < 15) {
      b.delay(Duration.ofMillis(random.nextInt(4000)));
    } else if (delay < 17) {
      b.delay(Duration.ZERO);
    } else if (delay == 17) {
      b.delay(QueueConfig.MAX_DELAY.plusSeconds(1));
    }
    int ttl = random.nextInt(100);
    if (ttl < 15) {
      b.timeToLive(Duration.ofMillis(1 + random.nextInt(15_000)));
    } else if (ttl == 15) {
      b.timeToLive(config.retention());
    } else if (ttl == 16) {
      b.timeToLive(config.retention().plusMillis(1));
    }
    return b.build();
  }

  List<NewMessage> batch(String queue) {
    List<NewMessage> out = new ArrayList<>();
    int n = 1 + random.nextInt(10);
    for (int i = 0; i < n; i++) {
      out.add(random.nextInt(8) == 0 && !out.isEmpty() ? pick(out) : message(queue));
    }
    return out;
  }

  AttributeFilter filter() {
    return switch (random.nextInt(5)) {
      case 0 -> new AttributeFilter(AttributeFilter.Kind.EQUALS, "color", pick(COLORS));
      case 1 -> new AttributeFilter(AttributeFilter.Kind.NOT_EQUALS, "color", pick(COLORS));
      case 2 ->
          new AttributeFilter(AttributeFilter.Kind.LESS_THAN, "n", "" + (1 + random.nextInt(9)));
      case 3 -> new AttributeFilter(AttributeFilter.Kind.HAS, "tags", pick(TAGS));
      default ->
          new AttributeFilter(AttributeFilter.Kind.PRIORITY_AT_LEAST, "", "" + random.nextInt(3));
    };
  }

  Map<String, AttributeValue> attributes() {
    Map<String, AttributeValue> out = new LinkedHashMap<>();
    if (random.nextBoolean()) {
      out.put("color", AttributeValue.string(pick(COLORS)));
    }
    if (random.nextBoolean()) {
      out.put("n", AttributeValue.number(random.nextInt(10)));
    }
    return out;
  }

  @SafeVarargs
  final <T> T pick(T... options) {
    return options[random.nextInt(options.length)];
  }

  <T> T pick(List<T> options) {
    return options.get(random.nextInt(options.size()));
  }
}
