package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.Orders;
import io.switchboard.queue.spi.Place;
import io.switchboard.queue.spi.QueueRules;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store's order index (docs/design.md, "A backlog bigger than memory") read back through {@link
 * Orders} against what the engine shows, after every step of random work on standard, LIFO, grouped
 * and dead-letter queues, and across restarts, a first open with the index and an open without it.
 */
class OrderIndexTest {

  private static final String STD = "std";
  private static final String LIFO = "lifo";
  private static final String GROUPED = "grp.fifo";
  private static final String DLQ = "dlq";
  private static final String GROUPED_DLQ = "dlq.fifo";
  private static final List<String> QUEUES = List.of(STD, LIFO, GROUPED, DLQ, GROUPED_DLQ);

  @TempDir Path dir;

  /** How many messages the checks saw, by queue and state: the work must reach every order. */
  private final Map<String, Integer> seen = new TreeMap<>();

  @Test
  void theIndexFollowsEveryChangeOfEveryMessage_andSurvivesARestart() {
    for (long seed = 1; seed <= 6; seed++) {
      Path store = dir.resolve("seed-" + seed);
      ManualClock clock = ManualClock.create();
      RocksJournal journal = RocksJournal.open(store, Durability.none(), OrderIndex.MAINTAINED);
      QueueEngine engine = QueueEngine.builder().clock(clock).journal(journal).build();
      engine.createQueue(DLQ, QueueConfig.defaults());
      engine.createQueue(GROUPED_DLQ, QueueConfig.defaults());
      engine.createQueue(STD, QueueConfig.builder().deadLetter(DLQ, 3).build());
      engine.createQueue(LIFO, QueueConfig.builder().order(Order.LIFO).deadLetter(DLQ, 2).build());
      engine.createQueue(GROUPED, QueueConfig.builder().deadLetter(GROUPED_DLQ, 2).build());
      Random random = new Random(seed);
      Map<String, List<String>> receipts = new TreeMap<>();
      for (int step = 0; step < 250; step++) {
        String queue = QUEUES.get(random.nextInt(QUEUES.size()));
        try {
          step(engine, clock, random, queue, receipts);
        } catch (QueueException refused) {
          // a refusal (a stale receipt, a message gone, toBack in a grouped queue) changes nothing
        }
        check(engine, journal, "seed " + seed + ", step " + step);
      }
      engine.close();
      journal = RocksJournal.open(store, Durability.none(), OrderIndex.MAINTAINED);
      engine = QueueEngine.builder().clock(clock).journal(journal).build();
      check(engine, journal, "seed " + seed + ", after a restart");
      engine.close();
    }
    for (String queue : QUEUES) {
      for (MessageState state :
          List.of(MessageState.AVAILABLE, MessageState.DELAYED, MessageState.IN_FLIGHT)) {
        if (state == MessageState.DELAYED && QueueRules.isGrouped(queue)) {
          continue; // grouped sends here are not delayed
        }
        if (state == MessageState.DELAYED && queue.equals(GROUPED_DLQ)) {
          continue;
        }
        assertTrue(
            seen.getOrDefault(queue + " " + state, 0) > 0,
            "the work never left a message " + state + " in " + queue + ": " + seen);
      }
    }
  }

  private static void step(
      QueueEngine engine,
      ManualClock clock,
      Random random,
      String queue,
      Map<String, List<String>> receipts) {
    List<String> leases = receipts.computeIfAbsent(queue, q -> new ArrayList<>());
    switch (random.nextInt(14)) {
      case 0, 1, 2, 3 -> {
        NewMessage.Builder m =
            NewMessage.builder("m" + random.nextInt(1000)).priority(random.nextInt(5) - 2);
        if (QueueRules.isGrouped(queue)) {
          m.groupId("g" + random.nextInt(3)).deduplicationId(UUID.randomUUID().toString());
        } else if (random.nextInt(4) == 0) {
          m.delay(Duration.ofSeconds(1 + random.nextInt(5)));
        }
        if (random.nextInt(4) == 0) {
          m.timeToLive(Duration.ofSeconds(60 + random.nextInt(60)));
        }
        engine.send(queue, m.build());
      }
      case 4, 5 -> {
        ReceiveRequest request =
            ReceiveRequest.builder()
                .maxMessages(1 + random.nextInt(3))
                .visibilityTimeout(Duration.ofSeconds(1 + random.nextInt(10)))
                .build();
        for (Message m : engine.receive(queue, request)) {
          leases.add(m.receipt().orElseThrow());
        }
      }
      case 6 -> {
        if (!leases.isEmpty()) {
          engine.ack(queue, leases.remove(random.nextInt(leases.size())));
        }
      }
      case 7 -> {
        if (!leases.isEmpty()) {
          engine.release(
              queue,
              leases.remove(random.nextInt(leases.size())),
              Duration.ofSeconds(random.nextInt(3)),
              random.nextBoolean());
        }
      }
      case 8 -> {
        String id = anyId(engine, queue, random);
        if (id != null) {
          engine.update(queue, id, MessageUpdate.priority(random.nextInt(7) - 3));
        }
      }
      case 9 -> {
        String id = anyId(engine, queue, random);
        if (id != null) {
          engine.touch(queue, id);
        }
      }
      case 10 -> {
        String id = anyId(engine, queue, random);
        if (id != null) {
          if (random.nextBoolean()) {
            engine.remove(queue, id);
          } else {
            engine.deadLetterById(queue, id);
          }
        }
      }
      case 11 -> {
        String id = anyId(engine, DLQ, random);
        if (id != null) {
          engine.restore(DLQ, id);
        } else if (random.nextInt(3) == 0) {
          engine.startRedrive(DLQ, RedriveRequest.toSources());
        }
      }
      case 12 -> {
        if (random.nextInt(10) == 0) {
          engine.purge(queue);
        }
      }
      default -> clock.advanceMillis(random.nextInt(4_000));
    }
  }

