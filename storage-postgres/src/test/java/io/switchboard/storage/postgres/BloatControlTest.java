package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.spi.MessageIds;
import io.switchboard.time.ManualClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The layout's answers to PostgreSQL's queue failure modes, checked on the database itself: lease
 * changes are HOT updates, timers and cleanup work in bounded batches, and a database written by a
 * version-2 server migrates with its messages and leases. Each test has a database of its own, so
 * the statistics it reads are its own.
 */
class BloatControlTest {

  @Test
  void leaseChanges_areHotUpdates() throws Exception {
    String url = TestDatabase.freshDatabase("hot_leases");
    ManualClock clock = ManualClock.create();
    try (PostgresQueueEngine engine = engine(url, clock)) {
      engine.createQueue("q", QueueConfig.defaults());
      for (int i = 0; i < 20; i++) {
        engine.sendBatch("q", batch(10));
      }
      List<Message> got = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        got.addAll(engine.receive("q", ReceiveRequest.max(10)));
      }
      assertEquals(200, got.size());
      for (int i = 0; i < 200; i++) {
        String receipt = got.get(i).receipt().orElseThrow();
        switch (i % 4) {
          case 0 -> engine.extend("q", receipt, Duration.ofMinutes(2));
          case 1 -> engine.release("q", receipt, Duration.ZERO, false);
          default -> engine.ack("q", receipt);
        }
      }
    } // closing the pool ends its backends, which hands their statistics to the collector
    long[] upd = awaitUpdates(url, "sb_message", 200 + 50 + 50);
    assertEquals(300, upd[0], "200 leases, 50 extends, 50 releases");
    assertTrue(upd[1] >= upd[0] * 9 / 10, "HOT updates " + upd[1] + " of " + upd[0]);
  }

  @Test
  void expiredMessages_fireInBatchesOfAtMostTheLimit() throws Exception {
    ManualClock clock = ManualClock.create();
    HikariDataSource ds = TestDatabase.fresh();
    try (PostgresQueueEngine engine = engine(ds, clock)) {
      engine.createQueue("q", QueueConfig.defaults());
      for (int i = 0; i < 3; i++) {
        engine.sendBatch("q", batch(10));
      }
      expireAll(ds, clock.millis());
      List<Boolean> more = new ArrayList<>();
      List<Long> left = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        more.add(
            engine
                .sql()
                .tx(
                    "firing",
                    c -> {
                      Op op =
                          new Op(
                              c,
                              clock.millis(),
                              Op.requireQueue(c, "q"),
                              new MessageIds(0),
                              io.switchboard.queue.spi.ReceiptKeys.of(new byte[32]));
                      boolean m = Timers.fire(op, 10);
                      op.finish();
                      return m;
                    }));
        left.add(count(ds, "select count(*) from sb_message"));
      }
      assertEquals(List.of(true, true, true, false), more);
      assertEquals(List.of(20L, 10L, 0L, 0L), left);
      assertEquals(30, engine.stats("q").counters().expired());
    }
  }

  @Test
  void housekeeping_worksOffABacklogLargerThanABatch() throws Exception {
    ManualClock clock = ManualClock.create();
    HikariDataSource ds = TestDatabase.fresh();
    try (PostgresQueueEngine engine = engine(ds, clock)) {
      engine.createQueue("q", QueueConfig.defaults());
      int n = Timers.BATCH * 2 + 100;
      for (int i = 0; i < n; i += 100) {
        engine.sendBatch("q", batch(100));
      }
      expireAll(ds, clock.millis());
      engine.tick();
      assertEquals(0, engine.stats("q").depth());
      assertEquals(n, engine.stats("q").counters().expired());
    }
  }

  @Test
  void history_isDeletedInBatchesOfAtMostTheLimit() throws Exception {
    ManualClock clock = ManualClock.create();
    HikariDataSource ds = TestDatabase.fresh();
    try (PostgresQueueEngine engine = engine(ds, clock)) {
      engine.createQueue(
          "q", QueueConfig.builder().historyRetention(Duration.ofMinutes(10)).build());
      engine.sendBatch("q", batch(25));
      for (Message m : engine.receive("q", ReceiveRequest.max(25))) {
        engine.ack("q", m.receipt().orElseThrow());
      }
      assertEquals(25, count(ds, "select count(*) from sb_history"));
      Housekeeping h = new Housekeeping(engine);
      long later = clock.millis() + Duration.ofMinutes(11).toMillis();
      assertEquals(10, h.deletePast("sb_history", later, 10));
      assertEquals(10, h.deletePast("sb_history", later, 10));
      assertEquals(5, h.deletePast("sb_history", later, 10));
      assertEquals(0, h.deletePast("sb_history", later, 10));
    }
  }

  @Test
  void anEndedLease_isClaimedAgainBeforeAnyTimerFires_unlessItsReceivesAreUsedUp()
      throws Exception {
    ManualClock clock = ManualClock.create();
    try (PostgresQueueEngine engine = engine(TestDatabase.fresh(), clock)) {
      engine.createQueue("dlq", QueueConfig.defaults());
      engine.createQueue("q", QueueConfig.defaults());
      engine.createQueue("once", QueueConfig.builder().deadLetter("dlq", 1).build());
      ReceiveRequest noLease =
          ReceiveRequest.builder().maxMessages(1).visibilityTimeout(Duration.ZERO).build();
      String id = engine.send("q", NewMessage.of("again")).id();
      engine.send("once", NewMessage.of("only once"));

      assertEquals(id, engine.receive("q", noLease).get(0).id());
      // the clock has not moved, so no timer has fired: the claim itself sees the lease ended
      Message second = engine.receive("q", ReceiveRequest.max(1)).get(0);
      assertEquals(id, second.id());
      assertEquals(2, second.receiveCount());
      assertEquals(1, engine.stats("q").counters().released());

      assertEquals(1, engine.receive("once", noLease).size());
      assertTrue(engine.receive("once", noLease).isEmpty(), "its one receive is used up");
      clock.advanceMillis(1);
      assertEquals("only once", engine.receive("dlq", ReceiveRequest.max(1)).get(0).body());
    }
  }

  @Test
  void aVersion2Database_migratesWithItsMessagesAndLeases() throws Exception {
    String url = TestDatabase.freshDatabase("from_v2");
    ManualClock clock = ManualClock.create();
    long now = clock.millis();
    try (HikariDataSource ds = pool(url)) {
      Schema.migrate(ds, 2);
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        // what a version-2 server left: one message available, one leased for 30 more seconds
        s.execute(
            "insert into sb_queue (name, grouped, config, created_at, receipt_key) values ('q',"
                + " false, '"
                + Codecs.encodeConfig(QueueConfig.defaults())
                + "', 0, 7)");
        s.execute(
            "insert into sb_message (serial, qid, seq, priority, expires_at, sent_at, body,"
                + " arrival, leased, visible_at, lease_epoch, leased_at, receive_count) values"
                + " (1, 1, 1, 0, "
                + (now + 60_000_000)
                + ", 0, 'leased', 1, true, "
                + (now + 30_000)
                + ", 1, "
                + now
                + ", 1), (2, 1, 2, 0, "
                + (now + 60_000_000)
                + ", 0, 'waiting', 2, false, 0, 0, 0, 0)");
      }
    }
    try (PostgresQueueEngine engine = engine(url, clock);
        HikariDataSource ds = pool(url)) {
      assertEquals(1, count(ds, "select count(*) from sb_lease where serial = 1"));
      List<Message> first = engine.receive("q", ReceiveRequest.max(10));
      assertEquals(List.of("waiting"), bodies(first));
      engine.ack("q", first.get(0).receipt().orElseThrow());
      clock.advanceSeconds(31); // the lease's timer fires: the message is returned
      assertEquals(0, count(ds, "select count(*) from sb_message where leased and serial = 1"));
      assertEquals(List.of("leased"), bodies(engine.receive("q", ReceiveRequest.max(10))));
      assertEquals(1, engine.stats("q").counters().released());
    }
    try (HikariDataSource ds = pool(url)) {
      assertEquals(
          0, count(ds, "select count(*) from pg_indexes where indexname = 'sb_message_due'"));
      assertEquals(Schema.VERSION, count(ds, "select max(version) from sb_schema_version"));
    }
  }

  // ---- helpers -------------------------------------------------------------------------

  private static PostgresQueueEngine engine(String url, ManualClock clock) {
    return PostgresQueueEngine.builder()
        .url(url, "postgres", "postgres")
        .poolSize(2)
        .clock(clock)
        .notifications(false)
        .build();
  }

  private static PostgresQueueEngine engine(HikariDataSource ds, ManualClock clock) {
    return PostgresQueueEngine.builder().dataSource(ds).clock(clock).notifications(false).build();
  }

  private static HikariDataSource pool(String url) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername("postgres");
    c.setPassword("postgres");
    c.setMaximumPoolSize(2);
    return new HikariDataSource(c);
  }

  private static List<NewMessage> batch(int n) {
    List<NewMessage> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(NewMessage.of("m" + i));
    }
    return out;
  }

  private static List<String> bodies(List<Message> messages) {
    return messages.stream().map(Message::body).toList();
  }

  /** Moves every message's expiry to now, as if its time to live had passed. */
  private static void expireAll(HikariDataSource ds, long now) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("update sb_message set expires_at = " + now);
    }
  }

  private static long count(HikariDataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * {@code n_tup_upd} and {@code n_tup_hot_upd} of {@code table} once the statistics collector
   * shows at least {@code expected} updates (it receives them asynchronously); 10 s at most.
   */
  private static long[] awaitUpdates(String url, String table, long expected) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    try (Connection c = java.sql.DriverManager.getConnection(url, "postgres", "postgres");
        Statement s = c.createStatement()) {
      while (true) {
        s.execute("select pg_stat_clear_snapshot()");
        try (ResultSet rs =
            s.executeQuery(
                "select n_tup_upd, n_tup_hot_upd from pg_stat_user_tables where relname = '"
                    + table
                    + "'")) {
          rs.next();
          long[] got = {rs.getLong(1), rs.getLong(2)};
          if (got[0] >= expected || System.nanoTime() > deadline) {
            return got;
          }
        }
        assertFalse(Thread.currentThread().isInterrupted());
        LockSupport.parkNanos(Duration.ofMillis(20).toNanos()); // between polls, not a wait
      }
    }
  }
}
