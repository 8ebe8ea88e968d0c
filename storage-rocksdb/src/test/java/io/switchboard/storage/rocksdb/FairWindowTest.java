package io.switchboard.storage.rocksdb;

import static io.switchboard.storage.rocksdb.WindowedStore.body;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.Message;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.SendResult;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fair queues over cold messages (docs/design.md, "Fair queues over cold messages"): a standard
 * queue that received a message with a group id keeps, with a store that keeps the tenant lines
 * ({@code F}), each tenant's first messages in the heap and the rest in the store only; its
 * receives choose as the in-memory engine's do (quiet tenants first, the noisy fallback). Each test
 * runs the same operations on a windowed RocksDB engine (a window of 4) and on the in-memory
 * engine, and compares what every receive gives.
 */
class FairWindowTest {

  private static final int WINDOW = 4;
  private static final String Q = "fair";

  /** Leases held at once: most of them the noisy tenant's, which makes it noisy (30, 10 %). */
  private static final int LEASES = 80;

  @TempDir Path dir;

  private WindowedStore store;
  private QueueEngine memory;

  /** Per message number, its id in each engine. */
  private final Map<Integer, String> rocksIds = new HashMap<>();

  private final Map<Integer, String> memoryIds = new HashMap<>();

  /** Every number received, in order. */
  private final List<Integer> received = new ArrayList<>();

  /** Leases held, oldest first: the number, its receipt in each engine. */
  private final ArrayDeque<Object[]> leases = new ArrayDeque<>();

  @BeforeEach
  void open() {
    ManualClock clock = ManualClock.create();
    store = new WindowedStore(dir, WINDOW, clock);
    store.open();
    memory = QueueEngine.builder().clock(clock).build();
    for (QueueEngine e : List.of(store.engine(), memory)) {
      e.ensureQueue(Q, QueueConfig.builder().build());
    }
  }

  @AfterEach
  void close() {
    memory.close();
    store.close(); // the index checked against the messages
  }

  /** Tenant of message {@code i}: "a" every 50th, "b" every 120th, else the noisy one. */
  private static @Nullable String tenantOf(int i) {
    if (i % 50 == 7) {
      return "a";
    }
    if (i % 120 == 11) {
      return "b";
    }
    return "noisy";
  }

  /** Sends messages {@code from..to-1} to both engines, in batches of 10. */
  private void send(int from, int to) {
    for (int i = from; i < to; i += 10) {
      List<NewMessage> batch = new ArrayList<>();
      for (int j = i; j < Math.min(to, i + 10); j++) {
        NewMessage.Builder b = NewMessage.builder(body(j));
        String tenant = tenantOf(j);
        if (tenant != null) {
          b.groupId(tenant);
        }
        batch.add(b.build());
      }
      List<SendResult> r = store.engine().sendBatch(Q, batch);
      List<SendResult> m = memory.sendBatch(Q, batch);
      for (int k = 0; k < batch.size(); k++) {
        rocksIds.put(i + k, r.get(k).id());
        memoryIds.put(i + k, m.get(k).id());
      }
    }
  }

  private static final ReceiveRequest TEN =
      ReceiveRequest.builder().maxMessages(10).visibilityTimeout(Duration.ofHours(1)).build();

  /**
   * One receive of up to 10 on both engines: the same numbers, in the same order; the leases are
   * kept, and the oldest acked past {@link #LEASES}. Returns how many it got.
   */
  private int receiveBoth() {
    List<Message> fromRocks = store.engine().receive(Q, TEN);
    List<Message> fromMemory = memory.receive(Q, TEN);
    List<Integer> got = fromRocks.stream().map(WindowedStore::number).toList();
    assertEquals(
        fromMemory.stream().map(WindowedStore::number).toList(), got, "the in-memory engine's");
    received.addAll(got);
    for (int k = 0; k < got.size(); k++) {
      leases.addLast(
          new Object[] {
            got.get(k),
            fromRocks.get(k).receipt().orElseThrow(),
            fromMemory.get(k).receipt().orElseThrow()
          });
    }
    while (leases.size() > LEASES) {
      Object[] oldest = leases.removeFirst();
      store.engine().ack(Q, (String) oldest[1]);
      memory.ack(Q, (String) oldest[2]);
    }
    return got.size();
  }

  private void removeBoth(int n) {
    store.engine().remove(Q, rocksIds.get(n));
    memory.remove(Q, memoryIds.get(n));
  }

  private void updateBoth(int n, int priority) {
    assertEquals(
        priority,
        store.engine().update(Q, rocksIds.get(n), MessageUpdate.priority(priority)).priority());
    memory.update(Q, memoryIds.get(n), MessageUpdate.priority(priority));
  }

