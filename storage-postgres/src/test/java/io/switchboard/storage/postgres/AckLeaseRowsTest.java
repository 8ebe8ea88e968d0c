package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Schema 34: the batch ack ({@code sb_ack}) finds each message and lease row it deletes by its key,
 * however large the queue's backlog and its dead lease rows, and whatever the statistics said when
 * the connection planned it. In schema 33 a plan made while the tables were analyzed empty walked
 * the queue's every message and lease row on every ack (found by the benchmark: an ack of ten at
 * times cost 10 × the claim).
 */
class AckLeaseRowsTest {

  @Test
  void batchAck_plannedOnEmptyStatistics_readsOnlyItsOwnRows_notTheBacklog() throws SQLException {
    ManualClock clock = ManualClock.create();
    DataSource ds = TestDatabase.fresh();
    try (PostgresQueueEngine engine =
        PostgresQueueEngine.builder().dataSource(ds).clock(clock).build()) {
      engine.createQueue("q", QueueConfig.defaults());
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        s.execute("analyze sb_lease, sb_message"); // empty: the statistics call them small
      }
      // 50 batches received and acked, each with its own lease end: 500 dead lease rows
      for (int b = 0; b < 50; b++) {
        send10(engine);
        List<Message> got = engine.receive("q", ReceiveRequest.max(10));
        assertEquals(10, got.size());
        engine.ackAll("q", got.stream().map(m -> m.receipt().orElseThrow()).toList());
        clock.advanceMillis(1);
      }
      for (int b = 0; b < 50; b++) {
        send10(engine); // a backlog of 500 behind the ten received next
      }
      assertEquals(10, engine.receive("q", ReceiveRequest.max(10)).size());

      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        c.setAutoCommit(true);
        s.execute("load 'auto_explain'");
        s.execute("set auto_explain.log_min_duration = 0");
        s.execute("set auto_explain.log_nested_statements = on");
        s.execute("set auto_explain.log_analyze = on");
        s.execute("set auto_explain.log_buffers = on");
        s.execute("set auto_explain.log_level = notice");
        s.execute("set client_min_messages = notice");
        long[] serials;
        int[] epochs;
        long qid;
        long revision;
        try (ResultSet rs =
            s.executeQuery(
                "select m.serial, m.lease_epoch, q.id, q.revision from sb_message m join sb_queue"
                    + " q on q.id = m.qid where m.leased and m.visible_at > "
                    + clock.millis()
                    + " order by m.serial")) {
          List<long[]> rows = new ArrayList<>();
          long id = 0;
          long rev = 0;
          while (rs.next()) {
            rows.add(new long[] {rs.getLong(1), rs.getLong(2)});
            id = rs.getLong(3);
            rev = rs.getLong(4);
          }
          serials = rows.stream().mapToLong(r -> r[0]).toArray();
          epochs = rows.stream().mapToInt(r -> (int) r[1]).toArray();
          qid = id;
          revision = rev;
        }
        assertEquals(10, serials.length);
        StringBuilder plans = new StringBuilder();
        try (PreparedStatement ps = c.prepareStatement("select sb_ack(?, ?, ?, ?, ?)")) {
          ps.setLong(1, qid);
          ps.setLong(2, revision);
          ps.setObject(3, serials);
          ps.setObject(4, epochs);
          ps.setLong(5, clock.millis());
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            assertEquals(10, ((Long[]) rs.getArray(1).getArray()).length, "all ten acked");
          }
          for (SQLWarning w = ps.getWarnings(); w != null; w = w.getNextWarning()) {
            plans.append(w.getMessage()).append('\n');
          }
        }
        String all = plans.toString();
        int removed = 0;
        Matcher m = Pattern.compile("Rows Removed by (?:Join )?Filter: (\\d+)").matcher(all);
        while (m.find()) {
          removed += Integer.parseInt(m.group(1));
        }
        assertTrue(all.contains("Delete on sb_lease"), all);
        // each of the ten lease rows is found among the ten of its receive (same lease end): at
        // most 90 read and passed over; walking the backlog or the dead lease rows reads hundreds
        assertTrue(removed <= 90, removed + " rows read and passed over:\n" + all);
        assertEquals(0, count(c, "select count(*) from sb_lease where serial = any(?)", serials));
      }
    }
  }

  @Test
  void aVersion33Database_getsTheKeyedAck() throws Exception {
    String url = TestDatabase.freshDatabase("ack_from_v33");
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(url);
    hc.setUsername("postgres");
    hc.setPassword("postgres");
    hc.setMaximumPoolSize(2);
    try (HikariDataSource ds = new HikariDataSource(hc)) {
      Schema.migrate(ds, 33);
      try (Connection c = ds.getConnection()) {
        assertTrue(ackDefinition(c).contains("m.qid = p_qid"), "version 33's ack");
      }
      Schema.migrate(ds);
      try (Connection c = ds.getConnection()) {
        assertTrue(ackDefinition(c).contains("serial = any(p_serials)"), ackDefinition(c));
      }
    }
  }

  private static String ackDefinition(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select pg_get_functiondef('sb_ack'::regproc)")) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static long count(Connection c, String sql, long[] serials) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, serials);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static void send10(PostgresQueueEngine engine) {
    List<NewMessage> batch = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      batch.add(NewMessage.of("m" + i));
    }
    engine.sendBatch("q", batch);
  }
}
