package io.switchboard.bench.postgres;

import io.switchboard.bench.report.Machine;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.LockSupport;

/**
 * What the database saw during one measured run: statements executed and explicit transactions
 * begun (from {@code pg_stat_statements}), and updates of the message tables, HOT or not (from the
 * statistics collector); and table sizes. Round trips per operation are statements plus explicit
 * transactions: the driver sends {@code BEGIN} with the first statement, {@code COMMIT} on its own.
 * The counters are reset before a run and read after the run's pools are closed, because a
 * PostgreSQL 14 backend hands its table statistics to the collector only when it exits or 500 ms
 * after its last report, and a reader's view of them may be 500 ms old.
 */
final class PgStats {

  /** Statements and work per run. */
  record Work(long statements, long transactions, long updates, long hotUpdates) {
    double hotShare() {
      return updates == 0 ? Double.NaN : (double) hotUpdates / updates;
    }
  }

  /** One table's size. */
  record Size(String table, long total, long heap, long indexes) {}

  private final String url;

  PgStats(String url) {
    this.url = url;
  }

  /** Enables statement counting (the server must preload {@code pg_stat_statements}). */
  void install() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("create extension if not exists pg_stat_statements");
    }
  }

  void reset() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("select pg_stat_statements_reset()");
      s.execute("select pg_stat_reset()");
    }
  }

  /**
   * The work since {@link #reset} on {@code tables} (updates summed over them), once the
   * collector's figures have stopped moving: read after 0.6 s, then every 0.6 s until two reads
   * agree (at most 10 s).
   */
  Work read(String... tables) throws SQLException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    LockSupport.parkNanos(Duration.ofMillis(600).toNanos());
    Work last = readOnce(tables);
    while (System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(600).toNanos());
      Work now = readOnce(tables);
      if (now.updates() == last.updates() && now.hotUpdates() == last.hotUpdates()) {
        return now;
      }
      last = now;
    }
    return last;
  }

  private Work readOnce(String... tables) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("select pg_stat_clear_snapshot()");
      long statements;
      long transactions;
      try (ResultSet rs =
          s.executeQuery(
              "select coalesce(sum(calls) filter (where query !~* '^\\s*(begin|commit|rollback|set"
                  + " |show )' and query !~* 'pg_stat_'), 0), coalesce(sum(calls) filter (where"
                  + " query ~* '^\\s*begin'), 0) from pg_stat_statements where toplevel")) {
        rs.next();
        statements = rs.getLong(1);
        transactions = rs.getLong(2);
      }
      long upd;
      long hot;
      try (PreparedStatement ps =
          c.prepareStatement(
              "select coalesce(sum(n_tup_upd), 0), coalesce(sum(n_tup_hot_upd), 0)"
                  + " from pg_stat_user_tables where relname::text = any(?)")) {
        ps.setArray(1, c.createArrayOf("text", tables));
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          upd = rs.getLong(1);
          hot = rs.getLong(2);
        }
      }
      return new Work(statements, transactions, upd, hot);
    }
  }

  /**
   * Where the database's time went since {@link #reset}: the {@code top} statements by execution
   * time, top-level and nested (the statements inside {@code sb_claim}; the server must run with
   * {@code pg_stat_statements.track = all}), each per message of {@code messages}: calls, execution
   * time, WAL records and bytes, shared buffers hit and dirtied; then the top-level sum. A nested
   * statement's time is also inside its caller's.
   */
  List<String> profile(int messages, int top) throws SQLException {
    List<String> out = new ArrayList<>();
    String per =
        "round(calls::numeric / %1$d, 3), round((total_exec_time * 1000 / %1$d)::numeric, 1),"
            + " round(wal_records::numeric / %1$d, 2), round(wal_bytes / %1$d, 0),"
            + " round(shared_blks_hit::numeric / %1$d, 1),"
            + " round(shared_blks_dirtied::numeric / %1$d, 2)";
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      out.add(
          "  calls/msg | exec µs/msg | WAL records/msg | WAL bytes/msg | buffers hit/msg |"
              + " dirtied/msg | statement");
      try (ResultSet rs =
          s.executeQuery(
              String.format(
                  java.util.Locale.ROOT,
                  "select "
                      + per
                      + ", toplevel, regexp_replace(query, '\\s+', ' ', 'g') from"
                      + " pg_stat_statements where query !~* 'pg_stat_' order by total_exec_time"
                      + " desc limit %2$d",
                  messages,
                  top))) {
        while (rs.next()) {
          String q = rs.getString(8);
          out.add(
              String.format(
                  java.util.Locale.ROOT,
                  "  %s | %s | %s | %s | %s | %s | %s%s",
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getString(6),
                  rs.getBoolean(7) ? "" : "(nested) ",
                  q.length() > 110 ? q.substring(0, 110) + "…" : q));
        }
      }
      try (ResultSet rs =
          s.executeQuery(
              String.format(
                  java.util.Locale.ROOT,
                  "select round(sum(total_exec_time)::numeric * 1000 / %1$d, 1),"
                      + " round(sum(wal_records)::numeric / %1$d, 2), round(sum(wal_bytes) / %1$d,"
                      + " 0), round(sum(shared_blks_hit)::numeric / %1$d, 1),"
                      + " round(sum(shared_blks_dirtied)::numeric / %1$d, 2) from"
                      + " pg_stat_statements where toplevel and query !~* 'pg_stat_'",
                  messages))) {
        rs.next();
        out.add(
            String.format(
                java.util.Locale.ROOT,
                "  top-level sum: %s µs/msg executing, %s WAL records/msg, %s WAL bytes/msg, %s"
                    + " buffers hit/msg, %s dirtied/msg",
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5)));
      }
    }
    return out;
  }

  /** Sizes of {@code tables}, in that order. */
  List<Size> sizes(List<String> tables) throws SQLException {
    List<Size> out = new ArrayList<>();
    try (Connection c = connect();
        PreparedStatement ps =
            c.prepareStatement(
                "select relname, pg_total_relation_size(relid), pg_relation_size(relid),"
                    + " pg_indexes_size(relid) from pg_stat_user_tables"
                    + " where relname::text = any(?) order by array_position(?, relname::text)")) {
      ps.setArray(1, c.createArrayOf("text", tables.toArray()));
      ps.setArray(2, c.createArrayOf("text", tables.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new Size(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
        }
      }
    }
    return out;
  }

  void vacuum(List<String> tables) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      for (String t : tables) {
        s.execute("vacuum " + t);
      }
    }
  }

  /**
   * CPU time used so far by the PostgreSQL server, in nanoseconds: the postmaster and every process
   * it started (backends, autovacuum, background writers), the exited ones included, as {@code
   * machine} reads it from one backend ({@link Machine#parentTreeCpuNanos}); empty if it cannot.
   */
  OptionalLong serverCpuNanos(Machine machine) throws SQLException {
    long backend;
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
      rs.next();
      backend = rs.getLong(1);
    }
    return machine.parentTreeCpuNanos(backend);
  }

  String version() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("show server_version")) {
      rs.next();
      return rs.getString(1);
    }
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(url, "postgres", "postgres");
  }
}
