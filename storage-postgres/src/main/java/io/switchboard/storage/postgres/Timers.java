package io.switchboard.storage.postgres;

import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.MessageEvent;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Lease ends and expiries, fired in bounded batches. Lease ends are found through {@code sb_lease}
 * (one row per lease granted, see {@link Schema#V4}), expiries through the index on {@code (qid,
 * expires_at)}; neither lookup reads a message that is not due. A lease row whose message has since
 * been acked, returned, extended or moved is simply dropped when it falls due: the message row,
 * locked, is what decides.
 *
 * <p>Each call fires at most {@code limit} lease ends and {@code limit} expiries, so no transaction
 * grows with the backlog of due timers; callers that must catch up (housekeeping) call again while
 * it answers "more".
 */
final class Timers {

  /** Timers fired per transaction, of each kind. */
  static final int BATCH = 500;

  /**
   * A boolean SQL expression over {@code sb_queue q}, bound to (now, now): whether any timer of the
   * queue is due — its earliest lease end or its earliest expiry is by now. Each is the first entry
   * of the queue's range in {@code sb_lease_due} and {@code sb_message_expiry} ({@code order by}
   * the index's columns, {@code limit 1}), so the plan probes each index once per queue. It was two
   * {@code exists} subqueries, and when the statistics said one queue held every message (a server
   * whose traffic is one busy queue) their plan read the whole message table once per queue, on
   * every housekeeping tick (DueTimerSearchTest; docs/bench-history/postgresql.md).
   */
  static final String DUE =
      "coalesce((select l.until from sb_lease l where l.qid = q.id order by l.qid, l.until limit 1)"
          + " <= ? or (select m.expires_at from sb_message m where m.qid = q.id order by m.qid,"
          + " m.expires_at limit 1) <= ?, false)";

  private Timers() {}

  /**
   * Fires what fell due by {@code op.now} in {@code op}'s queue, in the order it fell due: leases
   * that ended before the message expired return (or go to the dead-letter queue when their
   * receives are used up); then expired messages leave. A message whose expiry came no later than
   * its lease end expires. Returns whether more may be due than this batch took.
   */
  static boolean fire(Op op, int limit) throws SQLException {
    List<Long> leaseRows = dueLeases(op, limit);
    List<Row> due = lockDue(op, leaseRows, limit);
    int expiring = 0;
    // Fire in time order: at the same millisecond an expiry before a lease end; expiries in
    // arrival order, lease ends in creation order. The order decides the dead-letter queue's order.
    record Event(Row row, long at, boolean expiry, long tie) {}
    List<Event> events = new ArrayList<>();
    for (Row r : due) {
      if (r.leased && r.visibleAt <= op.now) {
        events.add(new Event(r, r.visibleAt, false, r.serial));
      }
      if (r.expiresAt <= op.now) {
        events.add(new Event(r, r.expiresAt, true, r.arrival));
        expiring++;
      }
    }
    events.sort(
        Comparator.comparingLong(Event::at)
            .thenComparing(e -> !e.expiry())
            .thenComparingLong(Event::tie));
    Set<Long> gone = new HashSet<>();
    for (Event e : events) {
      if (!gone.contains(e.row().serial)) {
        fireOne(op, e.row(), e.expiry(), gone);
      }
    }
    if (!leaseRows.isEmpty()) {
      Array serials = op.c.createArrayOf("bigint", leaseRows.toArray());
      Sql.update(
          op.c,
          "delete from sb_lease where qid = ? and until <= ? and serial = any(?)",
          op.q.id(),
          op.now,
          serials);
    }
    return leaseRows.size() >= limit || expiring >= limit;
  }

  private static void fireOne(Op op, Row r, boolean expiry, Set<Long> gone) throws SQLException {
    if (expiry) {
      gone.add(r.serial);
      if (op.q.config().onExpire() == ExpiryAction.DEAD_LETTER) {
        if (op.deadLetter(r, MessageEvent.Cause.EXPIRED)) {
          op.counters.add(Counters.EXPIRED, 1); // a refused move leaves it, its expiry put off
        }
      } else {
        op.counters.add(Counters.EXPIRED, 1);
        Sql.update(op.c, "delete from sb_message where serial = ?", r.serial);
        op.events.add(() -> new MessageEvent.Expired(op.q.name(), op.view(r, null)));
      }
      return;
    }
    op.counters.add(Counters.RELEASED, 1);
    if (op.exhausted(r)) {
      gone.add(r.serial);
      op.deadLetter(r, MessageEvent.Cause.MAX_RECEIVES); // refused: it stays, available
    } else {
      r.leased = false;
      Sql.update(
          op.c, "update sb_message set leased = false, visible_at = 0 where serial = ?", r.serial);
    }
  }

  /** Serials of the queue's lease rows due by now, earliest first, at most {@code limit}. */
  private static List<Long> dueLeases(Op op, int limit) throws SQLException {
    List<Long> out = new ArrayList<>();
    try (PreparedStatement ps =
        Sql.prepare(
            op.c,
            "select serial from sb_lease where qid = ? and until <= ? order by until limit ?",
            op.q.id(),
            op.now,
            limit)) {
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getLong(1));
        }
      }
    }
    return out;
  }

  /**
   * The messages those lease rows name and the earliest {@code limit} expired ones, locked in
   * serial order (so two servers firing the same queue cannot deadlock); only rows with a timer
   * actually due are returned.
   */
  private static List<Row> lockDue(Op op, List<Long> leaseRows, int limit) throws SQLException {
    List<Row> out = new ArrayList<>();
    try (PreparedStatement ps =
        Sql.prepare(
            op.c,
            "select "
                + Row.COLS
                + " from sb_message where qid = ? and (serial = any(?) or serial in (select serial"
                + " from sb_message where qid = ? and expires_at <= ? order by expires_at limit ?))"
                + " order by serial for update",
            op.q.id(),
            op.c.createArrayOf("bigint", leaseRows.toArray()),
            op.q.id(),
            op.now,
            limit)) {
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Row r = Row.read(rs);
          if ((r.leased && r.visibleAt <= op.now) || r.expiresAt <= op.now) {
            out.add(r);
          }
        }
      }
    }
    return out;
  }

  /** Names of the queues with a timer due by {@code now}. */
  static List<String> dueQueues(Connection c, long now) throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement ps =
        Sql.prepare(c, "select q.name from sb_queue q where " + DUE, now, now)) {
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          names.add(rs.getString(1));
        }
      }
    }
    return names;
  }
}