  private static String anyId(QueueEngine engine, String queue, Random random) {
    List<Message> all = browseAll(engine, queue);
    return all.isEmpty() ? null : all.get(random.nextInt(all.size())).id();
  }

  private static List<Message> browseAll(QueueEngine engine, String queue) {
    var page =
        engine.browse(queue, io.switchboard.queue.BrowseRequest.first(1000).includeInvisible(true));
    assertTrue(page.nextCursor().isEmpty(), "the test keeps queues under a page");
    return page.items();
  }

  /** Every order the store keeps, against the engine's own view of the queue. */
  private void check(QueueEngine engine, RocksJournal journal, String where) {
    Orders orders = journal.orders().orElseThrow();
    for (String queue : QUEUES) {
      List<Message> all = browseAll(engine, queue); // in delivery order; fires due timers first
      for (Message m : all) {
        seen.merge(queue + " " + m.state(), 1, Integer::sum);
      }
      var stats = engine.stats(queue);
      Orders.Counts counts = orders.counts(queue);
      assertEquals(
          List.of(stats.available(), stats.delayed(), stats.inFlight()),
          List.of(counts.available(), counts.delayed(), counts.inFlight()),
          where + ", queue " + queue + ": counts by state");
      assertEquals(
          new TreeMap<>(stats.byPriority()),
          new TreeMap<>(counts.byPriority()),
          where + ", queue " + queue + ": counts by priority");
      String at = where + ", queue " + queue;
      if (!QueueRules.isGrouped(queue)) {
        Order order = engine.queue(queue).config().order();
        assertEquals(
            serials(all.stream().filter(m -> m.state() == MessageState.AVAILABLE).toList()),
            orders.available(queue, order, 10_000),
            at + ": available, in delivery order");
        assertEquals(
            orders.available(queue, order, 10_000),
            paged(orders, queue, after -> orders.available(queue, order, after, 2)),
            at + ": available, in pages of 2");
      } else {
        Map<String, List<Message>> groups = new TreeMap<>();
        for (Message m : all) {
          groups.computeIfAbsent(m.groupId().orElseThrow(), g -> new ArrayList<>()).add(m);
        }
        groups.forEach(
            (group, line) -> {
              assertEquals(
                  serials(sorted(line, Message::sequence)),
                  orders.group(queue, group, 10_000),
                  at + ": group " + group);
              assertEquals(
                  orders.group(queue, group, 10_000),
                  paged(orders, queue, after -> orders.group(queue, group, after, 2)),
                  at + ": group " + group + " in pages of 2");
            });
      }
      assertEquals(
          serials(
              sorted(
                  all.stream().filter(m -> m.state() == MessageState.DELAYED).toList(),
                  m -> m.visibleAt().orElseThrow().toEpochMilli())),
          orders.delayed(queue, 10_000),
          at + ": delayed, by due time");
      assertEquals(
          serials(
              sorted(
                  all.stream().filter(m -> m.state() == MessageState.IN_FLIGHT).toList(), m -> 0)),
          orders.inFlight(queue, 10_000),
          at + ": in flight");
      assertEquals(
          serials(sorted(all, m -> m.expiresAt().toEpochMilli())),
          orders.byExpiry(queue, 10_000),
          at + ": by expiry");
      assertEquals(
          serials(sorted(all, m -> m.sentAt().toEpochMilli())),
          orders.byArrival(queue, 10_000),
          at + ": by arrival");
      assertEquals(
          orders.delayed(queue, 10_000),
          paged(orders, queue, after -> orders.delayed(queue, after, 2)),
          at + ": delayed in pages");
      assertEquals(
          orders.inFlight(queue, 10_000),
          paged(orders, queue, after -> orders.inFlight(queue, after, 2)),
          at + ": in flight in pages");
      assertEquals(
          orders.byExpiry(queue, 10_000),
          paged(orders, queue, after -> orders.byExpiry(queue, after, 2)),
          at + ": by expiry in pages");
      assertEquals(
          orders.byArrival(queue, 10_000),
          paged(orders, queue, after -> orders.byArrival(queue, after, 2)),
          at + ": by arrival in pages");
    }
  }

