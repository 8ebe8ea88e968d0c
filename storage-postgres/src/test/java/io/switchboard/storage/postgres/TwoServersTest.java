package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.testing.Await;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Two engines on one database, each with its own connection pool, as two servers behind a load
 * balancer would be: work spread over both is delivered once per lease, group order holds, and a
 * long poll on one is woken by a send on the other.
 */
class TwoServersTest {

  private PostgresQueueEngine a;
  private PostgresQueueEngine b;

  @BeforeEach
  void open() {
    TestDatabase.fresh();
    a = server(Duration.ofMillis(250));
    b = server(Duration.ofMillis(250));
  }

  private static PostgresQueueEngine server(Duration poll) {
    return PostgresQueueEngine.builder()
        .url(TestDatabase.url(), "postgres", "postgres")
        .poolSize(6)
        .pollInterval(poll)
        .build();
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
  }

  @Test
  void producersAndConsumersOnBothServers_everyMessageDeliveredExactlyOnce() throws Exception {
    a.createQueue("work", QueueConfig.builder().visibilityTimeout(Duration.ofMinutes(5)).build());
    int perProducer = 300;
    List<QueueEngine> servers = List.of(a, b, a, b);
    Set<String> sent = ConcurrentHashMap.newKeySet();
    Set<String> received = ConcurrentHashMap.newKeySet();
    List<String> duplicates = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger producing = new AtomicInteger(servers.size());
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int p = 0; p < servers.size(); p++) {
        QueueEngine server = servers.get(p);
        int producer = p;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perProducer; i += 10) {
                    List<NewMessage> batch = new ArrayList<>();
                    for (int j = 0; j < 10; j++) {
                      batch.add(NewMessage.of(producer + ":" + (i + j)));
                    }
                    server.sendBatch("work", batch).forEach(r -> sent.add(r.id()));
                  }
                  producing.decrementAndGet();
                  return null;
                }));
      }
      for (QueueEngine server : servers) {
        done.add(
            pool.submit(
                () -> {
                  while (true) {
                    List<Message> got = server.receive("work", ReceiveRequest.max(7));
                    if (got.isEmpty() && producing.get() == 0) {
                      if (server.receive("work", ReceiveRequest.max(7)).isEmpty()) {
                        return null;
                      }
                    }
                    for (Message m : got) {
                      if (!received.add(m.id())) {
                        duplicates.add(m.body());
                      }
                      server.ack("work", m.receipt().orElseThrow());
                    }
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(List.of(), duplicates);
    assertEquals(servers.size() * perProducer, sent.size());
    assertEquals(sent, received);
    assertEquals(0, b.stats("work").depth());
    // each server writes its counters every housekeeping round (200 ms): a sees b's acks by then
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    long acked = a.stats("work").counters().acked();
    while (acked != sent.size() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos()); // between polls
      acked = a.stats("work").counters().acked();
    }
    assertEquals(sent.size(), acked);
  }

  @Test
  void groupedQueueServedByBothServers_keepsOrderWithinEveryGroup() throws Exception {
    a.createQueue("orders.fifo", QueueConfig.builder().contentBasedDeduplication(true).build());
    int groups = 8;
    int perGroup = 40;
    for (int i = 0; i < perGroup; i++) {
      List<NewMessage> batch = new ArrayList<>();
      for (int g = 0; g < groups; g++) {
        batch.add(NewMessage.builder("g" + g + ":" + i).groupId("g" + g).build());
      }
      (i % 2 == 0 ? a : b).sendBatch("orders.fifo", batch);
    }
    Map<String, List<Integer>> seen = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (QueueEngine server : List.of(a, b, a, b)) {
        done.add(
            pool.submit(
                () -> {
                  while (true) {
                    List<Message> got = server.receive("orders.fifo", ReceiveRequest.max(3));
                    if (got.isEmpty()) {
                      if (a.stats("orders.fifo").depth() == 0) {
                        return null;
                      }
                      continue;
                    }
                    for (Message m : got) {
                      String[] parts = m.body().split(":");
                      seen.computeIfAbsent(
                              parts[0], k -> Collections.synchronizedList(new ArrayList<>()))
                          .add(Integer.parseInt(parts[1]));
                    }
                    for (Message m : got) {
                      server.ack("orders.fifo", m.receipt().orElseThrow());
                    }
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(groups, seen.size());
    for (Map.Entry<String, List<Integer>> e : seen.entrySet()) {
      List<Integer> expected = new ArrayList<>();
      for (int i = 0; i < perGroup; i++) {
        expected.add(i);
      }
      assertEquals(expected, e.getValue(), "order of group " + e.getKey());
    }
  }

  @Test
  void longPollOnOneServer_isWokenBySendOnTheOther() throws Exception {
    // A polls only every 20 s, so only the notification can wake it in time.
    try (PostgresQueueEngine slowPoller = server(Duration.ofSeconds(20))) {
      a.createQueue("calls", QueueConfig.defaults());
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Future<List<Message>> waiting =
            pool.submit(
                () ->
                    slowPoller.receive(
                        "calls",
                        ReceiveRequest.builder().waitTime(Duration.ofSeconds(20)).build()));
        Await.until(
            () -> slowPoller.stats("calls").waitingReceivers() > 0,
            "the receive to block",
            Duration.ofSeconds(10));
        assertFalse(waiting.isDone());
        b.send("calls", NewMessage.of("ring"));
        List<Message> got = waiting.get(5, TimeUnit.SECONDS);
        assertEquals(List.of("ring"), got.stream().map(Message::body).toList());
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /**
   * A round of the notification publisher is one autocommit statement naming every queue changed
   * since the last round (it was a transaction of one statement per queue): a listener gets one
   * notification per queue, each naming its queue.
   */
  @Test
  void oneNotifyStatement_tellsAListenerEveryQueueOfTheRound() throws Exception {
    try (Connection listener = TestDatabase.pool().getConnection();
        Connection publisher = TestDatabase.pool().getConnection()) {
      // a channel of this test's own: the servers of this database notify on Wakeups.CHANNEL
      String channel = "sb_notify_test_" + Long.toHexString(System.nanoTime());
      listener.setAutoCommit(true);
      try (Statement s = listener.createStatement()) {
        // a pooled connection: an earlier user may have left it listening on the servers' channel
        s.execute("unlisten *");
        listener.unwrap(PGConnection.class).getNotifications(); // and what it had already received
        s.execute("listen " + channel);
      }
      publisher.setAutoCommit(true);
      try (PreparedStatement ps = publisher.prepareStatement(Wakeups.NOTIFY)) {
        ps.setString(1, channel);
        ps.setObject(2, new String[] {"calls", "orders", "calls.dlq"});
        ps.execute();
      }
      Set<String> told = new HashSet<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (told.size() < 3 && System.nanoTime() < deadline) {
        PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications(500);
        for (PGNotification n : got == null ? new PGNotification[0] : got) {
          assertEquals(channel, n.getName());
          told.add(n.getParameter());
        }
      }
      assertEquals(Set.of("calls", "orders", "calls.dlq"), told);
      try (Statement s = listener.createStatement()) {
        s.execute("unlisten *");
      }
    }
  }
}
