package io.switchboard.bench.postgres;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The pgmq-style baseline: one table per queue ({@code msg_id bigserial, read_ct, enqueued_at, vt,
 * message}), a send is a multi-row insert, a read is pgmq's claim (select the oldest visible ids
 * {@code FOR UPDATE SKIP LOCKED}, push their visibility time), an ack is a delete of the read batch
 * by ids ({@code pgmq.delete(queue, msg_ids[])}). Autocommit, one statement each, as pgmq's SQL
 * functions run. No priorities, groups, dedup, expiry or DLQ.
 */
final class Baseline {

  private Baseline() {}

  /** Moves {@code messages} through a new table {@code table}; returns acked messages/s. */
  static double run(String url, int messages, int threads, int batch, String table)
      throws Exception {
    return run(url, messages, threads, batch, table, Long.MAX_VALUE);
  }

  /**
   * As {@link #run(String, int, int, int, String)}, producers pausing while more than {@code
   * backlog} messages are sent and not yet acked.
   */
  static double run(String url, int messages, int threads, int batch, String table, long backlog)
      throws Exception {
    try (HikariDataSource ds = PostgresBench.pool(url, threads * 2 + 2)) {
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        s.execute(
            "create table "
                + table
                + " (msg_id bigserial primary key, read_ct int not null default 0, enqueued_at"
                + " timestamptz not null default now(), vt timestamptz not null default now(),"
                + " message text)");
        s.execute("create index on " + table + " (vt)");
      }
      StringBuilder insert = new StringBuilder("insert into " + table + " (message) values ");
      for (int i = 0; i < batch; i++) {
        insert.append(i == 0 ? "(?)" : ", (?)");
      }
      String read =
          "with c as (select msg_id from "
              + table
              + " where vt <= clock_timestamp() order by msg_id limit ? for update skip locked)"
              + " update "
              + table
              + " m set vt = clock_timestamp() + interval '30 seconds', read_ct = m.read_ct + 1"
              + " from c where m.msg_id = c.msg_id returning m.msg_id, m.message";
      String delete = "delete from " + table + " where msg_id = any(?)";
      AtomicLong toSend = new AtomicLong(messages);
      AtomicLong sent = new AtomicLong();
      AtomicLong acked = new AtomicLong();
      ExecutorService pool = Executors.newFixedThreadPool(threads * 2);
      long start = System.nanoTime();
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          done.add(
              pool.submit(
                  () -> {
                    try (Connection c = ds.getConnection();
                        PreparedStatement ps = c.prepareStatement(insert.toString())) {
                      while (toSend.getAndAdd(-batch) > 0) {
                        PostgresBench.awaitBacklog(sent, acked, backlog);
                        for (int i = 0; i < batch; i++) {
                          ps.setString(i + 1, "payload-" + i);
                        }
                        ps.executeUpdate();
                        sent.addAndGet(batch);
                      }
                    }
                    return null;
                  }));
          done.add(
              pool.submit(
                  () -> {
                    try (Connection c = ds.getConnection();
                        PreparedStatement r = c.prepareStatement(read);
                        PreparedStatement d = c.prepareStatement(delete)) {
                      while (acked.get() < messages) {
                        r.setInt(1, batch);
                        List<Long> ids = new ArrayList<>();
                        try (ResultSet rs = r.executeQuery()) {
                          while (rs.next()) {
                            ids.add(rs.getLong(1));
                          }
                        }
                        if (!ids.isEmpty()) {
                          // pgmq.delete(queue, msg_ids[]): one statement per batch
                          d.setArray(1, c.createArrayOf("bigint", ids.toArray()));
                          d.executeUpdate();
                          acked.addAndGet(ids.size());
                        }
                        if (ids.isEmpty()) {
                          Thread.sleep(1);
                        }
                      }
                    }
                    return null;
                  }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
      double rate = acked.get() / ((System.nanoTime() - start) / 1e9);
      System.out.printf("pgmq-style baseline: %.0f msg/s%n", rate);
      return rate;
    }
  }
}
