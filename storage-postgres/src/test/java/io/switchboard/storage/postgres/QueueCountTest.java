package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import io.switchboard.time.ManualClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL counts its queues in one row ({@code sb_queue_count}, docs/decisions.md,
 * "2026-12-02-postgres-counts-its-queues"), written in the transaction that creates or deletes a
 * queue, so {@code max-queues} stays exact under concurrent creations and deletions while a
 * creation no longer counts the queues; a database from before the row starts it from its queues.
 */
class QueueCountTest {

  private final List<PostgresQueueEngine> engines = new ArrayList<>();

  @BeforeEach
  void fresh() {
    TestDatabase.fresh();
  }

  @AfterEach
  void close() {
    engines.forEach(PostgresQueueEngine::close);
  }

  private PostgresQueueEngine engine(int maxQueues) {
    PostgresQueueEngine e =
        PostgresQueueEngine.builder()
            .url(TestDatabase.url(), "postgres", "postgres")
            .poolSize(8)
            .notifications(false)
            .clock(ManualClock.create())
            .maxQueues(maxQueues)
            .build();
    engines.add(e);
    return e;
  }

  private static long stored(HikariDataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select n from sb_queue_count")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void concurrentCreations_onTwoServers_stopExactlyAtTheLimit() throws Exception {
    PostgresQueueEngine a = engine(20);
    PostgresQueueEngine b = engine(20);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Boolean>> tries = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        PostgresQueueEngine e = i % 2 == 0 ? a : b;
        String name = "q" + i;
        tries.add(
            pool.submit(
                () -> {
                  try {
                    e.createQueue(name, QueueConfig.defaults());
                    return true;
                  } catch (QueueException refused) {
                    assertEquals(ErrorCode.TOO_MANY_QUEUES, refused.code());
                    return false;
                  }
                }));
      }
      int created = 0;
      for (Future<Boolean> t : tries) {
        created += t.get(60, TimeUnit.SECONDS) ? 1 : 0;
      }
      assertEquals(20, created);
    } finally {
      pool.shutdownNow();
    }
    assertEquals(20, a.listQueues("").size());
    assertEquals(20, stored(TestDatabase.pool()));
  }

  @Test
  void aDeletion_makesRoom_once_andAFailedCreationCountsNothing() throws Exception {
    PostgresQueueEngine a = engine(2);
    PostgresQueueEngine b = engine(2);
    a.createQueue("one", QueueConfig.defaults());
    a.createQueue("two", QueueConfig.defaults());
    QueueException full =
        assertThrows(QueueException.class, () -> b.createQueue("three", QueueConfig.defaults()));
    assertEquals(ErrorCode.TOO_MANY_QUEUES, full.code());
    // creating an existing queue again counts nothing
    a.createQueue("one", QueueConfig.defaults());
    a.deleteQueue("two");
    assertThrows(QueueException.class, () -> b.deleteQueue("two"));
    assertEquals(1, stored(TestDatabase.pool()));
    b.createQueue("three", QueueConfig.defaults());
    assertThrows(QueueException.class, () -> a.createQueue("four", QueueConfig.defaults()));
    assertEquals(2, stored(TestDatabase.pool()));
  }

  @Test
  void aDatabaseFromBeforeTheCount_startsItFromItsQueues() throws Exception {
    String url = TestDatabase.freshDatabase("queue_count_from_36");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername("postgres");
    config.setPassword("postgres");
    config.setMaximumPoolSize(2);
    try (HikariDataSource ds = new HikariDataSource(config)) {
      Schema.migrate(ds, 36);
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        s.execute(
            "insert into sb_queue (name, grouped, config, created_at, receipt_key) select 'q' || n,"
                + " false, '"
                + Codecs.encodeConfig(QueueConfig.defaults())
                + "', 0, n from generate_series(1, 5) n");
      }
      Schema.migrate(ds, Schema.VERSION);
      assertEquals(5, stored(ds));
    }
    PostgresQueueEngine e =
        PostgresQueueEngine.builder()
            .url(url, "postgres", "postgres")
            .poolSize(2)
            .notifications(false)
            .clock(ManualClock.create())
            .maxQueues(6)
            .build();
    engines.add(e);
    e.createQueue("six", QueueConfig.defaults());
    QueueException full =
        assertThrows(QueueException.class, () -> e.createQueue("seven", QueueConfig.defaults()));
    assertEquals(ErrorCode.TOO_MANY_QUEUES, full.code());
  }
}
