package io.switchboard.storage.rocksdb;

import static io.switchboard.storage.rocksdb.WindowedStore.body;
import static io.switchboard.storage.rocksdb.WindowedStore.number;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueLimits;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The window of delayed messages (docs/design.md, "A backlog bigger than memory", "Delayed
 * messages"): with a store that keeps the order index, a standard queue keeps at most {@code 2W}
 * delayed messages in the heap, a prefix of the timer order, and the rest in the store only; each
 * still becomes available, expires, changes and counts exactly as one in the heap. {@code W} is 4.
 */
class DelayedWindowTest {

  private static final int WINDOW = 4;

  @TempDir Path dir;

  private final ManualClock clock = ManualClock.create();
  private WindowedStore store;
  private QueueEngine engine;

  private QueueEngine open() {
    store = new WindowedStore(dir, WINDOW, clock);
    engine = store.open();
    return engine;
  }

  private void restart() {
    engine = store.restart();
  }

  /** The index (the delayed messages' delivery order included) agrees with the messages. */
  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  private String sendDelayed(int i, Duration delay) {
    return engine.send("q", NewMessage.builder(body(i)).delay(delay).build()).id();
  }

  private List<Integer> drain(int batch) {
    return store.drain("q", batch);
  }

  private long heldInHeap() {
    return store.heldInHeap("q");
  }

  /**
   * Delays of 1..n seconds, in a scrambled order of sends: message i is due at (7i mod n) + 1 s.
   */
  private static Duration scrambled(int i, int n) {
    return Duration.ofSeconds((7L * i) % n + 1);
  }

  @Test
  void delayedMessagesBeyondTheWindow_costTheHeapOnlyTheWindow_andEachFallsDueAtItsTime() {
    open().ensureQueue("q", QueueConfig.defaults());
    int n = 100;
    for (int i = 0; i < n; i++) {
      sendDelayed(i, scrambled(i, n));
    }
    QueueStats stats = engine.stats("q");
    assertEquals(n, stats.delayed());
    assertEquals(0, stats.available());
    assertTrue(heldInHeap() <= 2 * WINDOW, "held " + heldInHeap());

    for (int second = 1; second <= n; second++) {
      clock.advanceMillis(999);
      assertEquals(second - 1, engine.stats("q").available(), "not due before its time");
      clock.advanceMillis(1);
      assertEquals(second, engine.stats("q").available(), "due at its time, second " + second);
      assertEquals(n - second, engine.stats("q").delayed());
      assertTrue(heldInHeap() <= 4 * WINDOW, "held " + heldInHeap() + " at second " + second);
    }
    // available in delivery order (FIFO by send), whatever order they fell due in
    assertEquals(IntStream.range(0, n).boxed().toList(), drain(7));
  }

  @Test
  void aBurstFallingDueAtOnce_isReadInPages_andAllOfItIsAvailableAtThatTime() {
    open().ensureQueue("q", QueueConfig.defaults());
    for (int i = 0; i < 200; i++) {
      sendDelayed(i, Duration.ofSeconds(30));
    }
    clock.advanceMillis(29_999);
    assertEquals(0, engine.stats("q").available());
    clock.advanceMillis(1);
    assertEquals(200, engine.stats("q").available());
    assertEquals(0, engine.stats("q").delayed());
    assertTrue(heldInHeap() <= 2 * WINDOW, "held " + heldInHeap());
    assertEquals(IntStream.range(0, 200).boxed().toList(), drain(9));
  }

  @Test
  void aWaitingReceiver_getsColdDelayedMessagesWhenTheyFallDue_withoutAnyOtherOperation()
      throws Exception {
    open().ensureQueue("q", QueueConfig.defaults());
    for (int i = 0; i < 30; i++) {
      sendDelayed(i, Duration.ofSeconds(15));
    }
    CompletableFuture<List<Message>> waiting =
        CompletableFuture.supplyAsync(
            () ->
                engine.receive(
                    "q",
                    ReceiveRequest.builder()
                        .maxMessages(10)
                        .waitTime(Duration.ofSeconds(20))
                        .build()));
    while (engine.stats("q").waitingReceivers() == 0 && !waiting.isDone()) {
      Thread.onSpinWait();
    }
    clock.advanceMillis(15_000); // the housekeeping tick at that time is the only operation
    List<Message> got = waiting.get(10, TimeUnit.SECONDS);
    assertEquals(
        IntStream.range(0, 10).boxed().toList(), got.stream().map(WindowedStore::number).toList());
    assertEquals(20, engine.stats("q").available());
    assertEquals(0, engine.stats("q").delayed());
  }

  @Test
  void aColdDelayedMessage_expiresAtItsTime_withoutEverBecomingAvailable() {
    open().ensureQueue("q", QueueConfig.defaults());
    for (int i = 0; i < 30; i++) {
      Duration ttl = i == 25 ? Duration.ofSeconds(50) : Duration.ofHours(1);
      engine.send(
          "q", NewMessage.builder(body(i)).delay(Duration.ofSeconds(100)).timeToLive(ttl).build());
    }
    clock.advanceMillis(49_999);
    assertEquals(30, engine.stats("q").delayed());
    clock.advanceMillis(1);
    assertEquals(29, engine.stats("q").delayed());
    assertEquals(1, engine.stats("q").counters().expired());
    clock.advanceMillis(50_000);
    assertEquals(29, engine.stats("q").available());
    List<Integer> expected = new ArrayList<>(IntStream.range(0, 30).boxed().toList());
    expected.remove(Integer.valueOf(25));
    assertEquals(expected, drain(10));
  }

  @Test
  void aColdDelayedMessage_isReadChangedAndDeletedById() {
    open().ensureQueue("q", QueueConfig.defaults());
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      ids.add(sendDelayed(i, Duration.ofSeconds(60)));
    }
    Message cold = engine.get("q", ids.get(35));
    assertEquals(35, number(cold));
    assertEquals(MessageState.DELAYED, cold.state());
    engine.update("q", ids.get(35), MessageUpdate.priority(5));
    engine.remove("q", ids.get(36));
    assertEquals(
        ErrorCode.MESSAGE_NOT_FOUND,
        assertThrows(QueueException.class, () -> engine.get("q", ids.get(36))).code());
    assertEquals(39, engine.stats("q").delayed());
    assertEquals(5, engine.stats("q").byPriority().keySet().iterator().next());
    assertTrue(heldInHeap() <= 2 * WINDOW + 1, "held " + heldInHeap());

    clock.advanceMillis(60_000);
    List<Integer> order = drain(4);
    assertEquals(35, order.get(0), "the priority change puts it first");
    List<Integer> rest = new ArrayList<>(IntStream.range(0, 40).boxed().toList());
    rest.remove(Integer.valueOf(35));
    rest.remove(Integer.valueOf(36));
    assertEquals(rest, order.subList(1, order.size()));
  }

  @Test
  void releasesWithADelay_goCold_andComeBackAtTheirTimes() {
    open().ensureQueue("q", QueueConfig.builder().visibilityTimeout(Duration.ofMinutes(5)).build());
    for (int i = 0; i < 20; i++) {
      engine.send("q", NewMessage.of(body(i)));
    }
    List<Message> leased = new ArrayList<>();
    while (leased.size() < 20) {
      leased.addAll(engine.receive("q", ReceiveRequest.max(10)));
    }
    for (Message m : leased) {
      // message i is released for 20 - i seconds: the last received comes back first
      engine.release("q", m.receipt().orElseThrow(), Duration.ofSeconds(20 - number(m)), false);
    }
    assertEquals(20, engine.stats("q").delayed());
    assertTrue(heldInHeap() <= 2 * WINDOW, "held " + heldInHeap());
    for (int second = 1; second <= 20; second++) {
      clock.advanceMillis(1_000);
      List<Message> got = engine.receive("q", ReceiveRequest.max(10));
      assertEquals(List.of(20 - second), got.stream().map(WindowedStore::number).toList());
      engine.ack("q", got.get(0).receipt().orElseThrow());
    }
    assertEquals(0, engine.stats("q").depth());
  }

  @Test
  void purge_dropsTheColdDelayedMessagesToo() {
    open().ensureQueue("q", QueueConfig.defaults());
    for (int i = 0; i < 30; i++) {
      sendDelayed(i, Duration.ofSeconds(10));
    }
    engine.send("q", NewMessage.of(body(99)));
    assertEquals(31, engine.purge("q"));
    assertEquals(0, engine.stats("q").depth());
    clock.advanceMillis(10_000);
    assertEquals(0, engine.stats("q").depth());
    assertEquals(List.of(), drain(10));
  }

  @Test
  void droppingTheOldest_shedsColdDelayedMessagesInArrivalOrder() {
    open().ensureQueue("q", QueueConfig.builder().maxDepth(20, Overflow.DROP_OLDEST).build());
    for (int i = 0; i < 30; i++) {
      sendDelayed(i, Duration.ofSeconds(5));
      clock.advanceMillis(1);
    }
    assertEquals(20, engine.stats("q").delayed());
    assertEquals(10, engine.stats("q").counters().shed());
    clock.advanceMillis(5_000);
    assertEquals(IntStream.range(10, 30).boxed().toList(), drain(6));
  }

  @Test
  void statsByPriority_countColdDelayedMessages() {
    open().ensureQueue("q", QueueConfig.defaults());
    for (int i = 0; i < 30; i++) {
      engine.send(
          "q",
          NewMessage.builder(body(i)).priority(i % 3).delay(Duration.ofSeconds(i + 1)).build());
    }
    QueueStats stats = engine.stats("q");
    assertEquals(30, stats.delayed());
    assertEquals(10L, stats.byPriority().get(0));
    assertEquals(10L, stats.byPriority().get(1));
    assertEquals(10L, stats.byPriority().get(2));
  }

  @Test
  void aRestart_keepsColdDelayedMessages_andTheirTimes() {
    open().ensureQueue("q", QueueConfig.builder().order(Order.LIFO).build());
    int n = 40;
    for (int i = 0; i < n; i++) {
      sendDelayed(i, scrambled(i, n));
    }
    restart();
    assertEquals(n, engine.stats("q").delayed());
    assertTrue(heldInHeap() <= 2 * WINDOW, "held " + heldInHeap());
    clock.advanceMillis(n / 2 * 1_000L);
    assertEquals(n / 2, engine.stats("q").available());
    restart();
    assertEquals(n / 2, engine.stats("q").available());
    assertEquals(n / 2, engine.stats("q").delayed());
    clock.advanceMillis(n / 2 * 1_000L);
    // LIFO: the latest sent first
    assertEquals(
        IntStream.range(0, n).boxed().sorted(Comparator.reverseOrder()).toList(), drain(6));
  }

  @Test
  void aRestart_readsOnlyTheDelayedMessagesDueFirst_andTheRestFallDueAtTheirTimes() {
    open().ensureQueue("q", QueueConfig.defaults());
    int n = IndexPass.DELAYED_HELD + 50;
    List<NewMessage> batch = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      // message i is due at (i mod 60) + 1 seconds: the last 50 sent are due among the first
      batch.add(
          NewMessage.builder(String.format("%06d", i))
              .delay(Duration.ofSeconds(i % 60 + 1))
              .build());
      if (batch.size() == 10) {
        engine.sendBatch("q", batch);
        batch.clear();
      }
    }
    restart();
    assertEquals(n, engine.stats("q").delayed());
    assertTrue(
        engine.queuedBytes("q") <= 2 * WINDOW * QueueLimits.charge(6),
        "held " + engine.queuedBytes("q") / QueueLimits.charge(6));
    clock.advanceMillis(30_000);
    long dueBy30 = IntStream.range(0, n).filter(i -> i % 60 + 1 <= 30).count();
    assertEquals(dueBy30, engine.stats("q").available());
    assertEquals(n - dueBy30, engine.stats("q").delayed());
    clock.advanceMillis(30_000);
    assertEquals(n, engine.stats("q").available());
    assertEquals(0, engine.stats("q").delayed());
    engine.purge("q");
  }

  @Test
  void aBrowseWithTheInvisibleOnes_showsColdDelayedMessagesInDeliveryOrder() {
    open().ensureQueue("q", QueueConfig.defaults());
    for (int i = 0; i < 30; i++) {
      if (i % 3 == 0) {
        engine.send("q", NewMessage.of(body(i)));
      } else {
        sendDelayed(i, scrambled(i, 30));
      }
    }
    Message leased = engine.receive("q", ReceiveRequest.one()).get(0);
    List<Integer> seen = new ArrayList<>();
    BrowseRequest request = BrowseRequest.first(7).includeInvisible(true);
    while (true) {
      Page page = engine.browse("q", request);
      page.items().forEach(m -> seen.add(number(m)));
      if (page.nextCursor().isEmpty()) {
        break;
      }
      request = request.after(page.nextCursor().get());
    }
    assertEquals(IntStream.range(0, 30).boxed().toList(), seen);
    assertEquals(0, number(leased));
    assertTrue(heldInHeap() <= 4 * WINDOW + 1, "held " + heldInHeap());
  }

  @Test
  void aRedrive_movesColdDelayedDeadLettersBack() {
    open().ensureQueue("dlq", QueueConfig.defaults());
    engine.ensureQueue("q", QueueConfig.builder().deadLetter("dlq", 5).build());
    for (int i = 0; i < 20; i++) {
      engine.send("dlq", NewMessage.builder(body(i)).delay(Duration.ofSeconds(60)).build());
    }
    assertEquals(20, engine.stats("dlq").delayed());
    RedriveTask task = engine.startRedrive("dlq", RedriveRequest.to("q"));
    assertEquals(RedriveTask.Status.COMPLETED, task.status());
    assertEquals(20, task.moved());
    assertEquals(0, engine.stats("dlq").depth());
    assertEquals(IntStream.range(0, 20).boxed().toList(), drain(6));
  }
}
