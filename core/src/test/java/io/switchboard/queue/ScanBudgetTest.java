package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A filtered scan spends at most a small budget per hold of the queue's lock and then goes on in a
 * new hold (DESIGN.md, "Bounded work per request"). With a budget of a few messages per hold the
 * holds can be counted, so these tests need no timing.
 */
class ScanBudgetTest {

  private static final Scan.Limits THREE_PER_HOLD =
      new Scan.Limits(3, Long.MAX_VALUE, Long.MAX_VALUE);

  private final ManualClock clock = ManualClock.create();

  private MemoryQueueEngine engine() {
    MemoryQueueEngine engine = (MemoryQueueEngine) QueueEngine.builder().clock(clock).build();
    engine.scanLimits(THREE_PER_HOLD);
    return engine;
  }

  private static NewMessage message(String body, String color, String group) {
    NewMessage.Builder b = NewMessage.builder(body).attribute("color", color).attribute("k", "x");
    if (group != null) {
      b.groupId(group).deduplicationId(body);
    }
    return b.build();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"plain", "indexed", "plain.fifo", "indexed.fifo"})
  void receive_matchBehindManyHolds_isFoundAcrossHolds(String queue) {
    try (MemoryQueueEngine engine = engine()) {
      boolean indexed = queue.startsWith("indexed");
      boolean grouped = queue.endsWith(".fifo");
      engine.createQueue(
          queue,
          indexed
              ? QueueConfig.builder().indexedAttributes("color").build()
              : QueueConfig.defaults());
      for (int i = 0; i < 30; i++) {
        engine.send(queue, message("red" + i, "red", grouped ? "g" + i : null));
      }
      engine.send(queue, message("blue", "blue", grouped ? "gb" : null));
      long holdsBefore = engine.lockHolds().count();

      List<Message> got =
          engine.receive(
              queue, ReceiveRequest.builder().selector("k = 'x' AND color LIKE 'bl%'").build());
      assertEquals(List.of("blue"), got.stream().map(Message::body).toList());
      long holds = engine.lockHolds().count() - holdsBefore;
      if (!indexed) { // the index may narrow the candidates further than the scan would
        assertTrue(
            holds >= 10, "31 candidates at 3 per hold take at least 10 holds, took " + holds);
      }
    }
  }

  @Test
  void receive_budgetSpentAfterAMatch_answersWithWhatItFound() {
    try (MemoryQueueEngine engine = engine()) {
      engine.createQueue("q", QueueConfig.defaults());
      engine.send("q", message("blue0", "blue", null));
      for (int i = 0; i < 10; i++) {
        engine.send("q", message("red" + i, "red", null));
      }
      engine.send("q", message("blue1", "blue", null));

      List<Message> got =
          engine.receive(
              "q", ReceiveRequest.builder().maxMessages(10).selector("color = 'blue'").build());

      assertEquals(List.of("blue0"), got.stream().map(Message::body).toList());
      assertEquals(
          List.of("blue1"),
          engine
              .receive(
                  "q", ReceiveRequest.builder().maxMessages(10).selector("color = 'blue'").build())
              .stream()
              .map(Message::body)
              .toList());
    }
  }

  @Test
  void browse_budgetSpent_pagesEarlyWithACursor_andThePagesTogetherAreComplete() {
    try (MemoryQueueEngine engine = engine()) {
      engine.createQueue("q", QueueConfig.defaults());
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        String color = i % 4 == 0 ? "blue" : "red";
        engine.send("q", message("m" + i, color, null));
        if (color.equals("blue")) {
          expected.add("m" + i);
        }
      }
      MessageFilter blue = SelectorFilter.parse("color = 'blue'");

      List<String> seen = new ArrayList<>();
      int pages = 0;
      BrowseRequest request = BrowseRequest.first(100).filter(blue);
      while (true) {
        Page page = engine.browse("q", request);
        pages++;
        page.items().forEach(m -> seen.add(m.body()));
        if (page.nextCursor().isEmpty()) {
          break;
        }
        request = request.after(page.nextCursor().get());
      }

      assertEquals(expected, seen);
      assertTrue(pages >= 7, "20 messages at 3 per page take at least 7 pages, took " + pages);
    }
  }

  /**
   * Two long polls with filters; one send makes three messages eligible, the last of which only the
   * second waiter wants. The handover's budget runs out on the first waiter's tests, so both are
   * woken to look for themselves, and the second finds its message in its own holds.
   */
  @Test
  void longPoll_handoverOutOfBudget_waiterScansItselfAndIsServed() throws Exception {
    ExecutorService receivers = Executors.newFixedThreadPool(2);
    try (MemoryQueueEngine engine = engine()) {
      engine.scanLimits(new Scan.Limits(1, Long.MAX_VALUE, Long.MAX_VALUE));
      engine.createQueue("q", QueueConfig.defaults());
      Future<List<Message>> green = receivers.submit(() -> longPoll(engine, "color = 'green'"));
      Future<List<Message>> blue = receivers.submit(() -> longPoll(engine, "color = 'blue'"));
      while (engine.stats("q").waitingReceivers() < 2) {
        Thread.onSpinWait();
      }

      engine.sendBatch(
          "q",
          List.of(
              message("r1", "red", null), message("r2", "red", null), message("b", "blue", null)));

      assertEquals(
          List.of("b"), blue.get(1, TimeUnit.MINUTES).stream().map(Message::body).toList());
      assertEquals(1, engine.stats("q").waitingReceivers()); // green still waits
      clock.advance(Duration.ofSeconds(20));
      assertEquals(List.of(), green.get(1, TimeUnit.MINUTES));
    } finally {
      receivers.shutdownNow();
    }
  }

  /**
   * The handover that runs out of budget asks the waiter to scan and unparks it while the waiter is
   * queued on the queue's lock (it woke spuriously and came back for the lock, which the handover
   * holds): taking the lock swallows that unpark, so the waiter must see the request under the lock
   * rather than park until its deadline.
   */
  @Test
  void longPoll_rescanAskedWhileWaiterQueuesForTheLock_isNotLost() throws Exception {
    ExecutorService receivers = Executors.newSingleThreadExecutor();
    try (MemoryQueueEngine engine = engine()) {
      engine.scanLimits(new Scan.Limits(1, Long.MAX_VALUE, Long.MAX_VALUE));
      engine.createQueue("q", QueueConfig.defaults());
      Thread[] waiterThread = new Thread[1];
      Future<List<Message>> green =
          receivers.submit(
              () -> {
                waiterThread[0] = Thread.currentThread();
                return longPoll(engine, "color = 'green'");
              });
      while (engine.stats("q").waitingReceivers() < 1
          || !(LockSupport.getBlocker(waiterThread[0]) instanceof Waiter)) {
        Thread.onSpinWait();
      }
      QueueLock lock = engine.require("q").lock;
      lock.lock();
      try {
        LockSupport.unpark(waiterThread[0]); // a spurious wake-up, which parking allows
        while (!lock.hasQueuedThread(waiterThread[0])) {
          Thread.onSpinWait();
        }
        engine.sendBatch("q", List.of(message("r", "red", null), message("g", "green", null)));
      } finally {
        lock.unlock();
      }

      assertEquals(
          List.of("g"), green.get(1, TimeUnit.MINUTES).stream().map(Message::body).toList());
    } finally {
      receivers.shutdownNow();
    }
  }

  private static List<Message> longPoll(QueueEngine engine, String selector) {
    return engine.receive(
        "q", ReceiveRequest.builder().waitTime(Duration.ofSeconds(20)).selector(selector).build());
  }
}
