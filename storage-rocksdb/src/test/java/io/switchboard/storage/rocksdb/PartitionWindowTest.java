package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueLimits;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.SelectorFilter;
import io.switchboard.queue.spi.Partitions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hot window of attribute partitions (docs/design.md, "The hot window of attribute
 * partitions"): with a store that keeps each partition's line, a filtered receive over a cold
 * backlog reads the matching partitions' pages, never the backlog, and the queue keeps only its
 * windows in the heap (it is not pinned). {@code W} is 4 here.
 */
class PartitionWindowTest {

  private static final int WINDOW = 4;
  private static final String PAD = "x".repeat(1000);
  private static final long ONE = QueueLimits.charge(4 + PAD.length() + 16);

  /** A bound on the heap of a windowed queue: its window twice over and a few partition pages. */
  private static final long WINDOWED = (2L * WINDOW + 4L * WINDOW + 10) * ONE;

  @TempDir Path dir;

  private RocksJournal store;
  private CountingOrders orders;
  private QueueEngine engine;

  private QueueEngine open() {
    store = RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED);
    orders = new CountingOrders(store.orders().orElseThrow());
    engine =
        QueueEngine.builder()
            .journal(new CountingOrders.OverJournal(store, orders))
            .hotWindow(WINDOW)
            .build();
    return engine;
  }

  private void restart() {
    engine.close();
    open();
  }

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
      // the index (partition lines and counts included) agrees with the stored messages
      RocksJournal check = RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED);
      try {
        assertEquals(List.of(), check.checkOrders());
      } finally {
        check.close();
      }
    }
  }

  private static QueueConfig indexed(Order order, String... attributes) {
    return QueueConfig.builder().order(order).indexedAttributes(Set.of(attributes)).build();
  }

  private static String body(int i) {
    return String.format("%04d", i) + PAD;
  }

  private static int number(Message m) {
    return Integer.parseInt(m.body().substring(0, 4));
  }

  private static String lang(int i) {
    return switch (i % 3) {
      case 0 -> "en";
      case 1 -> "es";
      default -> "fr";
    };
  }

  private void sendLangs(String queue, int n) {
    for (int i = 0; i < n; i++) {
      engine.send(queue, NewMessage.builder(body(i)).attribute("lang", lang(i)).build());
    }
  }

  private List<Message> receive(String queue, int max, @Nullable String selector) {
    ReceiveRequest.Builder b = ReceiveRequest.builder().maxMessages(max);
    if (selector != null) {
      b.filter(SelectorFilter.parse(selector));
    }
    return engine.receive(queue, b.build());
  }

  /** Receives and acks everything {@code selector} matches; the numbers in receive order. */
  private List<Integer> drain(String queue, int batch, @Nullable String selector) {
    List<Integer> out = new ArrayList<>();
    while (true) {
      List<Message> got = receive(queue, batch, selector);
      if (got.isEmpty()) {
        return out;
      }
      for (Message m : got) {
        out.add(number(m));
        engine.ack(queue, m.receipt().orElseThrow());
      }
      assertTrue(
          engine.queuedBytes(queue) <= WINDOWED,
          "the queue keeps its windows only (not pinned): "
              + engine.queuedBytes(queue) / ONE
              + " messages in the heap");
    }
  }

  private static List<Integer> numbers(int n, int lang) {
    return IntStream.range(0, n).filter(i -> i % 3 == lang).boxed().toList();
  }

  @Test
  void aChangeOfOrder_keepsTheQueueWindowed_andServesTheNewOrderFromTheStore() {
    open().createQueue("q", indexed(Order.FIFO, "lang"));
    for (int i = 0; i < 120; i++) {
      engine.send(
          "q", NewMessage.builder(body(i)).attribute("lang", lang(i)).priority(i % 2).build());
    }
    // the store's lines serve LIFO too: the window is forgotten, not the backlog read in
    orders.reset();
    engine.updateQueue("q", indexed(Order.LIFO, "lang"));
    assertTrue(
        orders.recordsRead() <= 2 * WINDOW,
        "records read by the change of order: " + orders.recordsRead() + " (the backlog is 120)");
    assertTrue(
        engine.queuedBytes("q") <= WINDOWED,
        engine.queuedBytes("q") / ONE + " messages in the heap after the change of order");
    // the higher priority first, then the newest first
    java.util.Comparator<Integer> lifo =
        java.util.Comparator.<Integer>comparingInt(i -> -(i % 2)).thenComparing(i -> -i);
    List<Integer> es = numbers(120, 1).stream().sorted(lifo).toList();
    assertEquals(es, drain("q", 4, "lang = 'es'"));
    restart();
    List<Integer> rest =
        IntStream.range(0, 120).filter(i -> i % 3 != 1).boxed().sorted(lifo).toList();
    assertEquals(rest, drain("q", 4, null));
  }

  @Test
  void aFilteredReceiveOverAColdBacklog_keepsTheQueueWindowed() {
    open().createQueue("q", indexed(Order.FIFO, "lang"));
    sendLangs("q", 300);
    assertTrue(engine.queuedBytes("q") <= WINDOWED);

    assertEquals(numbers(300, 1), drain("q", 3, "lang = 'es'"));
    assertEquals(200, engine.stats("q").available());
    // the rest, unfiltered, in send order: the partition pages read ahead took no one's place
    List<Integer> rest = new ArrayList<>(numbers(300, 0));
    rest.addAll(numbers(300, 2));
    rest.sort(null);
    assertEquals(rest, drain("q", 5, null));
    assertEquals(0, engine.stats("q").available());
  }

  @Test
  void filteredAndUnfilteredReceives_taking_turns_getEveryMessageOnceInOrder() {
    open().createQueue("q", indexed(Order.FIFO, "lang"));
    sendLangs("q", 240);
    List<Integer> es = new ArrayList<>();
    List<Integer> any = new ArrayList<>();
    List<Integer> fr = new ArrayList<>();
    for (int turn = 0; ; turn++) {
      List<Message> a = receive("q", 2, "lang = 'es'");
      List<Message> b = receive("q", 3, null);
      List<Message> c = receive("q", 1, "lang IN ('fr')");
      for (Message m : a) {
        es.add(number(m));
        engine.ack("q", m.receipt().orElseThrow());
      }
      for (Message m : b) {
        any.add(number(m));
        engine.ack("q", m.receipt().orElseThrow());
      }
      for (Message m : c) {
        fr.add(number(m));
        engine.ack("q", m.receipt().orElseThrow());
      }
      assertTrue(engine.queuedBytes("q") <= WINDOWED, "turn " + turn);
      if (a.isEmpty() && b.isEmpty() && c.isEmpty()) {
        break;
      }
    }
    List<Integer> all = new ArrayList<>(es);
    all.addAll(any);
    all.addAll(fr);
    all.sort(null);
    assertEquals(IntStream.range(0, 240).boxed().toList(), all, "each message once");
    assertEquals(es.stream().sorted().toList(), es);
    assertEquals(fr.stream().sorted().toList(), fr);
    assertEquals(any.stream().sorted().toList(), any);
    assertTrue(es.stream().allMatch(i -> i % 3 == 1));
    assertTrue(fr.stream().allMatch(i -> i % 3 == 2));
  }

  @Test
  void aSelectivePartitionBehindAColdBacklog_answersInPages() {
    open().createQueue("q", indexed(Order.FIFO, "tier"));
    int depth = 5_000;
    List<NewMessage> batch = new ArrayList<>();
    for (int i = 0; i < depth; i++) {
      batch.add(NewMessage.builder(body(i)).attribute("tier", "basic").build());
      if (batch.size() == 10) {
        engine.sendBatch("q", batch);
        batch.clear();
      }
    }
    for (int i = 0; i < 6; i++) {
      engine.send("q", NewMessage.builder(body(depth + i)).attribute("tier", "vip").build());
    }
    orders.reset();

    List<Message> got = receive("q", 10, "tier = 'vip'");

    assertEquals(
        IntStream.range(depth, depth + 6).boxed().toList(),
        got.stream().map(PartitionWindowTest::number).toList());
    // one page of the partition's line and one batched read of its records: not the backlog
    assertTrue(orders.keyPages.get() <= 3, "pages of keys read: " + orders.keyPages.get());
    assertTrue(orders.recordsRead() <= 6 + WINDOW, "records read: " + orders.recordsRead());
    assertTrue(engine.queuedBytes("q") <= WINDOWED);
    assertEquals(depth, engine.stats("q").available());
  }

  @Test
  void aRestart_recoversTheCatalogue_fromTheCounts() {
    open().createQueue("q", indexed(Order.FIFO, "lang", "n"));
    for (int i = 0; i < 120; i++) {
      engine.send(
          "q",
          NewMessage.builder(body(i))
              .attribute("lang", lang(i))
              .attribute("n", AttributeValue.number((i % 2) + ".50"))
              .build());
    }
    String es15 = partition("es", "1.5");
    assertEquals(es15, partition("es", "1.50"), "1.5 and 1.50 are one partition");
    assertEquals(20L, store.orders().orElseThrow().partitions("q").get(es15));
    assertEquals(6, store.orders().orElseThrow().partitions("q").size());
    restart();
    assertTrue(engine.queuedBytes("q") <= WINDOWED);

    List<Integer> want =
        IntStream.range(0, 120).filter(i -> i % 3 == 1 && i % 2 == 1).boxed().toList();
    assertEquals(want, drain("q", 4, "lang = 'es' AND n > 1"));
    assertEquals(100, engine.stats("q").available());
  }

  private static String partition(String lang, String n) {
    return Objects.requireNonNull(
        Partitions.encode(
            List.of("lang", "n"),
            a -> a.equals("lang") ? AttributeValue.string(lang) : AttributeValue.number(n)));
  }

  @Test
  void lifoAndPriorities_holdInEachPartition() {
    open().createQueue("q", indexed(Order.LIFO, "lang"));
    for (int i = 0; i < 60; i++) {
      engine.send(
          "q",
          NewMessage.builder(body(i))
              .attribute("lang", lang(i))
              .priority(i % 4 == 0 ? 5 : 0)
              .build());
    }
    List<Integer> want = new ArrayList<>();
    for (int prio : new int[] {5, 0}) {
      for (int i = 59; i >= 0; i--) {
        if (i % 3 == 1 && (i % 4 == 0 ? 5 : 0) == prio) {
          want.add(i);
        }
      }
    }
    assertEquals(want, drain("q", 3, "lang = 'es'"));
  }

  @Test
  void aChangeOfTheIndexedAttributes_rewritesThePartitions_andStaysWindowed() {
    open().createQueue("q", indexed(Order.FIFO, "lang"));
    for (int i = 0; i < 90; i++) {
      engine.send(
          "q",
          NewMessage.builder(body(i))
              .attribute("lang", lang(i))
              .attribute("tier", i % 10 == 0 ? "vip" : "basic")
              .build());
    }
    engine.updateQueue("q", indexed(Order.FIFO, "tier"));
    receive("q", 1, null).forEach(m -> engine.release("q", m.receipt().orElseThrow()));
    assertTrue(engine.queuedBytes("q") <= WINDOWED, "windowed again after the rewrite");

    assertEquals(
        IntStream.range(0, 90).filter(i -> i % 10 == 0).boxed().toList(),
        drain("q", 4, "tier = 'vip'"));
    restart();
    assertEquals(
        IntStream.range(0, 90).filter(i -> i % 10 != 0 && i % 3 == 2).boxed().toList(),
        drain("q", 4, "tier = 'basic' AND lang = 'fr'"));
  }

  @Test
  void anIndexBuiltFromTheMessagesAtOpen_holdsThePartitions() {
    QueueEngine plain =
        QueueEngine.builder()
            .journal(RocksJournal.open(dir, Durability.none(), OrderIndex.NONE))
            .build();
    try {
      plain.createQueue("q", indexed(Order.FIFO, "lang"));
      for (int i = 0; i < 60; i++) {
        plain.send("q", NewMessage.builder(body(i)).attribute("lang", lang(i)).build());
      }
    } finally {
      plain.close();
    }
    open(); // builds the index, partition lines and counts included, from the messages

    assertEquals(3, orders.partitions("q").size());
    assertEquals(numbers(60, 2), drain("q", 3, "lang = 'fr'"));
  }
}