  /** The heap holds the leases, the window and each tenant's first messages, not the backlog. */
  private void assertWindowed() {
    long held = store.heldInHeap(Q);
    long inFlight = store.engine().stats(Q).inFlight();
    // 2W besides the heads, each tenant's page (k = 4) and its head, a receive's batch
    long bound = inFlight + 2L * WINDOW + 3 * (WINDOW + 1) + 10;
    assertTrue(held <= bound, "held " + held + " with " + inFlight + " in flight");
  }

  private void assertSameStats() {
    assertEquals(memory.stats(Q).available(), store.engine().stats(Q).available(), "available");
    assertEquals(memory.stats(Q).inFlight(), store.engine().stats(Q).inFlight(), "in flight");
  }

  @Test
  void aNoisyTenantWithFiveThousandColdMessages_givesTheFairOrder_windowed_acrossARestart() {
    send(0, 5_000);
    // by id, cold messages: of a quiet tenant and of the noisy one, one deleted and one raised to
    // priority 5 each (a raised one is its tenant's best, and first while its tenant is quiet)
    removeBoth(4_957);
    removeBoth(4_990);
    updateBoth(4_807, 5);
    updateBoth(4_500, 5);
    assertSameStats();
    assertWindowed();

    while (received.size() < 2_000) {
      receiveBoth();
      assertWindowed();
    }
    // the quiet tenants' messages, far behind the noisy tenant's cold ones, came first: all of
    // them within the first 300 received
    assertEquals(
        List.of(),
        received.subList(300, received.size()).stream()
            .filter(n -> !"noisy".equals(tenantOf(n)))
            .toList());

    store.restart();
    assertSameStats();
    assertWindowed();

    // by id after the restart: a cold message of the noisy tenant deleted, one raised
    removeBoth(4_991);
    updateBoth(4_700, 3);
    assertSameStats();
    assertWindowed();

    while (receiveBoth() > 0) {
      assertWindowed();
    }
    while (!leases.isEmpty()) {
      Object[] l = leases.removeFirst();
      store.engine().ack(Q, (String) l[1]);
      memory.ack(Q, (String) l[2]);
    }
    assertSameStats();
    assertEquals(0, store.engine().stats(Q).available());
    assertEquals(0, store.engine().queuedBytes(Q));
  }

  @Test
  void newSendsToQuietTenants_whileTheNoisyOneIsCold_comeFirst() {
    send(0, 3_000);
    for (int round = 0; round < 40; round++) {
      receiveBoth();
      assertWindowed();
    }
    // more of every tenant behind the backlog, and messages without a group id (each a tenant of
    // its own, kept in the heap)
    send(3_000, 3_400);
    for (int i = 0; i < 5; i++) {
      int n = 10_000 + i;
      SendResult r = store.engine().send(Q, NewMessage.builder(body(n)).build());
      SendResult m = memory.send(Q, NewMessage.builder(body(n)).build());
      rocksIds.put(n, r.id());
      memoryIds.put(n, m.id());
    }
    for (int round = 0; round < 60; round++) {
      receiveBoth();
      assertWindowed();
    }
    assertSameStats();
  }

  @Test
  void purge_dropsTheColdTenantLines_andTheQueueStartsAfresh() {
    send(0, 2_000);
    for (int round = 0; round < 10; round++) {
      receiveBoth();
    }
    assertEquals(memory.purge(Q), store.engine().purge(Q));
    leases.clear();
    assertSameStats();
    assertEquals(0, store.engine().stats(Q).available());

    send(2_000, 2_600);
    for (int round = 0; round < 30; round++) {
      receiveBoth();
      assertWindowed();
    }
    assertSameStats();
  }

  @Test
  void aLifoQueueWithPriorities_givesTheFairOrder_windowed() {
    String lifo = "lifo";
    for (QueueEngine e : List.of(store.engine(), memory)) {
      e.ensureQueue(lifo, QueueConfig.builder().order(Order.LIFO).build());
    }
    for (int i = 0; i < 2_000; i++) {
      // three priority bands; each tenant has messages in each
      NewMessage m = NewMessage.builder(body(i)).groupId(tenantOf(i)).priority(i % 7 % 3).build();
      store.engine().send(lifo, m);
      memory.send(lifo, m);
    }
    List<String[]> held = new ArrayList<>();
    for (int round = 0; round < 120; round++) {
      List<Message> fromRocks = store.engine().receive(lifo, TEN);
      List<Message> fromMemory = memory.receive(lifo, TEN);
      assertEquals(
          fromMemory.stream().map(WindowedStore::number).toList(),
          fromRocks.stream().map(WindowedStore::number).toList(),
          "the in-memory engine's");
      for (int k = 0; k < fromRocks.size(); k++) {
        held.add(
            new String[] {
              fromRocks.get(k).receipt().orElseThrow(), fromMemory.get(k).receipt().orElseThrow()
            });
      }
      while (held.size() > LEASES) {
        String[] oldest = held.remove(0);
        store.engine().ack(lifo, oldest[0]);
        memory.ack(lifo, oldest[1]);
      }
      long inFlight = store.engine().stats(lifo).inFlight();
      long inHeap = store.heldInHeap(lifo);
      assertTrue(inHeap <= inFlight + 2L * WINDOW + 3 * (WINDOW + 1) + 10, "held " + inHeap);
    }
  }

