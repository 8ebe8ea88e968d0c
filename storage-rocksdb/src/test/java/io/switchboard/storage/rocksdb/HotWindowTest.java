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
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.queue.SelectorFilter;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hot window (docs/design.md, "A backlog bigger than memory"): with a store that keeps the
 * order index, a standard queue keeps at most {@code 2W} available messages in the heap and the
 * rest in the store only, and every semantic holds across the boundary. {@code W} is 4 here.
 */
class HotWindowTest {

  private static final int WINDOW = 4;

  @TempDir Path dir;

  private final ManualClock clock = ManualClock.create();
  private WindowedStore store;
  private QueueEngine engine;

  private QueueEngine open(int window) {
    store = new WindowedStore(dir, window, clock);
    engine = store.open();
    return engine;
  }

  /** The index agrees with the messages after each test. */
  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  private List<String> sendAll(String queue, int n) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(engine.send(queue, NewMessage.of(body(i))).id());
    }
    return ids;
  }

  private List<Integer> drain(String queue, int batch) {
    return store.drain(queue, batch);
  }

  @Test
  void aBacklogBeyondTheWindow_costsTheHeapOnlyTheWindow_andIsReceivedInOrder() {
    open(WINDOW).ensureQueue("q", QueueConfig.defaults());
    sendAll("q", 100);

    assertEquals(100, engine.stats("q").available());
    long oneMessage = QueueLimits.charge(body(0).length());
    assertTrue(
        engine.queuedBytes("q") <= 2 * WINDOW * oneMessage,
        "the heap holds at most 2W messages, held " + engine.queuedBytes("q") / oneMessage);
    assertEquals(IntStream.range(0, 100).boxed().toList(), drain("q", 3));
    assertEquals(0, engine.stats("q").available());
    assertEquals(0, engine.queuedBytes("q"));
  }

  @Test
  void withoutAWindow_theHeapHoldsEveryMessage() {
    open(0).ensureQueue("q", QueueConfig.defaults());
    sendAll("q", 20);
    assertEquals(20 * QueueLimits.charge(body(0).length()), engine.queuedBytes("q"));
  }

  @Test
  void priorityAndLifo_holdAcrossTheBoundary() {
    open(WINDOW).ensureQueue("q", QueueConfig.builder().order(Order.LIFO).build());
    for (int i = 0; i < 40; i++) {
      engine.send("q", NewMessage.builder(body(i)).priority(i % 3).build());
    }
    List<Integer> expected =
        IntStream.range(0, 40)
            .boxed()
            .sorted(Comparator.<Integer>comparingInt(i -> -(i % 3)).thenComparing(i -> -i))
            .toList();
    assertEquals(40, engine.stats("q").byPriority().values().stream().mapToLong(n -> n).sum());
    assertEquals(expected, drain("q", 5));
  }

  @Test
  void aColdMessage_isReadChangedAndDeletedById() {
    open(WINDOW).ensureQueue("q", QueueConfig.defaults());
    List<String> ids = sendAll("q", 50);

    Message cold = engine.get("q", ids.get(40));
    assertEquals(40, number(cold));
    assertEquals(MessageState.AVAILABLE, cold.state());
    engine.update("q", ids.get(40), MessageUpdate.priority(9));
    engine.remove("q", ids.get(45));
    assertEquals(
        ErrorCode.MESSAGE_NOT_FOUND,
        assertThrows(QueueException.class, () -> engine.get("q", ids.get(45))).code());
    assertEquals(49, engine.stats("q").available());

    List<Integer> order = drain("q", 4);
    assertEquals(40, order.get(0), "the priority change puts it first");
    List<Integer> rest = new ArrayList<>(IntStream.range(0, 50).boxed().toList());
    rest.remove(Integer.valueOf(40));
    rest.remove(Integer.valueOf(45));
    assertEquals(rest, order.subList(1, order.size()));
  }

  @Test
  void aColdMessage_expiresAtItsTime() {
    open(WINDOW).ensureQueue("q", QueueConfig.defaults());
    for (int i = 0; i < 30; i++) {
      Duration ttl = i == 25 ? Duration.ofSeconds(10) : Duration.ofHours(1);
      engine.send("q", NewMessage.builder(body(i)).timeToLive(ttl).build());
    }
    clock.advanceMillis(9_999);
    assertEquals(30, engine.stats("q").available());
    clock.advanceMillis(1);
    assertEquals(29, engine.stats("q").available());
    assertEquals(1, engine.stats("q").counters().expired());
    List<Integer> expected = new ArrayList<>(IntStream.range(0, 30).boxed().toList());
    expected.remove(Integer.valueOf(25));
    assertEquals(expected, drain("q", 10));
  }

  @Test
  void droppingTheOldest_shedsColdMessagesFirstInArrivalOrder() {
    open(WINDOW).ensureQueue("q", QueueConfig.builder().maxDepth(20, Overflow.DROP_OLDEST).build());
    sendAll("q", 30);
    assertEquals(20, engine.stats("q").available());
    assertEquals(10, engine.stats("q").counters().shed());
    assertEquals(IntStream.range(10, 30).boxed().toList(), drain("q", 7));
  }

  @Test
  void aReleasedMessage_goesBackToItsPlace_beforeTheColdOnes() {
    open(WINDOW).ensureQueue("q", QueueConfig.defaults());
    sendAll("q", 30);
    Message first = engine.receive("q", ReceiveRequest.one()).get(0);
    engine.release("q", first.receipt().orElseThrow(), Duration.ZERO, false);
    assertEquals(IntStream.range(0, 30).boxed().toList(), drain("q", 4));
  }

  @Test
  void aRestart_keepsTheBacklog() {
    open(WINDOW).ensureQueue("q", QueueConfig.defaults());
    sendAll("q", 40);
    engine = store.restart();
    assertEquals(40, engine.stats("q").available());
    assertTrue(engine.queuedBytes("q") <= 2 * WINDOW * QueueLimits.charge(body(0).length()));
    assertEquals(IntStream.range(0, 40).boxed().toList(), drain("q", 6));
  }

  @Test
  void aBrowse_pagesThroughHotAndColdInOrder_withoutKeepingTheColdOnes() {
    open(WINDOW).ensureQueue("q", QueueConfig.defaults());
    sendAll("q", 30);
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
    assertTrue(engine.queuedBytes("q") <= (2 * WINDOW + 1) * QueueLimits.charge(body(0).length()));
  }

  @Test
  void aRedrive_movesColdDeadLettersBackInOrder() {
    open(WINDOW).ensureQueue("dlq", QueueConfig.defaults());
    engine.ensureQueue("q", QueueConfig.builder().deadLetter("dlq", 5).build());
    List<String> ids = sendAll("q", 20);
    for (String id : ids) {
      engine.deadLetterById("q", id);
    }
    assertEquals(20, engine.stats("dlq").available());
    RedriveTask task = engine.startRedrive("dlq", RedriveRequest.toSources());
    assertEquals(RedriveTask.Status.COMPLETED, task.status());
    assertEquals(20, task.moved());
    assertEquals(0, engine.stats("dlq").depth());
    assertEquals(IntStream.range(0, 20).boxed().toList(), drain("q", 6));
  }

  @Test
  void aFilteredReceive_findsAColdMessage() {
    open(WINDOW).ensureQueue("q", QueueConfig.defaults());
    for (int i = 0; i < 30; i++) {
      engine.send(
          "q", NewMessage.builder(body(i)).attribute("lang", i == 25 ? "es" : "en").build());
    }
    List<Message> got =
        engine.receive(
            "q",
            ReceiveRequest.builder()
                .maxMessages(10)
                .filter(SelectorFilter.parse("lang = 'es'"))
                .build());
    assertEquals(List.of(25), got.stream().map(WindowedStore::number).toList());
    assertEquals(29, engine.stats("q").available());
  }

  @Test
  void sendsWhileOthersReceive_everyMessageIsReceivedOnce() throws Exception {
    open(WINDOW).ensureQueue("q", QueueConfig.defaults());
    int perSender = 150;
    Set<String> received = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<?>> senders = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        senders.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perSender; i++) {
                    engine.send("q", NewMessage.of(body(i)));
                  }
                }));
      }
      Future<?> receiver =
          pool.submit(
              () -> {
                while (received.size() < 2 * perSender) {
                  for (Message m : engine.receive("q", ReceiveRequest.max(3))) {
                    assertTrue(received.add(m.id()), "received twice: " + m.id());
                    engine.ack("q", m.receipt().orElseThrow());
                  }
                }
              });
      for (Future<?> f : senders) {
        f.get();
      }
      receiver.get();
    } finally {
      pool.shutdownNow();
    }
    assertEquals(2 * perSender, received.size());
    assertEquals(0, engine.stats("q").depth());
    assertEquals(0, engine.queuedBytes("q"));
  }
}