  /** An order read in pages of 2, each going on after the last message of the one before. */
  private static List<Long> paged(
      Orders orders, String queue, Function<Orders.@Nullable After, List<Long>> page) {
    List<Long> out = new ArrayList<>();
    Orders.After after = null;
    while (true) {
      List<Long> read = page.apply(after);
      out.addAll(read);
      if (read.size() < 2) {
        return out;
      }
      long last = read.get(read.size() - 1);
      after = new Orders.After(last, Place.of(orders.read(queue, last).orElseThrow()));
    }
  }

  /** Sorted by {@code key}, then serial, as the index's keys are. */
  private static List<Message> sorted(List<Message> messages, ToLongFunction<Message> key) {
    List<Message> out = new ArrayList<>(messages);
    out.sort(Comparator.comparingLong(key).thenComparingLong(OrderIndexTest::serial));
    return out;
  }

  private static List<Long> serials(List<Message> messages) {
    return messages.stream().map(OrderIndexTest::serial).toList();
  }

  private static long serial(Message m) {
    return UUID.fromString(m.id()).getLeastSignificantBits();
  }

  @Test
  void lifoReadsEachPriorityBandNewestFirst_andAChangeOfPriorityKeepsTheMessagesPlace() {
    RocksJournal journal =
        RocksJournal.open(dir.resolve("lifo"), Durability.none(), OrderIndex.MAINTAINED);
    try (QueueEngine engine = QueueEngine.builder().journal(journal).build()) {
      engine.createQueue(LIFO, QueueConfig.builder().order(Order.LIFO).build());
      List<Long> sent = new ArrayList<>();
      for (int priority : new int[] {0, 5, 0, -3, 5, 0}) {
        sent.add(serialOf(engine.send(LIFO, NewMessage.builder("x").priority(priority).build())));
      }
      Orders orders = journal.orders().orElseThrow();
      assertEquals(
          List.of(sent.get(4), sent.get(1), sent.get(5), sent.get(2), sent.get(0), sent.get(3)),
          orders.available(LIFO, Order.LIFO, 100));
      assertEquals(
          List.of(sent.get(1), sent.get(4), sent.get(0), sent.get(2), sent.get(5), sent.get(3)),
          orders.available(LIFO, Order.FIFO, 100),
          "the same keys read forward give FIFO within each band");
      assertEquals(
          List.of(sent.get(4), sent.get(1), sent.get(5)), orders.available(LIFO, Order.LIFO, 3));

      // the oldest message of priority 0 becomes 5: between the two 5s by its seq, in LIFO order
      engine.update(LIFO, idOf(engine, sent.get(0)), MessageUpdate.priority(5));
      assertEquals(
          List.of(sent.get(4), sent.get(1), sent.get(0), sent.get(5), sent.get(2), sent.get(3)),
          orders.available(LIFO, Order.LIFO, 100));

      // a read goes on after a place even when the message there is gone
      Place place = Place.of(orders.read(LIFO, sent.get(1)).orElseThrow());
      engine.remove(LIFO, idOf(engine, sent.get(1)));
      assertEquals(
          List.of(sent.get(0), sent.get(5), sent.get(2), sent.get(3)),
          orders.available(LIFO, Order.LIFO, new Orders.After(sent.get(1), place), 100));
      assertEquals(
          List.of(sent.get(0), sent.get(5)),
          orders.available(LIFO, Order.LIFO, new Orders.After(sent.get(1), place), 2));
    }
  }

  private static long serialOf(io.switchboard.queue.SendResult r) {
    return UUID.fromString(r.id()).getLeastSignificantBits();
  }

  private static String idOf(QueueEngine engine, long serial) {
    for (Message m : browseAll(engine, LIFO)) {
      if (serial(m) == serial) {
        return m.id();
      }
    }
    throw new AssertionError("no message " + serial);
  }

