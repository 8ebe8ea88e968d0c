package io.switchboard.storage.postgres;

import io.switchboard.queue.QueueStats;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A transaction's changes to a queue's counters. Counters live in {@code sb_counter} spread over a
 * few slots per queue, so concurrent transactions on one queue rarely wait on the same row; stats
 * add the slots up.
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

  private static final int SLOTS = 8;
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
    "removed"
  };

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
    StringBuilder sql = new StringBuilder("insert into sb_counter (qid, slot");
    StringBuilder values = new StringBuilder(") values (?, ?");
    StringBuilder set = new StringBuilder(") on conflict (qid, slot) do update set ");
    for (int i = 0; i < COLUMNS.length; i++) {
      sql.append(", ").append(COLUMNS[i]);
      values.append(", ?");
      set.append(i == 0 ? "" : ", ")
          .append(COLUMNS[i])
          .append(" = sb_counter.")
          .append(COLUMNS[i])
          .append(" + excluded.")
          .append(COLUMNS[i]);
    }
    try (PreparedStatement ps = c.prepareStatement(sql.append(values).append(set).toString())) {
      ps.setLong(1, qid);
      ps.setInt(2, (int) (Thread.currentThread().threadId() % SLOTS));
      for (int i = 0; i < COLUMNS.length; i++) {
        ps.setLong(i + 3, delta[i]);
      }
      ps.executeUpdate();
    }
    java.util.Arrays.fill(delta, 0);
    dirty = false;
  }

  static QueueStats.Counters read(Connection c, long qid) throws SQLException {
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
          v[i] = rs.getLong(i + 1);
        }
      }
    }
    return new QueueStats.Counters(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
  }
}
