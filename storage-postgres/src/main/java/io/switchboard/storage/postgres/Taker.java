package io.switchboard.storage.postgres;

import io.switchboard.queue.Message;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.spi.Receipt;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The claim: takes eligible messages in delivery order and leases them, race-free across servers. A
 * standard queue claims with {@code FOR UPDATE SKIP LOCKED}, so concurrent receivers on any server
 * take disjoint messages without waiting on each other; the claim predicate itself excludes expired
 * and not-yet-visible messages, so an expired message is never delivered whatever the cleanup's
 * pace. A grouped queue serializes its receives on a transaction-scoped advisory lock per queue,
 * because whether a group may deliver depends on its other messages (seed 003).
 */
final class Taker {

  private static final int SCAN_CHUNK = 256;

  /**
   * Ready group heads in delivery order: priority first; then the head's place in time (its send
   * time if never received, else when it was last received; at the same instant one never received
   * first); then send order ({@code docs/design.md}, "Queue semantics").
   */
  private static final Comparator<Row> GROUP_ORDER =
      Comparator.comparingInt((Row r) -> -r.priority)
          .thenComparingLong(r -> r.receiveCount > 0 ? r.leasedAt : r.sentAt)
          .thenComparing(r -> r.receiveCount > 0)
          .thenComparingLong(r -> r.seq)
          .thenComparing(r -> r.groupId == null ? "" : r.groupId);

  private static final int MAX_ROUNDS = 50;

  private Taker() {}

  static List<Message> take(Op op, int max, @Nullable MessageFilter filter, long visibilityMillis)
      throws SQLException {
    List<Long> serials;
    List<Row> leased;
    KeyLimits keys = KeyLimits.of(op);
    if (op.q.grouped()) {
      serials = chooseGrouped(op, max, filter, keys);
      leased = lease(op, max, serials, visibilityMillis);
    } else if (filter == null) {
      serials = FairTake.choose(op, max, keys); // null: none can be noisy or held, the claim
      leased = lease(op, max, serials, visibilityMillis);
    } else {
      // Candidates are chosen without locks; one another server leased meanwhile is skipped, so
      // choose again for what is missing (bounded: the other transactions are short).
      serials = new ArrayList<>();
      leased = new ArrayList<>();
      for (int round = 0; round < MAX_ROUNDS && leased.size() < max; round++) {
        List<Long> chosen = chooseFiltered(op, max - leased.size(), filter, keys);
        List<Row> got = lease(op, max, chosen, visibilityMillis);
        serials.addAll(chosen);
        leased.addAll(got);
        if (got.size() == chosen.size()) {
          break;
        }
      }
    }
    if (serials == null) {
      leased.sort(Row.order(op.q.fifo()));
    } else {
      Map<Long, Integer> rank = new HashMap<>();
      for (int i = 0; i < serials.size(); i++) {
        rank.put(serials.get(i), i);
      }
      leased.sort(Comparator.comparingInt(r -> rank.get(r.serial)));
    }
    op.counters.add(Counters.RECEIVED, leased.size());
    if (keys != null && keys.skipped) {
      op.counters.add(Counters.KEY_LIMITED, 1);
    }
    return messages(op, leased);
  }

  /** The leased rows as the messages a receive returns, each with its receipt. */
  static List<Message> messages(Op op, List<Row> leased) {
    List<Message> out = new ArrayList<>(leased.size());
    for (Row r : leased) {
      String receipt = new Receipt(r.serial, r.leaseEpoch).encode(op.receiptKey());
      out.add(op.view(r, receipt, MessageState.IN_FLIGHT));
    }
    return out;
  }