  @Test
  void aStoreKeptWithoutTheIndexBuildsItWhenOpenedWithIt_andDropsItWhenOpenedWithout() {
    Path store = dir.resolve("migrate");
    ManualClock clock = ManualClock.create();
    RocksJournal journal = RocksJournal.open(store, Durability.none(), OrderIndex.NONE);
    QueueEngine engine = QueueEngine.builder().clock(clock).journal(journal).build();
    assertTrue(journal.orders().isEmpty());
    engine.createQueue(STD, QueueConfig.defaults());
    for (int i = 0; i < 20; i++) {
      engine.send(STD, NewMessage.builder("m" + i).priority(i % 3).build());
    }
    List<Message> leased = engine.receive(STD, ReceiveRequest.max(5));
    engine.close();

    journal = RocksJournal.open(store, Durability.none(), OrderIndex.MAINTAINED);
    engine = QueueEngine.builder().clock(clock).journal(journal).build();
    assertEquals(List.of(), journal.checkOrders(), "built from the messages at open");
    assertEquals(5, journal.orders().orElseThrow().inFlight(STD, 100).size());
    engine.close();

    // kept without the index for a while: these changes never reach it
    journal = RocksJournal.open(store, Durability.none(), OrderIndex.NONE);
    engine = QueueEngine.builder().clock(clock).journal(journal).build();
    assertTrue(journal.orders().isEmpty());
    for (Message m : leased) {
      engine.ack(STD, m.receipt().orElseThrow());
    }
    engine.send(STD, NewMessage.of("later"));
    engine.close();

    journal = RocksJournal.open(store, Durability.none(), OrderIndex.MAINTAINED);
    engine = QueueEngine.builder().clock(clock).journal(journal).build();
    assertEquals(List.of(), journal.checkOrders(), "dropped, then built again from the messages");
    assertEquals(List.of(), journal.orders().orElseThrow().inFlight(STD, 100));
    assertEquals(16, journal.orders().orElseThrow().available(STD, Order.FIFO, 100).size());
    engine.close();
  }

  @Test
  void storeVerifyAndSalvageReadTheIndexsCounters_andTheSalvagedStoreRebuildsTheIndex() {
    Path store = dir.resolve("doctor");
    RocksJournal journal = RocksJournal.open(store, Durability.none(), OrderIndex.MAINTAINED);
    try (QueueEngine engine = QueueEngine.builder().journal(journal).build()) {
      engine.createQueue(STD, QueueConfig.defaults());
      for (int i = 0; i < 30; i++) {
        engine.send(STD, NewMessage.builder("m" + i).priority(i % 4).build());
      }
      engine.receive(STD, ReceiveRequest.max(7)); // counters changed by merges, not only puts
    }
    StoreDoctor.Report verified = StoreDoctor.verify(store);
    assertTrue(!verified.damaged(), verified.lines().toString());

    Path to = dir.resolve("salvaged");
    StoreDoctor.Report salvaged = StoreDoctor.salvage(store, to);
    assertTrue(!salvaged.damaged(), salvaged.lines().toString());
    journal = RocksJournal.open(to, Durability.none(), OrderIndex.MAINTAINED);
    try (QueueEngine engine = QueueEngine.builder().journal(journal).build()) {
      assertEquals(List.of(), journal.checkOrders());
      Orders.Counts counts = journal.orders().orElseThrow().counts(STD);
      assertEquals(
          List.of(23L, 0L, 7L), List.of(counts.available(), counts.delayed(), counts.inFlight()));
      assertEquals(Map.of(3, 7L, 2, 7L, 1, 8L, 0, 8L), counts.byPriority());
    }
  }

  @Test
  void aReadWaitsForWhatWasAppendedBeforeIt_withoutAnFsync() throws Exception {
    AtomicBoolean block = new AtomicBoolean();
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    RocksJournal journal =
        RocksJournal.open(
            dir.resolve("barrier"),
            Durability.sync(),
            db ->
                (options, batch) -> {
                  if (block.get()) {
                    entered.countDown();
                    try {
                      release.await();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                      throw new org.rocksdb.RocksDBException("interrupted");
                    }
                  }
                  db.write(options, batch);
                },
            OrderIndex.MAINTAINED);
    try {
      block.set(true);
      Place place = new Place(MessageRecord.AVAILABLE, 0, 7, 0, 1_000, 1, null);
      journal.append(List.of(new JournalEntry.Placement(STD, 42, null, place)));
      entered.await(); // the writer holds the entry, not yet written
      Thread reader = Thread.currentThread();
      AtomicBoolean done = new AtomicBoolean();
      Thread releaser =
          Thread.ofPlatform()
              .start(
                  () -> {
                    // lets the write go once the read waits for it (or has returned without it)
                    while (!done.get()
                        && reader.getState() != Thread.State.TIMED_WAITING
                        && reader.getState() != Thread.State.WAITING) {
                      Thread.onSpinWait();
                    }
                    block.set(false);
                    release.countDown();
                  });
      List<Long> read = journal.orders().orElseThrow().available(STD, Order.FIFO, 10);
      done.set(true);
      releaser.join();
      assertEquals(List.of(42L), read);
    } finally {
      release.countDown();
      journal.close();
    }
  }
}
