package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * A redrive of a deep dead-letter queue and the pages of a deep grouped queue hold the queue's lock
 * briefly (DESIGN.md, "Bounded work per request"): the redrive copies the order keys under the lock
 * and sorts them after it; a grouped browse page picks the next messages in a bounded heap instead
 * of sorting the queue. The bound asserted is generous and measured by the engine; the results are
 * the same as before: every message, in delivery order.
 *
 * <p>The bound is twice {@code PathologicalSelectorHeldQueueLockTest}'s: these queues hold 200,000
 * messages, so a garbage collection or a busy machine's scheduling inside a hold is likelier, and
 * the engine measures holds in wall time.
 */
class BigQueueLockHoldTest {

  private static final Duration GENEROUS_HOLD = Duration.ofMillis(500);
  private static final int N = 200_000;

  private static void fill(QueueEngine engine, String queue, IntFunction<NewMessage> message) {
    List<NewMessage> batch = new ArrayList<>(1000);
    for (int i = 0; i < N; i++) {
      batch.add(message.apply(i));
      if (batch.size() == 1000) {
        engine.sendBatch(queue, batch);
        batch.clear();
      }
    }
  }

  private static List<String> browseAll(QueueEngine engine, String queue, BrowseRequest first) {
    List<String> out = new ArrayList<>();
    BrowseRequest request = first;
    while (true) {
      Page page = engine.browse(queue, request);
      page.items().forEach(m -> out.add(m.body()));
      if (page.nextCursor().isEmpty()) {
        return out;
      }
      request = request.after(page.nextCursor().get());
    }
  }

  private static void assertBrief(MemoryQueueEngine engine, String what) {
    Duration longest = engine.longestLockHold();
    assertTrue(
        longest.compareTo(GENEROUS_HOLD) < 0,
        what + " held a queue's lock for " + longest.toMillis() + " ms");
  }

  @Test
  void redrive_ofADeepDeadLetterQueue_holdsTheLockBriefly_andMovesEveryMessageInOrder() {
    try (QueueEngine engine = QueueEngine.inMemory()) {
      MemoryQueueEngine memory = (MemoryQueueEngine) engine;
      engine.createQueue("dlq", QueueConfig.defaults());
      engine.createQueue("dest", QueueConfig.defaults());
      fill(engine, "dlq", i -> NewMessage.builder("m" + i).priority(i % 3).build());
      System.err.println(
          "PHASE dlq filled " + System.nanoTime() / 1_000_000 + " " + memory.longestLockHold());
      List<String> before = browseAll(engine, "dlq", BrowseRequest.first(1000));
      assertEquals(N, before.size());
      memory.lockHolds().resetLongest();

      RedriveTask task = engine.startRedrive("dlq", RedriveRequest.to("dest"));

      assertBrief(memory, "a redrive of " + N + " messages");
      assertEquals(RedriveTask.Status.COMPLETED, task.status());
      assertEquals(N, task.moved());
      assertEquals(before, browseAll(engine, "dest", BrowseRequest.first(1000)));
      assertEquals(List.of(), browseAll(engine, "dlq", BrowseRequest.first(1000)));
    }
  }

  private static void fillGrouped(QueueEngine engine, int n) {
    List<NewMessage> batch = new ArrayList<>(1000);
    for (int i = 0; i < n; i++) {
      batch.add(
          NewMessage.builder("m" + i)
              .groupId("g" + (i % 5000))
              .deduplicationId("m" + i)
              .priority(i % 7 == 0 ? 1 : 0)
              .attribute("color", i % 100 == 0 ? "blue" : "red")
              .build());
      if (batch.size() == 1000 || i == n - 1) {
        engine.sendBatch("q.fifo", batch);
        batch.clear();
      }
    }
  }

  /** Delivery order of {@link #fillGrouped}: priority 1 (every 7th) first, then by arrival. */
  private static List<Integer> groupedOrder(int n) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      order.add(i);
    }
    order.sort(Comparator.comparingInt((Integer i) -> i % 7 == 0 ? 0 : 1).thenComparing(i -> i));
    return order;
  }

  private static List<String> bodies(Page page) {
    return page.items().stream().map(Message::body).toList();
  }

  @Test
  void groupedBrowse_pagesOfADeepQueue_holdTheLockBriefly_inDeliveryOrder() {
    try (QueueEngine engine = QueueEngine.inMemory()) {
      MemoryQueueEngine memory = (MemoryQueueEngine) engine;
      engine.createQueue("q.fifo", QueueConfig.defaults());
      fillGrouped(engine, N);
      List<String> expected = groupedOrder(N).stream().map(i -> "m" + i).toList();
      memory.lockHolds().resetLongest();

      BrowseRequest request = BrowseRequest.first(1000);
      List<String> seen = new ArrayList<>();
      for (int p = 0; p < 3; p++) {
        Page page = engine.browse("q.fifo", request);
        seen.addAll(bodies(page));
        request = request.after(page.nextCursor().orElseThrow());
      }
      assertEquals(expected.subList(0, 3000), seen);
      assertEquals(expected.subList(0, 7), bodies(engine.browse("q.fifo", BrowseRequest.first(7))));
      BrowseRequest blue = BrowseRequest.first(1000).filter(SelectorFilter.parse("color = 'blue'"));
      assertEquals("m0", bodies(engine.browse("q.fifo", blue)).get(0));

      assertBrief(memory, "a browse page of " + N + " grouped messages");
    }
  }

  @Test
  void groupedBrowse_allPages_filteredOrNot_areEveryMessageInDeliveryOrder() {
    int n = 10_000;
    try (QueueEngine engine = QueueEngine.inMemory()) {
      engine.createQueue("q.fifo", QueueConfig.defaults());
      fillGrouped(engine, n);
      List<Integer> order = groupedOrder(n);
      assertEquals(
          order.stream().map(i -> "m" + i).toList(),
          browseAll(engine, "q.fifo", BrowseRequest.first(1000)));
      assertEquals(
          order.stream().filter(i -> i % 100 == 0).map(i -> "m" + i).toList(),
          browseAll(
              engine,
              "q.fifo",
              BrowseRequest.first(1000).filter(SelectorFilter.parse("color = 'blue'"))));
    }
  }
}
