package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.Orders;
import io.switchboard.queue.spi.Snapshot;
import io.switchboard.queue.spi.SystemRecords;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/**
 * Recovery does not read the backlog (docs/design.md, "Recovery does not read the backlog"): with
 * the order index and a hot window, a restart reads each queue's counts record, the records of the
 * messages the heap holds (delayed and in flight) and the window's first page, whatever the number
 * of available messages; and every semantic of the cold backlog holds after it.
 */
class RecoveryFromIndexTest {

  @TempDir Path dir;

  private final ManualClock clock = ManualClock.create();

  private QueueEngine open(Journal journal, int window) {
    return QueueEngine.builder().clock(clock).journal(journal).hotWindow(window).build();
  }

  private RocksJournal store() {
    return RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED);
  }

  private static String body(int i) {
    return String.format("%05d", i);
  }

  private static void sendAll(QueueEngine engine, String queue, int from, int to) {
    for (int i = from; i < to; i += 500) {
      List<NewMessage> batch = new ArrayList<>();
      for (int j = i; j < Math.min(to, i + 500); j++) {
        batch.add(NewMessage.of(body(j)));
      }
      engine.sendBatch(queue, batch);
    }
  }

  /**
   * The journal's snapshot, counting the message records recovery takes from it, and its orders,
   * counting the records read through them (the window's first page).
   */
  private record Counting(RocksJournal journal, AtomicLong recovered, AtomicLong paged)
      implements Journal {

    Counting(RocksJournal journal) {
      this(journal, new AtomicLong(), new AtomicLong());
    }

    @Override
    public Snapshot load() {
      Snapshot s = journal.load();
      List<Snapshot.QueueState> queues = new ArrayList<>();
      for (Snapshot.QueueState q : s.queues()) {
        Snapshot.Indexed i = q.indexed();
        queues.add(
            new Snapshot.QueueState(
                q.queue(),
                counted(q.messages()),
                q.dedup(),
                q.history(),
                i == null
                    ? null
                    : new Snapshot.Indexed(
                        i.counts(), counted(i.held()), i.expiryFloor(), i.lowestSeq())));
      }
      return new Snapshot(s.idPrefix(), s.sequenceLimit(), queues, s.tasks());
    }

    private Iterable<MessageRecord> counted(Iterable<MessageRecord> records) {
      return () ->
          new Iterator<>() {
            private final Iterator<MessageRecord> it = records.iterator();

            @Override
            public boolean hasNext() {
              return it.hasNext();
            }

            @Override
            public MessageRecord next() {
              recovered.incrementAndGet();
              return it.next();
            }
          };
    }

    @Override
    public void append(List<JournalEntry> entries) {
      journal.append(entries);
    }

    @Override
    public Ticket appendDurable(List<JournalEntry> entries) {
      return journal.appendDurable(entries);
    }

    @Override
    public SystemRecords systemRecords() {
      return journal.systemRecords();
    }

    @Override
    public boolean maintainsOrders() {
      return true;
    }

    @Override
    public Optional<Orders> orders() {
      Orders store = journal.orders().orElseThrow();
      return Optional.of(
          new Orders() {
            @Override
            public List<Long> available(
                String queue, Order order, @org.jspecify.annotations.Nullable After after, int n) {
              return store.available(queue, order, after, n);
            }

            @Override
            public List<Long> delayed(
                String queue, @org.jspecify.annotations.Nullable After after, int n) {
              return store.delayed(queue, after, n);
            }

            @Override
            public List<Long> inFlight(
                String queue, @org.jspecify.annotations.Nullable After after, int n) {
              return store.inFlight(queue, after, n);
            }

            @Override
            public List<Long> byExpiry(
                String queue, @org.jspecify.annotations.Nullable After after, int n) {
              return store.byExpiry(queue, after, n);
            }

            @Override
            public List<Long> byArrival(
                String queue, @org.jspecify.annotations.Nullable After after, int n) {
              return store.byArrival(queue, after, n);
            }

            @Override
            public List<Long> group(
                String queue,
                String groupId,
                @org.jspecify.annotations.Nullable After after,
                int n) {
              return store.group(queue, groupId, after, n);
            }

            @Override
            public Optional<MessageRecord> read(String queue, long serial) {
              paged.incrementAndGet();
              return store.read(queue, serial);
            }

            @Override
            public List<Optional<MessageRecord>> readAll(String queue, List<Long> serials) {
              paged.addAndGet(serials.size());
              return store.readAll(queue, serials);
            }

            @Override
            public Counts counts(String queue) {
              return store.counts(queue);
            }
          });
    }

    @Override
    public void close() {
      journal.close();
    }
  }

  /** Fills "q" with {@code backlog} available, 5 delayed and 3 in-flight messages; restarts. */
  private Counting restartWith(int backlog) {
    try (QueueEngine engine = open(store(), 100)) {
      engine.createQueue("q", QueueConfig.defaults());
      sendAll(engine, "q", 0, 3);
      engine.receive(
          "q",
          ReceiveRequest.builder().maxMessages(3).visibilityTimeout(Duration.ofHours(1)).build());
      for (int i = 0; i < 5; i++) {
        engine.send("q", NewMessage.builder("d" + i).delay(Duration.ofMinutes(10)).build());
      }
      sendAll(engine, "q", 3, 3 + backlog);
    }
    return new Counting(store());
  }

  @Test
  void aRestart_readsTheMessagesTheHeapHolds_andTheWindowsFirstPage_notTheBacklog() {
    Counting journal = restartWith(20_000);
    try (QueueEngine engine = open(journal, 100)) {
      assertEquals(8, journal.recovered().get(), "records recovery read: 5 delayed, 3 in flight");
      assertTrue(journal.paged().get() <= 100, "the window's first page: " + journal.paged());
      QueueStats stats = engine.stats("q");
      assertEquals(
          List.of(20_000L, 5L, 3L), List.of(stats.available(), stats.delayed(), stats.inFlight()));
      assertEquals(Map.of(0, 20_008L), stats.byPriority());
      List<String> first =
          engine
              .receive(
                  "q",
                  ReceiveRequest.builder()
                      .maxMessages(2)
                      .visibilityTimeout(Duration.ofHours(1))
                      .build())
              .stream()
              .map(Message::body)
              .toList();
      assertEquals(List.of(body(3), body(4)), first);
      clock.advance(Duration.ofMinutes(10));
      stats = engine.stats("q");
      assertEquals(
          List.of(20_003L, 0L, 5L), List.of(stats.available(), stats.delayed(), stats.inFlight()));
      clock.advance(Duration.ofHours(1));
      stats = engine.stats("q");
      assertEquals(
          List.of(20_008L, 0L, 0L), List.of(stats.available(), stats.delayed(), stats.inFlight()));
      assertEquals(List.of(), journal.journal().checkOrders());
    }
  }

  /**
   * A grouped queue: recovery reads the first message of each group (one key of each line) and the
   * messages in flight, not the groups' lines; a receive reads on in the store.
   */
  @Test
  void aRestartOfAGroupedQueue_readsTheFirstMessageOfEachGroup_notTheBacklog() {
    try (QueueEngine engine = open(store(), 100)) {
      engine.createQueue("g.fifo", QueueConfig.builder().contentBasedDeduplication(true).build());
      for (int i = 0; i < 20_000; i += 500) {
        List<NewMessage> batch = new ArrayList<>();
        for (int j = i; j < i + 500; j++) {
          batch.add(NewMessage.builder(body(j)).groupId("g" + j % 4).build());
        }
        engine.sendBatch("g.fifo", batch);
      }
      engine.receive(
          "g.fifo",
          ReceiveRequest.builder().maxMessages(1).visibilityTimeout(Duration.ofHours(1)).build());
    }
    Counting journal = new Counting(store());
    try (QueueEngine engine = open(journal, 100)) {
      assertEquals(4, journal.recovered().get(), "the first of each group, one in flight");
      assertEquals(0, journal.paged().get(), "no group's line is read before a receive");
      QueueStats stats = engine.stats("g.fifo");
      assertEquals(List.of(19_999L, 1L), List.of(stats.available(), stats.inFlight()));
      List<String> next =
          engine.receive("g.fifo", ReceiveRequest.max(10)).stream().map(Message::body).toList();
      assertEquals(IntStream.range(0, 10).mapToObj(i -> body(1 + 4 * i)).toList(), next);
      assertTrue(journal.paged().get() <= 20, "a page of one group's line: " + journal.paged());
      assertEquals(List.of(), journal.journal().checkOrders());
    }
  }

  @Test
  void withoutAWindow_aRestartReadsEveryMessage() {
    Counting journal = restartWith(2_000);
    try (QueueEngine engine = open(journal, 0)) {
      assertEquals(2_008, journal.recovered().get());
      assertEquals(2_000, engine.stats("q").available());
    }
  }

  /**
   * A LIFO queue puts a touched message behind everything: after a restart, behind the messages
   * touched before it, which recovery found from the lowest seq of the index, not by reading them.
   */
  @Test
  void afterARestart_aTouchInALifoQueue_goesBehindColdMessagesTouchedBefore() {
    List<String> ids = new ArrayList<>();
    try (QueueEngine engine = open(store(), 4)) {
      engine.createQueue("q", QueueConfig.builder().order(Order.LIFO).build());
      for (int i = 0; i < 40; i++) {
        ids.add(engine.send("q", NewMessage.of(body(i))).id());
      }
      engine.touch("q", ids.get(0));
    }
    try (QueueEngine engine = open(store(), 4)) {
      engine.touch("q", ids.get(1));
      List<String> order = new ArrayList<>();
      for (List<Message> got = engine.receive("q", ReceiveRequest.max(7));
          !got.isEmpty();
          got = engine.receive("q", ReceiveRequest.max(7))) {
        got.forEach(m -> order.add(m.body()));
      }
      List<String> expected = new ArrayList<>();
      for (int i = 39; i >= 2; i--) {
        expected.add(body(i));
      }
      expected.add(body(0));
      expected.add(body(1));
      assertEquals(expected, order);
    }
  }

  /** A cold message expires at its time after a restart (the expiry floor comes from the index). */
  @Test
  void afterARestart_aColdMessageExpiresAtItsTime_andPrioritiesAreCounted() {
    try (QueueEngine engine = open(store(), 4)) {
      engine.createQueue("q", QueueConfig.defaults());
      for (int i = 0; i < 30; i++) {
        Duration ttl = i == 25 ? Duration.ofSeconds(10) : Duration.ofHours(1);
        engine.send("q", NewMessage.builder(body(i)).priority(i % 3).timeToLive(ttl).build());
      }
    }
    try (QueueEngine engine = open(store(), 4)) {
      assertEquals(Map.of(2, 10L, 1, 10L, 0, 10L), engine.stats("q").byPriority());
      clock.advanceMillis(9_999);
      assertEquals(30, engine.stats("q").available());
      clock.advanceMillis(1);
      assertEquals(29, engine.stats("q").available());
      assertEquals(1, engine.stats("q").counters().expired());
      assertEquals(Map.of(2, 10L, 1, 9L, 0, 10L), engine.stats("q").byPriority());
    }
  }

  /**
   * Many queues, with names whose keys sort next to one another and empty queues between, recover
   * each its own counts and messages in the one ordered pass over the index.
   */
  @Test
  void manyQueues_eachRecoversItsOwnCountsInOnePass() {
    List<String> names = new ArrayList<>();
    for (String stem : List.of("a", "a-b", "a-", "ab", "a0", "b", "b.fifo", "zz")) {
      names.add(stem);
      names.add(stem.endsWith(".fifo") ? stem.replace(".fifo", "-empty.fifo") : stem + "-empty");
    }
    Map<String, List<Object>> before = new LinkedHashMap<>();
    try (QueueEngine engine = open(store(), 4)) {
      int n = 0;
      for (String name : names) {
        engine.createQueue(name, QueueConfig.defaults());
        if (name.contains("-empty")) {
          continue;
        }
        n++;
        for (int i = 0; i < 10 * n; i++) {
          NewMessage.Builder m = NewMessage.builder(body(i));
          if (name.endsWith(".fifo")) {
            m.groupId("g" + (i % 3)).deduplicationId("d" + i);
          } else {
            m.priority(i % n).delay(i % 4 == 0 ? Duration.ofMinutes(1) : Duration.ZERO);
          }
          engine.send(name, m.build());
        }
        engine.receive(name, ReceiveRequest.max(2));
      }
      for (String name : names) {
        before.put(name, withoutAge(engine.stats(name)));
      }
    }
    try (QueueEngine engine = open(store(), 4)) {
      for (String name : names) {
        assertEquals(before.get(name), withoutAge(engine.stats(name)), name);
      }
      assertEquals(
          IntStream.range(0, 80).filter(i -> i % 4 != 0).count() - 2,
          engine.stats("zz").available());
    }
  }

  /** What a restart keeps of a queue's stats (the totals since creation are not kept). */
  private static List<Object> withoutAge(QueueStats s) {
    return List.of(
        s.available(), s.delayed(), s.inFlight(), new java.util.TreeMap<>(s.byPriority()));
  }

  /**
   * An index marked complete by a version that did not keep its counts reliably (an empty marker)
   * is built again when opened, so the counts recovery trusts agree with the messages.
   */
  @Test
  void anIndexMarkedCompleteWithoutItsCounts_isBuiltAgain() throws Exception {
    try (QueueEngine engine = open(store(), 4)) {
      engine.createQueue("q", QueueConfig.defaults());
      sendAll(engine, "q", 0, 50);
    }
    withRawStore(
        (db, orders) -> {
          db.deleteRange(
              orders,
              OrderKeys.start("q", OrderKeys.COUNTER),
              OrderKeys.start("q", (byte) (OrderKeys.COUNTER + 1)));
          try (WriteOptions synced = new WriteOptions().setSync(true)) {
            db.put(synced, RocksJournal.ORDERS_COMPLETE_KEY, new byte[0]);
          }
        });
    RocksJournal journal = store();
    try (QueueEngine engine = open(journal, 4)) {
      assertEquals(List.of(), journal.checkOrders());
      assertEquals(50, engine.stats("q").available());
      assertEquals(body(0), engine.receive("q", ReceiveRequest.one()).get(0).body());
    }
  }

  private interface RawChange {
    void apply(RocksDB db, ColumnFamilyHandle orders) throws Exception;
  }

  /** Opens the closed store with RocksDB alone, for a change no Switchboard version makes. */
  private void withRawStore(RawChange change) throws Exception {
    List<byte[]> families;
    try (Options options = new Options()) {
      families = RocksDB.listColumnFamilies(options, dir.toString());
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (ColumnFamilyOptions cfOptions =
            new ColumnFamilyOptions().setMergeOperator(RocksJournal.COUNTS_ADD);
        DBOptions options = new DBOptions()) {
      List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
      for (byte[] f : families) {
        descriptors.add(new ColumnFamilyDescriptor(f, cfOptions));
      }
      try (RocksDB db = RocksDB.open(options, dir.toString(), descriptors, handles)) {
        ColumnFamilyHandle orders = null;
        for (int i = 0; i < families.size(); i++) {
          if (new String(families.get(i), java.nio.charset.StandardCharsets.UTF_8)
              .equals(RocksJournal.ORDERS)) {
            orders = handles.get(i);
          }
        }
        assertNotNull(orders);
        change.apply(db, orders);
      } finally {
        handles.forEach(ColumnFamilyHandle::close);
      }
    }
  }
}
