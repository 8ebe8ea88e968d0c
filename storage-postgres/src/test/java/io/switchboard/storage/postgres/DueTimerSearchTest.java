package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.QueueConfig;
import io.switchboard.time.ManualClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Housekeeping's search for queues with a due timer ({@link Timers#dueQueues}, {@link Timers#DUE})
 * probes the lease and expiry indexes once per queue. It was two {@code exists} subqueries whose
 * plan, when the statistics said one queue held every message (as on a server whose traffic is one
 * busy queue), read the whole message table once per queue, five times a second per server: the
 * benchmark's largest statement with two engines (150 – 270 µs per message acked, more than the
 * claim), 4 s per search in a harness with 200,000 messages and 30 queues.
 */
class DueTimerSearchTest {

  @Test
  void dueTimerSearch_withStatisticsOfOneBigQueue_probesTheIndexes_notTheWholeTable()
      throws SQLException {
    ManualClock clock = ManualClock.create();
    DataSource ds = TestDatabase.fresh();
    try (PostgresQueueEngine engine =
        PostgresQueueEngine.builder().dataSource(ds).clock(clock).build()) {
      for (String q : List.of("busy", "quiet", "other")) {
        engine.createQueue(q, QueueConfig.defaults());
      }
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        c.setAutoCommit(true);
        // 20,000 queued messages of one queue, none due, 5,000 of them leased; one lease row due
        // in another queue
        s.execute(
            "insert into sb_message (serial, qid, seq, priority, expires_at, sent_at, body,"
                + " arrival) select g, q.id, g, 0, "
                + (clock.millis() + 3_600_000)
                + ", 0, '\\x00', g from sb_queue q, generate_series(1, 20000) g where q.name ="
                + " 'busy'");
        s.execute(
            "insert into sb_lease (qid, until, serial) select q.id, "
                + (clock.millis() + 60_000)
                + ", g from sb_queue q, generate_series(1, 5000) g where q.name = 'busy'");
        s.execute(
            "insert into sb_lease (qid, until, serial) select id, "
                + (clock.millis() - 1)
                + ", 1 from sb_queue where name = 'other'");
        s.execute("analyze sb_message, sb_lease, sb_queue");
        s.execute("set plan_cache_mode = force_generic_plan");
        s.execute(
            "prepare due(bigint, bigint) as select q.name from sb_queue q where "
                + Timers.DUE.replaceFirst("\\?", "\\$1").replaceFirst("\\?", "\\$2"));
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs =
            s.executeQuery(
                "explain (analyze, costs off) execute due("
                    + clock.millis()
                    + ", "
                    + clock.millis()
                    + ")")) {
          while (rs.next()) {
            plan.append(rs.getString(1)).append('\n');
          }
        }
        s.execute("deallocate due");
        String p = plan.toString();
        assertFalse(p.contains("Seq Scan on sb_message"), p);
        assertFalse(p.contains("Seq Scan on sb_lease"), p);
        assertTrue(p.contains("sb_message_expiry") && p.contains("sb_lease_due"), p);
        assertEquals(List.of("other"), Timers.dueQueues(c, clock.millis()));
        s.execute("delete from sb_lease where until < " + clock.millis());
        assertEquals(List.of(), Timers.dueQueues(c, clock.millis()));
      }
    }
  }
}
