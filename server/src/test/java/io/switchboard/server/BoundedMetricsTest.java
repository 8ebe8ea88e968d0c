package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.server.observability.MetricsScope;
import io.switchboard.server.observability.ServerMetrics;
import io.switchboard.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * One scrape of {@code /metrics} used to carry 16 series for every queue: 51 MB and 30 s with
 * 50,000 queues, enough to run a 512 MB server out of heap. Per-queue series are now shown for the
 * {@link MetricsScope} only (the deepest and the named queues), totals for all: what a scrape
 * answers does not depend on how many queues there are beyond those.
 */
class BoundedMetricsTest {

  private static final Instant START = Instant.parse("2026-12-02T00:00:00Z");

  @Test
  void scrape_sameSizeWith10And5000Queues_whenTheDeepestAreTheSame() {
    MetricsScope scope = new MetricsScope(5, Set.of(), 0, Set.of());
    String fewScrape = scrape(10, scope);
    String manyScrape = scrape(5_000, scope);

    String few = queueSeries(fewScrape);
    assertEquals(few, queueSeries(manyScrape), "the same 5 queues' series, whatever the rest");
    assertEquals(5 * 17, few.lines().count(), few);
    // the server's own series: the same lines, the totals' digits apart
    long fewBytes = bytes(serverSeries(fewScrape));
    long manyBytes = bytes(serverSeries(manyScrape));
    assertTrue(
        Math.abs(manyBytes - fewBytes) < 64,
        "server-wide series: " + fewBytes + " bytes with 10 queues, " + manyBytes + " with 5000");
  }

  @Test
  void scrape_showsTheDeepestTheOldestAndTheNamed_andTotalsOverEveryQueue() {
    try (QueueEngine engine = engine(8)) {
      ServerMetrics metrics = new ServerMetrics();
      metrics.scope(new MetricsScope(2, Set.of("q00007", "nowhere"), 0, Set.of()));
      String text = metrics.scrape(engine);

      // q00004 (5 messages) is the deepest, q00000 (1) has the oldest message; q00007 is named
      assertShown(text, "q00004", 5);
      assertShown(text, "q00000", 1);
      assertShown(text, "q00007", 0);
      assertFalse(text.contains("queue=\"q00003\""), text);
      assertFalse(text.contains("queue=\"nowhere\""), text);
      assertTrue(text.contains("switchboard_queues 8.0"), text);
      assertTrue(text.contains("switchboard_messages{state=\"available\"} 15.0"), text);
      assertTrue(text.contains("switchboard_messages{state=\"in_flight\"} 0.0"), text);
      assertTrue(text.contains("switchboard_limit_used{limit=\"default-max-depth\"} 5.0"), text);

      // a queue that grows past the deepest takes its place; the series of the one left go
      for (int i = 0; i < 9; i++) {
        engine.send("q00002", NewMessage.of("m"));
      }
      text = metrics.scrape(engine);
      assertShown(text, "q00002", 12);
      assertShown(text, "q00000", 1);
      assertFalse(text.contains("queue=\"q00004\""), text);
    }
  }

  private static void assertShown(String scrape, String queue, int available) {
    String line =
        "switchboard_queue_messages{queue=\""
            + queue
            + "\",state=\"available\"} "
            + available
            + ".0";
    assertTrue(scrape.contains(line), line + " in\n" + scrape);
  }

  /**
   * A scrape of {@code queues} queues of which q00000..q00004 hold 1..5 messages, sent a second
   * apart in that order (q00000's the oldest).
   */
  private static String scrape(int queues, MetricsScope scope) {
    try (QueueEngine engine = engine(queues)) {
      ServerMetrics metrics = new ServerMetrics();
      metrics.scope(scope);
      return metrics.scrape(engine);
    }
  }

  private static QueueEngine engine(int queues) {
    ManualClock clock = ManualClock.at(START);
    QueueEngine engine = QueueEngine.builder().clock(clock).maxQueues(10_000).build();
    for (int i = 0; i < queues; i++) {
      String name = String.format("q%05d", i);
      engine.createQueue(name, QueueConfig.defaults());
      if (i < 5) {
        for (int m = 0; m <= i; m++) {
          engine.send(name, NewMessage.of("m"));
        }
        clock.advanceSeconds(1);
      }
    }
    return engine;
  }

  private static String queueSeries(String scrape) {
    return String.join("\n", scrape.lines().filter(l -> l.contains("queue=\"")).sorted().toList());
  }

  /** The server's own lines (not the JVM's, whose figures move between scrapes), no comments. */
  private static List<String> serverSeries(String scrape) {
    return scrape.lines().filter(l -> l.startsWith("switchboard_")).toList();
  }

  private static long bytes(List<String> lines) {
    return String.join("\n", lines).getBytes(StandardCharsets.UTF_8).length;
  }
}