  @Test
  void aLimitPerKey_passesOverATenantAtItsLimit_asTheInMemoryEngineDoes() {
    String limited = "limited";
    for (QueueEngine e : List.of(store.engine(), memory)) {
      e.ensureQueue(limited, QueueConfig.builder().keyLimit(25).build());
    }
    for (int i = 0; i < 1_500; i++) {
      NewMessage m = NewMessage.builder(body(i)).groupId(tenantOf(i)).build();
      store.engine().send(limited, m);
      memory.send(limited, m);
    }
    List<String[]> held = new ArrayList<>();
    for (int round = 0; round < 100; round++) {
      List<Message> fromRocks = store.engine().receive(limited, TEN);
      List<Message> fromMemory = memory.receive(limited, TEN);
      assertEquals(
          fromMemory.stream().map(WindowedStore::number).toList(),
          fromRocks.stream().map(WindowedStore::number).toList(),
          "the in-memory engine's");
      for (int k = 0; k < fromRocks.size(); k++) {
        held.add(
            new String[] {
              fromRocks.get(k).receipt().orElseThrow(), fromMemory.get(k).receipt().orElseThrow()
            });
      }
      // acks lag behind, so the noisy tenant sits at its limit of 25 most of the time
      if (round % 3 == 2) {
        for (int k = 0; k < 20 && !held.isEmpty(); k++) {
          String[] oldest = held.remove(0);
          store.engine().ack(limited, oldest[0]);
          memory.ack(limited, oldest[1]);
        }
      }
      long inFlight = store.engine().stats(limited).inFlight();
      long inHeap = store.heldInHeap(limited);
      assertTrue(inHeap <= inFlight + 2L * WINDOW + 3 * (WINDOW + 1) + 10, "held " + inHeap);
    }
    assertEquals(memory.stats(limited).available(), store.engine().stats(limited).available());
  }

  @Test
  void aRestartHoldingMessagesWithoutAGroupId_keepsTheFairOrder() {
    send(0, 600);
    for (int i = 0; i < 20; i++) {
      int n = 20_000 + i;
      rocksIds.put(n, store.engine().send(Q, NewMessage.builder(body(n)).build()).id());
      memoryIds.put(n, memory.send(Q, NewMessage.builder(body(n)).build()).id());
    }
    for (int round = 0; round < 2; round++) {
      receiveBoth(); // the noisy tenant's first 20: none of those without a group id yet
    }
    // their place among the tenants is in no order kept by tenant: the queue keeps every message
    // in the heap from then on (docs/design.md, "Fair queues over cold messages"), in the same
    // order
    store.restart();
    assertSameStats();
    while (receiveBoth() > 0) {
      // every receive compared
    }
    assertSameStats();
  }

  @Test
  void eachReceive_readsAFewPagesOfKeys_notTheBacklog() {
    RocksJournal journal =
        RocksJournal.open(dir.resolve("counted"), Durability.none(), OrderIndex.MAINTAINED);
    CountingOrders orders = new CountingOrders(journal.orders().orElseThrow());
    QueueEngine counted =
        QueueEngine.builder()
            .journal(new CountingOrders.OverJournal(journal, orders))
            .hotWindow(WINDOW)
            .build();
    try {
      counted.ensureQueue(Q, QueueConfig.builder().build());
      for (int i = 0; i < 5_000; i++) {
        counted.send(Q, NewMessage.builder(body(i)).groupId(tenantOf(i)).build());
      }
      ArrayDeque<String> held = new ArrayDeque<>();
      int most = 0;
      int mostRecords = 0;
      List<Integer> got = new ArrayList<>();
      for (int round = 0; round < 200; round++) {
        orders.reset();
        for (Message m : counted.receive(Q, TEN)) {
          got.add(WindowedStore.number(m));
          held.addLast(m.receipt().orElseThrow());
        }
        most = Math.max(most, orders.keyPages.get());
        mostRecords = Math.max(mostRecords, orders.recordsRead());
        while (held.size() > LEASES) {
          counted.ack(Q, held.removeFirst());
        }
      }
      // a page of each tenant whose messages in the heap ran out (at most one per message taken),
      // a few of the window's, and the end of the operation's: never the noisy tenant's backlog
      assertTrue(most <= 20, "pages of keys in one receive: " + most);
      assertTrue(mostRecords <= 20 * (WINDOW + 1), "records in one receive: " + mostRecords);
      assertTrue(got.stream().anyMatch(n -> n > 4_000), "a quiet tenant's message from the end");
    } finally {
      counted.close();
    }
  }
}
