package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.SendResult;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A busy queue's keys sharded (docs/design.md, "Sharding a busy queue's keys"): sends spread over
 * the shards' partition keys, a grouped queue keeps a group in one, receives keep the order of one
 * partition across shards (also with two servers sending at once), a count change mid-stream loses
 * and reorders nothing, and the automatic rule raises a busy queue's count. The whole engine
 * contract runs on 3 shards too ({@link DynamoEngineContractTest}).
 */
@ExtendWith(Moto.class)
class DynamoShardsTest {

  private static DynamoDbClient client;
  private final ManualClock clock = ManualClock.create();
  private final List<DynamoQueueEngine> opened = new ArrayList<>();
  private String prefix;

  @BeforeEach
  void table() {
    synchronized (DynamoShardsTest.class) {
      if (client == null) {
        client = Moto.client();
      }
    }
    prefix = Moto.prefix();
  }

  private DynamoQueueEngine engine(UnaryOperator<DynamoQueueEngine.Builder> settings) {
    DynamoQueueEngine e =
        settings
            .apply(
                DynamoQueueEngine.builder()
                    .client(client)
                    .tablePrefix(prefix)
                    .clock(clock)
                    .pollInterval(Duration.ofMillis(10))
                    .sweepInterval(Duration.ofMinutes(1)))
            .build();
    opened.add(e);
    return e;
  }

  @AfterEach
  void close() {
    opened.forEach(DynamoQueueEngine::close);
  }

  @AfterAll
  static void closeClient() {
    if (client != null) {
      client.close();
      client = null;
    }
  }

