package io.switchboard.bench.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.switchboard.queue.QueueConfig;
import io.switchboard.storage.postgres.PostgresQueueEngine;
import java.sql.Array;
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
 * SQL experiments (docs/bench-history/postgresql.md): the engine's database work per message under
 * layouts and statement forms it does not use, each driven like the {@link Baseline} (one
 * connection and one set of prepared statements per thread, autocommit, no engine in the JVM), so
 * the database side is compared with the baseline's in the same run without the engine's JVM cost.
 * Every variant sends with the engine's common send (a multi-row insert that checks the queue row's
 * id and revision), claims with the engine's claim (delivery order {@code FOR UPDATE SKIP LOCKED},
 * lease epoch, receive count, visibility on the message row) and acks with the engine's common
 * batch ack (by serial and lease epoch, lease running, not expired). What differs:
 *
 * <ul>
 *   <li>{@link Variant#FUNCTIONS}: the engine's own tables and functions ({@code sb_claim}, {@code
 *       sb_ack}): the engine's statements without the engine's JVM;
 *   <li>{@link Variant#PLAIN}: the same claim and ack as plain server-side prepared statements (no
 *       PL/pgSQL call around them, the planner's own plan choice), on a copy of the tables;
 *   <li>{@link Variant#NO_LEASE_ROW}: as {@code PLAIN}, without the lease row (no {@code sb_lease}
 *       insert on claim, no delete on ack: the lease lives on the message row only);
 *   <li>{@link Variant#NO_LEASE_NO_EXPIRY}: as {@code NO_LEASE_ROW}, and without the expiry index
 *       (what a queue whose every message expires at its retention would write, if expiry by
 *       retention were found through the ordering index instead).
 * </ul>
 */
final class Alternatives {

  /** A layout and statement form. */
  enum Variant {
    ENGINE("engine SQL, engine tables", true, false, true, true),
    COPY("engine SQL, fresh copy of the tables", true, true, true, true),
    PLAIN("(a) plain prepared claim/ack", false, true, true, true),
    NO_LEASE_ROW("(b) no lease row", true, true, false, true),
    NO_LEASE_NO_EXPIRY("(c) no lease row, no expiry index", true, true, false, false);

    final String label;
    final boolean functions;
    final boolean copy;
    final boolean leaseRow;
    final boolean expiryIndex;

    Variant(String label, boolean functions, boolean copy, boolean leaseRow, boolean expiryIndex) {
      this.label = label;
      this.functions = functions;
      this.copy = copy;
      this.leaseRow = leaseRow;
      this.expiryIndex = expiryIndex;
    }
  }

  /** The engine's lease-row insert inside {@code sb_claim}, as the engine wrote it. */
  private static final String CLAIM_LEASE_ROW =
      " l as (insert into sb_lease (qid, until, serial) select p_qid, p_until, c.serial from c),";

  /** The engine's lease-row delete inside {@code sb_ack}, as the engine wrote it. */
  private static final String ACK_LEASE_ROW =
      ", l as (delete from sb_lease s using d where s.qid = d.qid and s.until = d.visible_at and"
          + " s.serial = d.serial)";

  private static final String COLS =
      "serial, seq, priority, lease_epoch, receive_count, first_received_at, sent_at,"
          + " expires_at, group_id, dedup_id, dl_source, body, attrs";

  private Alternatives() {}

  /**
   * The message table {@code variant} uses for queue {@code queue}: the engine's own or a copy made
   * for this run (its indexes and storage options as the engine's, less what the variant drops).
   */
  static String table(Variant variant, String queue) {
    return variant.copy ? "alt_" + queue : "sb_message";
  }

  /** Moves {@code messages} through a new queue {@code queue}; returns acked messages/s. */
  static double run(Variant variant, String url, int messages, int threads, int batch, String queue)
      throws Exception {
    long qid;
    long revision;
    // the engine creates the schema (tables, functions) and the queue row the statements check
    try (PostgresQueueEngine engine =
        PostgresQueueEngine.builder().url(url, "postgres", "postgres").poolSize(2).build()) {
      engine.createQueue(queue, QueueConfig.defaults());
    }
    String msg = table(variant, queue);
    String lease = variant.copy ? "alt_" + queue + "_lease" : "sb_lease";
    String claimFn = variant.copy ? "alt_claim_" + queue : "sb_claim";
    String ackFn = variant.copy ? "alt_ack_" + queue : "sb_ack";
    try (HikariDataSource ds = PostgresBench.pool(url, threads * 2 + 2)) {
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        try (ResultSet rs =
            s.executeQuery("select id, revision from sb_queue where name = '" + queue + "'")) {
          rs.next();
          qid = rs.getLong(1);
          revision = rs.getLong(2);
        }
        if (variant.copy) {
          s.execute(
              "create table "
                  + msg
                  + " (like sb_message including all) with (fillfactor = 70,"
                  + " autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor ="
                  + " 0.02)");
          s.execute(
              "create table "
                  + lease
                  + " (like sb_lease including all) with (autovacuum_vacuum_scale_factor = 0.02,"
                  + " autovacuum_analyze_scale_factor = 0.02)");
          if (variant.functions) {
            // the engine's own functions, as the database holds them, on the copy
            for (String[] f :
                new String[][] {
                  {"sb_claim", claimFn, CLAIM_LEASE_ROW}, {"sb_ack", ackFn, ACK_LEASE_ROW}
                }) {
              String def;
              try (ResultSet rs =
                  s.executeQuery("select pg_get_functiondef('" + f[0] + "'::regproc)")) {
                rs.next();
                def = rs.getString(1);
              }
              if (!variant.leaseRow) {
                if (!def.contains(f[2])) {
                  throw new IllegalStateException(f[0] + " has no lease-row statement: " + def);
                }
                def = def.replace(f[2], f[0].equals("sb_claim") ? " " : "");
              }
              s.execute(
                  def.replace("public." + f[0] + "(", f[1] + "(")
                      .replace("sb_message", msg)
                      .replace("sb_lease", lease));
            }
          }
          if (!variant.expiryIndex) {
            try (ResultSet rs =
                s.executeQuery(
                    "select indexname from pg_indexes where tablename = '"
                        + msg
                        + "' and indexdef like '%(qid, expires_at)%'")) {
              rs.next();
              String index = rs.getString(1);
              rs.close();
              s.execute("drop index " + index);
            }
          }
        }
      }
      String send =
          "with g as (select id from sb_queue where id = ? and revision = ?),"
              + " v as (select nextval('sb_seq') s, u.* from unnest(?::bigint[], ?::bytea[]) with"
              + " ordinality u(expires_at, body, ord) order by ord),"
              + " ins as (insert into "
              + msg
              + " (serial, qid, seq, priority, visible_at, expires_at, sent_at, body, arrival,"
              + " lifo) select v.s, g.id, v.s, 0, 0, v.expires_at, ?, v.body, v.s, false from g, v"
              + " returning serial)"
              + " select (select count(*) from g), array(select serial from ins order by serial)";
      String claim =
          variant.functions
              ? "select " + COLS + " from " + claimFn + "(?, ?, ?, ?, ?, ?, false)"
              : "with c as (select m.serial, m.leased from "
                  + msg
                  + " m where m.qid = ? and exists (select 1 from sb_queue where id = ? and"
                  + " revision = ?) and m.visible_at <= ? and m.expires_at > ? and (not m.leased or"
                  + " m.receive_count < ?) order by m.priority desc, m.seq limit ? for update skip"
                  + " locked),"
                  + " u as (update "
                  + msg
                  + " m set leased = true, visible_at = ?, lease_epoch = m.lease_epoch + 1,"
                  + " leased_at = ?, receive_count = m.receive_count + 1, first_received_at ="
                  + " case when m.first_received_at = 0 then ? else m.first_received_at end from c"
                  + " where m.serial = c.serial returning m.*)"
                  + (variant.leaseRow
                      ? ", l as (insert into "
                          + lease
                          + " (qid, until, serial) select ?, ?, c.serial from c)"
                      : "")
                  + " select "
                  + COLS
                  + " from u";
      String ack =
          variant.functions
              ? "select " + ackFn + "(?, ?, ?, ?, ?)"
              : "with d as (delete from "
                  + msg
                  + " m where m.serial = any(?) and m.qid + 0 = ? and m.lease_epoch ="
                  + " (?::int[])[array_position(?::bigint[], m.serial)] and m.leased and"
                  + " m.visible_at > ? and m.expires_at + 0 > ? and exists (select 1 from sb_queue"
                  + " where id = ? and revision = ?) returning m.qid, m.serial, m.visible_at)"
                  + (variant.leaseRow
                      ? ", l as (delete from "
                          + lease
                          + " s using d where s.qid = d.qid and s.until = d.visible_at and s.serial"
                          + " = d.serial)"
                      : "")
                  + " select array(select serial from d)";
      AtomicLong toSend = new AtomicLong(messages);
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
                        PreparedStatement ps = c.prepareStatement(send)) {
                      long[] expires = new long[batch];
                      byte[][] bodies = new byte[batch][];
                      for (int i = 0; i < batch; i++) {
                        bodies[i] =
                            ("payload-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                      }
                      while (toSend.getAndAdd(-batch) > 0) {
                        long now = System.currentTimeMillis();
                        java.util.Arrays.fill(expires, now + 345_600_000L);
                        ps.setLong(1, qid);
                        ps.setLong(2, revision);
                        ps.setObject(3, expires);
                        ps.setObject(4, bodies);
                        ps.setLong(5, now);
                        try (ResultSet rs = ps.executeQuery()) {
                          rs.next();
                        }
                      }
                    }
                    return null;
                  }));
          done.add(
              pool.submit(
                  () -> {
                    try (Connection c = ds.getConnection();
                        PreparedStatement r = c.prepareStatement(claim);
                        PreparedStatement d = c.prepareStatement(ack)) {
                      long[] serials = new long[batch];
                      int[] epochs = new int[batch];
                      while (acked.get() < messages) {
                        long now = System.currentTimeMillis();
                        long until = now + 30_000;
                        int n = 0;
                        if (variant.functions) {
                          r.setLong(1, qid);
                          r.setLong(2, revision);
                          r.setLong(3, now);
                          r.setInt(4, batch);
                          r.setLong(5, until);
                          r.setInt(6, Integer.MAX_VALUE);
                        } else {
                          r.setLong(1, qid);
                          r.setLong(2, qid);
                          r.setLong(3, revision);
                          r.setLong(4, now);
                          r.setLong(5, now);
                          r.setInt(6, Integer.MAX_VALUE);
                          r.setInt(7, batch);
                          r.setLong(8, until);
                          r.setLong(9, now);
                          r.setLong(10, now);
                          if (variant.leaseRow) {
                            r.setLong(11, qid);
                            r.setLong(12, until);
                          }
                        }
                        try (ResultSet rs = r.executeQuery()) {
                          while (rs.next()) {
                            serials[n] = rs.getLong(1);
                            epochs[n] = rs.getInt(4);
                            rs.getBytes(12);
                            n++;
                          }
                        }
                        if (n == 0) {
                          Thread.sleep(1);
                          continue;
                        }
                        long[] s = java.util.Arrays.copyOf(serials, n);
                        int[] e = java.util.Arrays.copyOf(epochs, n);
                        if (variant.functions) {
                          d.setLong(1, qid);
                          d.setLong(2, revision);
                          d.setObject(3, s);
                          d.setObject(4, e);
                          d.setLong(5, now);
                        } else {
                          d.setObject(1, s);
                          d.setLong(2, qid);
                          d.setObject(3, e);
                          d.setObject(4, s);
                          d.setLong(5, now);
                          d.setLong(6, now);
                          d.setLong(7, qid);
                          d.setLong(8, revision);
                        }
                        try (ResultSet rs = d.executeQuery()) {
                          rs.next();
                          Array a = rs.getArray(1);
                          int got = a == null ? 0 : ((Long[]) a.getArray()).length;
                          if (got != n) {
                            throw new IllegalStateException(
                                variant + ": acked " + got + " of " + n + " claimed");
                          }
                        }
                        acked.addAndGet(n);
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
      System.out.printf("%s: %.0f msg/s%n", variant.label, rate);
      return rate;
    }
  }
}