  /** Leases the chosen serials (null: the best eligible ones) and returns their rows. */
  private static List<Row> lease(
      Op op, int max, @Nullable List<Long> serials, long visibilityMillis) throws SQLException {
    if (serials != null && serials.isEmpty()) {
      return new ArrayList<>();
    }
    String pick =
        serials == null
            ? "select serial from sb_message where "
                + op.q.ofQueue()
                + " and not leased and visible_at <= ? and expires_at > ? order by "
                + op.q.orderBy()
                + " limit ? for update skip locked"
            : "select serial from sb_message where serial = any(?) and qid = ? and not leased"
                + " and visible_at <= ? and expires_at > ? for update skip locked";
    String sql =
        "with c as ("
            + pick
            + "), u as (update sb_message m set leased = true, visible_at = ?, lease_epoch ="
            + " m.lease_epoch + 1, leased_at = ?, receive_count = m.receive_count + 1,"
            + " first_received_at = case when m.first_received_at = 0 then ? else"
            + " m.first_received_at end from c where m.serial = c.serial returning "
            + Row.COLS.replace("serial,", "m.serial,")
            + "), l as (insert into sb_lease (qid, until, serial) select "
            + op.q.id()
            + ", visible_at, serial from u) select * from u";
    List<Row> out = new ArrayList<>();
    try (PreparedStatement ps = op.c.prepareStatement(sql)) {
      int i = 1;
      if (serials == null) {
        ps.setLong(i++, op.q.id());
        ps.setLong(i++, op.now);
        ps.setLong(i++, op.now);
        ps.setInt(i++, max);
      } else {
        Array arr = op.c.createArrayOf("bigint", serials.toArray());
        ps.setArray(i++, arr);
        ps.setLong(i++, op.q.id());
        ps.setLong(i++, op.now);
        ps.setLong(i++, op.now);
      }
      ps.setLong(i++, op.now + visibilityMillis);
      ps.setLong(i++, op.now);
      ps.setLong(i, op.now);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(Row.read(rs));
        }
      }
    }
    return out;
  }

  /** Walks eligible messages in order and picks those the filter accepts. */
  private static List<Long> chooseFiltered(
      Op op, int max, MessageFilter filter, @Nullable KeyLimits keys) throws SQLException {
    List<Long> chosen = new ArrayList<>();
    Row last = null;
    boolean fifo = op.q.config().order() == io.switchboard.queue.Order.FIFO;
    Pushdown.Condition pushed = Pushdown.condition(filter, op.q.config().indexedAttributes());
    while (chosen.size() < max) {
      String after =
          last == null
              ? ""
              : " and (priority < ? or (priority = ? and seq " + (fifo ? ">" : "<") + " ?))";
      List<Row> chunk = new ArrayList<>();
      try (PreparedStatement ps =
          op.c.prepareStatement(
              "select "
                  + Row.COLS
                  + " from sb_message where "
                  + op.q.ofQueue()
                  + " and not leased and visible_at <= ? and expires_at > ?"
                  + after
                  + (pushed == null ? "" : " and " + pushed.sql())
                  + " order by "
                  + op.q.orderBy()
                  + " limit "
                  + SCAN_CHUNK)) {
        ps.setLong(1, op.q.id());
        ps.setLong(2, op.now);
        ps.setLong(3, op.now);
        if (last != null) {
          ps.setInt(4, last.priority);
          ps.setInt(5, last.priority);
          ps.setLong(6, last.seq);
        }
        if (pushed != null) {
          int i = last == null ? 4 : 7;
          for (String[] p : pushed.params()) {
            ps.setArray(i++, op.c.createArrayOf("text", p));
          }
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            chunk.add(Row.read(rs));
          }
        }
      }
      for (Row r : chunk) {
        if (chosen.size() < max && filter.test(r, op.now)) {
          if (keys != null && !keys.admit(r.groupId)) {
            continue; // its group is at its limit: passed over like a refused message
          }
          chosen.add(r.serial);
        }
      }
      if (chunk.size() < SCAN_CHUNK) {
        break;
      }
      last = chunk.get(chunk.size() - 1);
    }
    return chosen;
  }

  /**
   * Seed-003 rules: the best ready group head (available) that the filter accepts, then the
   * available messages right behind it in its group up to the first one that is not, repeated.
   * Ready groups go in {@link #GROUP_ORDER}, the core's order ({@code GroupedOrdering}).
   */
  private static List<Long> chooseGrouped(
      Op op, int max, @Nullable MessageFilter filter, @Nullable KeyLimits keys)
      throws SQLException {
    if (keys == null) { // KeyLimits.of took the lock already
      Sql.execute(op.c, "select pg_advisory_xact_lock(?, ?)", 0x5342, (int) op.q.id());
    }
    List<Row> heads = new ArrayList<>();
    try (PreparedStatement ps =
        Sql.prepare(
            op.c,
            "select distinct on (group_id) "
                + Row.COLS
                + " from sb_message where qid = ? order by group_id, seq",
            op.q.id())) {
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Row r = Row.read(rs);
          if (r.available(op.now)) {
            heads.add(r);
          }
        }
      }
    }
    heads.sort(GROUP_ORDER);
    List<Long> chosen = new ArrayList<>();
    for (Row head : heads) {
      if (chosen.size() >= max) {
        break;
      }
      if (filter != null && !filter.test(head, op.now)) {
        continue;
      }
      int room = keys == null ? Integer.MAX_VALUE : keys.room(head.groupId);
      if (room == 0) {
        Objects.requireNonNull(keys).skipped =
            true; // a group at its limit, its head handed back: it waits
        continue;
      }
      try (PreparedStatement ps =
          Sql.prepare(
              op.c,
              "select "
                  + Row.COLS
                  + " from sb_message where qid = ? and group_id = ? order by seq limit ?",
              op.q.id(),
              head.groupId,
              max - chosen.size())) {
        try (ResultSet rs = ps.executeQuery()) {
          int taken = 0;
          while (rs.next()) {
            Row r = Row.read(rs);
            if (!r.available(op.now)) {
              break;
            }
            if (taken == room) {
              Objects.requireNonNull(keys).skipped = true; // the group's limit cut its run short
              break;
            }
            chosen.add(r.serial);
            taken++;
          }
        }
      }
    }
    return chosen;
  }
}
