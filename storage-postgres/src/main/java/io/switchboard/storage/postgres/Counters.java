package io.switchboard.storage.postgres;

import io.switchboard.queue.QueueStats;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A transaction's changes to a queue's counters. Counters live in {@code sb_counter} spread over up
 * to {@value #SLOTS} slot rows per queue, one per connection (see {@link #upsert}), so concurrent
 * transactions on one queue do not wait on the same row; stats add the slots up.
 */
final class Counters {

  static final int SENT = 0;
  static final int DUPLICATES = 1;
  static final int RECEIVED = 2;
  static final int ACKED = 3;
  static final int RELEASED = 4;
  static final int FAILED = 5;
  static final int EXPIRED = 6;
  static final int SHED = 7;
  static final int DEAD_LETTERED = 8;
  static final int REMOVED = 9;
  static final int KEY_LIMITED = 10;

  private static final int SLOTS = 64;
  private static final String[] COLUMNS = {
    "sent",
    "duplicates",
    "received",
    "acked",
    "released",
    "failed",
    "expired",
    "shed",
    "dead_lettered",
    "removed",
    "key_limited"
  };

  /** How many counters a queue has. */
  static final int COUNT = COLUMNS.length;

  private final long[] delta = new long[COLUMNS.length];
  private boolean dirty;

  void add(int counter, long n) {
    if (n != 0) {
      delta[counter] += n;
      dirty = true;
    }
  }

  /** Writes the changes into one slot of the queue's counters. */
  void flush(Connection c, long qid) throws SQLException {
    if (!dirty) {
      return;
    }
    List<String> pairs = new ArrayList<>();
    for (int i = 0; i < COLUMNS.length; i++) {
      pairs.add(COLUMNS[i]);
      pairs.add("?");
    }
    try (PreparedStatement ps = c.prepareStatement(upsert("?", "", pairs.toArray(String[]::new)))) {
      ps.setLong(1, qid);
      for (int i = 0; i < COLUMNS.length; i++) {
        ps.setLong(i + 2, delta[i]);
      }
      ps.executeUpdate();
    }
    java.util.Arrays.fill(delta, 0);
    dirty = false;
  }

  /**
   * An upsert adding to counters of queue {@code qid} (an SQL expression) in this connection's
   * slot: {@code columnAndValue} alternates a counter column and the SQL expression to add, {@code
   * from} is the rest of the select that yields the values (empty for plain parameters). The slot
   * is the backend's process id modulo {@value #SLOTS}: two statements running at once on different
   * connections almost never update the same row, so counters never serialize writers.
   */
  static String upsert(String qid, String from, String... columnAndValue) {
    StringBuilder cols = new StringBuilder();
    StringBuilder values = new StringBuilder();
    StringBuilder set = new StringBuilder();
    for (int i = 0; i < columnAndValue.length; i += 2) {
      String col = columnAndValue[i];
      cols.append(", ").append(col);
      values.append(", ").append(columnAndValue[i + 1]);
      set.append(i == 0 ? "" : ", ")
          .append(col)
          .append(" = sb_counter.")
          .append(col)
          .append(" + excluded.")
          .append(col);
    }
    return "insert into sb_counter (qid, slot"
        + cols
        + ") select "
        + qid
        + ", pg_backend_pid() % "
        + SLOTS
        + values
        + (from.isEmpty() ? "" : " " + from)
        + " on conflict (qid, slot) do update set "
        + set;
  }

  /**
   * Adds to the counters of many queues in this connection's slot, skipping queues that no longer
   * exist; parameters: a {@code bigint[]} of queue ids, then one {@code bigint[]} per counter (in
   * counter order), all of the same length.
   */
  static final String WRITE_MANY = writeMany();

  private static String writeMany() {
    StringBuilder arrays = new StringBuilder("?::bigint[]");
    StringBuilder names = new StringBuilder("qid");
    String[] pairs = new String[COLUMNS.length * 2];
    for (int i = 0; i < COLUMNS.length; i++) {
      arrays.append(", ?::bigint[]");
      names.append(", ").append(COLUMNS[i]);
      pairs[2 * i] = COLUMNS[i];
      pairs[2 * i + 1] = "u." + COLUMNS[i];
    }
    return upsert(
        "u.qid",
        "from unnest("
            + arrays
            + ") u("
            + names
            + ") where exists (select 1 from sb_queue q where q.id = u.qid)",
        pairs);
  }

  static QueueStats.Counters read(Connection c, long qid) throws SQLException {
    return read(c, qid, new long[COLUMNS.length]);
  }

  /** The queue's counters in the table plus {@code pending} (in counter order). */
  static QueueStats.Counters read(Connection c, long qid, long[] pending) throws SQLException {
    StringBuilder sql = new StringBuilder("select ");
    for (int i = 0; i < COLUMNS.length; i++) {
      sql.append(i == 0 ? "" : ", ").append("coalesce(sum(").append(COLUMNS[i]).append("), 0)");
    }
    sql.append(" from sb_counter where qid = ?");
    long[] v = new long[COLUMNS.length];
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      ps.setLong(1, qid);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        for (int i = 0; i < v.length; i++) {
          v[i] = rs.getLong(i + 1) + pending[i];
        }
      }
    }
    return new QueueStats.Counters(
        v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]);
  }
}
