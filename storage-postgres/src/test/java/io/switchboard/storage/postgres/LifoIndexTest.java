package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Since schema version 33 the LIFO ordering index holds only the messages flagged {@code lifo}, and
 * the LIFO claim walks it: every way a message comes to be in a LIFO queue must flag it, or the
 * queue would never deliver it. Sending is covered by the contract tests; these cover a queue whose
 * order changes, a dead-letter move into a LIFO queue, and a database migrated from version 27.
 */
class LifoIndexTest {

  private static final QueueConfig LIFO = QueueConfig.builder().order(Order.LIFO).build();

  @Test
  void aQueueTurnedLifo_deliversEveryMessageNewestFirst_andTurnedBackOldestFirst() {
    try (PostgresQueueEngine engine = engine(TestDatabase.fresh(), ManualClock.create())) {
      engine.createQueue("q", QueueConfig.defaults());
      engine.sendBatch("q", List.of(NewMessage.of("a"), NewMessage.of("b"), NewMessage.of("c")));

      engine.updateQueue("q", c -> c.toBuilder().order(Order.LIFO).build());
      List<Message> lifo = engine.receive("q", ReceiveRequest.max(10));
      assertEquals(List.of("c", "b", "a"), bodies(lifo));
      lifo.forEach(m -> engine.release("q", m.receipt().orElseThrow(), Duration.ZERO, false));

      engine.updateQueue("q", c -> c.toBuilder().order(Order.FIFO).build());
      assertEquals(List.of("a", "b", "c"), bodies(engine.receive("q", ReceiveRequest.max(10))));
    }
  }

  @Test
  void aMessageDeadLetteredIntoALifoQueue_isDelivered() {
    ManualClock clock = ManualClock.create();
    try (PostgresQueueEngine engine = engine(TestDatabase.fresh(), clock)) {
      engine.createQueue("dlq", LIFO);
      engine.createQueue("once", QueueConfig.builder().deadLetter("dlq", 1).build());
      engine.send("once", NewMessage.of("dead"));
      ReceiveRequest noLease =
          ReceiveRequest.builder().maxMessages(1).visibilityTimeout(Duration.ZERO).build();

      assertEquals(1, engine.receive("once", noLease).size());
      clock.advanceMillis(1); // its one receive is used up: the timer moves it to the DLQ

      assertEquals(List.of("dead"), bodies(engine.receive("dlq", ReceiveRequest.max(10))));
    }
  }

  @Test
  void aVersion27Database_flagsTheMessagesOfItsLifoQueues() throws Exception {
    String url = TestDatabase.freshDatabase("lifo_from_v27");
    ManualClock clock = ManualClock.create();
    long now = clock.millis();
    try (HikariDataSource ds = pool(url)) {
      Schema.migrate(ds, 27);
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        // what a version-27 server left: a LIFO and a FIFO queue, two messages each
        s.execute(
            "insert into sb_queue (name, grouped, config, created_at, receipt_key) values ('l',"
                + " false, '"
                + Codecs.encodeConfig(LIFO)
                + "', 0, 7), ('f', false, '"
                + Codecs.encodeConfig(QueueConfig.defaults())
                + "', 0, 8)");
        s.execute(
            "insert into sb_message (serial, qid, seq, priority, expires_at, sent_at, body,"
                + " arrival) select n, case when n <= 2 then 1 else 2 end, n, 0, "
                + (now + 60_000_000)
                + ", 0, ('m' || n)::bytea, n from generate_series(1, 4) n");
      }
    }
    try (PostgresQueueEngine engine = engine(url, clock)) {
      assertEquals(List.of("m2", "m1"), bodies(engine.receive("l", ReceiveRequest.max(10))));
      assertEquals(List.of("m3", "m4"), bodies(engine.receive("f", ReceiveRequest.max(10))));
    }
    try (HikariDataSource ds = pool(url);
        Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("select indexdef from pg_indexes where indexname = 'sb_message_lifo'")) {
      assertTrue(rs.next());
      assertTrue(rs.getString(1).endsWith("WHERE lifo"), rs.getString(1));
    }
  }

  private static PostgresQueueEngine engine(HikariDataSource ds, ManualClock clock) {
    return PostgresQueueEngine.builder().dataSource(ds).clock(clock).notifications(false).build();
  }

  private static PostgresQueueEngine engine(String url, ManualClock clock) {
    return PostgresQueueEngine.builder()
        .url(url, "postgres", "postgres")
        .poolSize(2)
        .clock(clock)
        .notifications(false)
        .build();
  }

  private static HikariDataSource pool(String url) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername("postgres");
    c.setPassword("postgres");
    c.setMaximumPoolSize(2);
    return new HikariDataSource(c);
  }

  private static List<String> bodies(List<Message> messages) {
    return messages.stream().map(Message::body).toList();
  }
}