  @Test
  void sends_spreadOverTheShardsPartitionKeys_andEveryIdNamesItsItem() {
    DynamoQueueEngine e = engine(b -> b.shards(3));
    e.createQueue("q", QueueConfig.defaults());
    List<SendResult> sent = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      sent.add(e.send("q", NewMessage.of("m" + i)));
    }
    Map<String, Integer> byKey = itemsByPartition("q");
    assertEquals(
        Map.of(partition("q", 0), 10, partition("q", 0) + "#1", 10, partition("q", 0) + "#2", 10),
        byKey,
        "consecutive serials go round the 3 shards");
    for (int i = 0; i < sent.size(); i++) {
      assertEquals("m" + i, e.get("q", sent.get(i).id()).body());
    }
  }

  @Test
  void aGroupedQueue_keepsEachGroupInOnePartition_andSpreadsTheGroups() {
    DynamoQueueEngine e = engine(b -> b.shards(4));
    e.createQueue("g.fifo", QueueConfig.defaults());
    for (int i = 0; i < 48; i++) {
      e.send(
          "g.fifo",
          NewMessage.builder("m" + i).groupId("group" + (i % 12)).deduplicationId("d" + i).build());
    }
    Map<String, Set<String>> partitionsOfGroup = new HashMap<>();
    Set<String> used = new HashSet<>();
    for (int shard = 0; shard < 4; shard++) {
      String pk = partition("g.fifo", 0) + (shard == 0 ? "" : "#" + shard);
      for (Map<String, AttributeValue> item : query(pk)) {
        partitionsOfGroup.computeIfAbsent(item.get("g").s(), k -> new HashSet<>()).add(pk);
        used.add(pk);
      }
    }
    assertEquals(12, partitionsOfGroup.size());
    partitionsOfGroup.forEach(
        (group, keys) -> assertEquals(1, keys.size(), () -> group + " is in " + keys));
    assertTrue(used.size() > 1, () -> "12 groups all in " + used);
    // each group still comes out in its order
    Map<String, List<String>> got = new HashMap<>();
    List<Message> batch;
    while (!(batch = e.receive("g.fifo", ReceiveRequest.max(10))).isEmpty()) {
      for (Message m : batch) {
        got.computeIfAbsent(m.groupId().orElseThrow(), k -> new ArrayList<>()).add(m.body());
        e.ack("g.fifo", m.receipt().orElseThrow());
      }
    }
    for (int g = 0; g < 12; g++) {
      assertEquals(
          List.of("m" + g, "m" + (g + 12), "m" + (g + 24), "m" + (g + 36)), got.get("group" + g));
    }
  }

  @Test
  void twoEnginesSendingAtOnce_receivesKeepTheOrderOfOnePartitionAcrossShards() throws Exception {
    DynamoQueueEngine a = engine(b -> b.shards(3));
    DynamoQueueEngine b = engine(x -> x.shards(3));
    a.createQueue("q", QueueConfig.defaults());
    int n = 60;
    Map<String, Long> serialOf = new java.util.concurrent.ConcurrentHashMap<>();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (DynamoQueueEngine e : List.of(a, b)) {
        String name = e == a ? "a" : "b";
        Callable<Void> sender =
            () -> {
              start.await();
              for (int i = 0; i < n; i++) {
                serialOf.put(name + i, e.send("q", NewMessage.of(name + i)).sequence());
              }
              return null;
            };
        done.add(pool.submit(sender));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    List<String> got = new ArrayList<>();
    List<Message> batch;
    while (!(batch = b.receive("q", ReceiveRequest.max(7))).isEmpty()) {
      batch.forEach(m -> got.add(m.body()));
    }
    assertEquals(2 * n, got.size(), () -> "received " + got);
    List<String> bySerial = new ArrayList<>(serialOf.keySet());
    bySerial.sort((x, y) -> Long.compare(serialOf.get(x), serialOf.get(y)));
    assertEquals(bySerial, got, "the order of the serials, as one partition would give it");
    for (String sender : List.of("a", "b")) {
      List<String> own = got.stream().filter(s -> s.startsWith(sender)).toList();
      List<String> sentOrder = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        sentOrder.add(sender + i);
      }
      assertEquals(sentOrder, own, "each server's sends in the order it made them");
    }
  }

  @Test
  void aCountChangeMidStream_losesAndReordersNothing() {
    DynamoQueueEngine e = engine(b -> b);
    for (Order order : List.of(Order.FIFO, Order.LIFO)) {
      String q = "q-" + order.name().toLowerCase(java.util.Locale.ROOT);
      e.createQueue(q, QueueConfig.builder().order(order).build());
      List<String> ids = new ArrayList<>();
      List<String> bodies = new ArrayList<>();
      int next = 0;
      for (int count : new int[] {4, 2, 5}) {
        for (int i = 0; i < 8; i++, next++) {
          bodies.add("m" + next);
          ids.add(e.send(q, NewMessage.builder("m" + next).priority(next % 2).build()).id());
        }
        assertTrue(e.setShards(q, count, false));
        clock.advanceMillis(1);
      }
      for (int i = 0; i < 8; i++, next++) {
        bodies.add("m" + next);
        ids.add(e.send(q, NewMessage.builder("m" + next).priority(next % 2).build()).id());
      }
      assertTrue(itemsByPartition(q).size() > 2, "the later counts spread the sends");
      for (int i = 0; i < ids.size(); i++) {
        assertEquals(bodies.get(i), e.get(q, ids.get(i)).body(), "found by id after the changes");
      }
      // the order of one partition: priority 1 first, then 0; oldest first (FIFO) or newest
      List<String> expected = new ArrayList<>();
      for (int priority : new int[] {1, 0}) {
        List<String> line = new ArrayList<>();
        for (int i = 0; i < bodies.size(); i++) {
          if (i % 2 == priority) {
            line.add(bodies.get(i));
          }
        }
        if (order == Order.LIFO) {
          java.util.Collections.reverse(line);
        }
        expected.addAll(line);
      }
      List<String> got = new ArrayList<>();
      List<Message> batch;
      while (!(batch = e.receive(q, ReceiveRequest.max(5))).isEmpty()) {
        for (Message m : batch) {
          got.add(m.body());
          e.ack(q, m.receipt().orElseThrow());
        }
      }
      assertEquals(expected, got, order + ": every message, in the order of one partition");
      assertEquals(0, e.stats(q).depth());
    }
  }

  @Test
  void theAutomaticRule_raisesABusyQueuesCount_andLeavesAQuietOneAtOne() {
    DynamoQueueEngine e = engine(b -> b.shardRate(0.25).maxShards(8));
    e.createQueue("busy", QueueConfig.defaults());
    e.createQueue("quiet", QueueConfig.defaults());
    e.send("busy", NewMessage.of("first"));
    e.send("quiet", NewMessage.of("first"));
    clock.advance(Duration.ofMinutes(1)); // the sweep flushes the counts: where the rates start
    for (int i = 0; i < 60; i++) {
      e.send("busy", NewMessage.of("m" + i));
    }
    e.send("quiet", NewMessage.of("second"));
    clock.advance(Duration.ofMinutes(1)); // a minute is too short a window to judge
    assertEquals(1, shardCount("busy"));
    e.send("busy", NewMessage.of("last"));
    e.send("quiet", NewMessage.of("third"));
    clock.advance(Duration.ofMinutes(1)); // 61 sends in 120 s: 0.51 a second, 0.25 a shard
    assertEquals(4, shardCount("busy"), "0.51 sends a second over shards of 0.25: 3, so 4");
    assertEquals(1, shardCount("quiet"));
    for (int i = 0; i < 8; i++) {
      e.send("busy", NewMessage.of("after" + i));
    }
    assertEquals(4, itemsByPartition("busy").size(), "sends after the raise use the 4 shards");
    List<Message> head = e.receive("busy", ReceiveRequest.max(2));
    assertEquals(List.of("first", "m0"), head.stream().map(Message::body).toList());
  }

  @Test
  void shardSettingsOutOfRange_areRefusedNamingTheValue() {
    QueueException none = assertThrows(QueueException.class, () -> engine(b -> b.shards(0)));
    assertEquals(ErrorCode.INVALID_ARGUMENT, none.code());
    assertEquals("shards must be 1..64, got 0", none.getMessage());
    QueueException many = assertThrows(QueueException.class, () -> engine(b -> b.maxShards(65)));
    assertEquals("maxShards must be 1..64, got 65", many.getMessage());
    QueueException rate = assertThrows(QueueException.class, () -> engine(b -> b.shardRate(-1)));
    assertEquals(
        "shardRate must be a number of sends a second, 0 or more (0: off), got -1.0",
        rate.getMessage());
  }

  // ---- reading the table ---------------------------------------------------------------------

  /** The partition key of shard 0 of a queue's priority. */
  private String partition(String queue, int priority) {
    return "m#" + queue + "#" + queueItem(queue).get("gen").n() + "#" + priority;
  }

  private int shardCount(String queue) {
    return Shards.decode(queueItem(queue).get(Shards.ATTRIBUTE).s()).count();
  }

  private Map<String, AttributeValue> queueItem(String queue) {
    return client
        .getItem(
            b ->
                b.tableName(prefix + "switchboard")
                    .key(Map.of("pk", s("queues"), "sk", s(queue)))
                    .consistentRead(true))
        .item();
  }

  /**
   * How many message items each partition key of the queue's priorities 0 and 1 holds, in their
   * first 8 shards (every count these tests set is at most 8).
   */
  private Map<String, Integer> itemsByPartition(String queue) {
    Map<String, Integer> out = new HashMap<>();
    for (int priority : new int[] {0, 1}) {
      String base = partition(queue, priority);
      for (int shard = 0; shard < 8; shard++) {
        String pk = shard == 0 ? base : base + "#" + shard;
        int n = query(pk).size();
        if (n > 0) {
          out.put(pk, n);
        }
      }
    }
    return out;
  }

  private List<Map<String, AttributeValue>> query(String pk) {
    return client
        .query(
            b ->
                b.tableName(prefix + "switchboard")
                    .consistentRead(true)
                    .keyConditionExpression("pk = :p")
                    .expressionAttributeValues(Map.of(":p", s(pk))))
        .items();
  }

  private static AttributeValue s(String value) {
    return AttributeValue.fromS(value);
  }
}
