package io.switchboard.storage.postgres;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A queue's limit per key for one receive (docs/design.md, "Limits per key"): the messages in
 * flight per message group, counted from the leases in the receive's transaction, and what the
 * receive takes on top. The receives of a queue with a limit take turns on the queue's
 * transaction-scoped advisory lock (the one grouped queues take), so two servers never both take a
 * group's last slot.
 */
final class KeyLimits {

  final int limit;

  /** Messages in flight per group, this receive's choices included as it makes them. */
  final Map<String, Long> inFlight;

  /** Messages of the queue in flight, with or without a group. */
  long total;

  /** Whether the receive passed over a message because its group was at its limit. */
  boolean skipped;

  private KeyLimits(int limit, Map<String, Long> inFlight, long total) {
    this.limit = limit;
    this.inFlight = inFlight;
    this.total = total;
  }

  /** The limits of {@code op}'s queue, its receive lock taken; null when it has none. */
  static @Nullable KeyLimits of(Op op) throws SQLException {
    if (op.q.config().keyLimit().isEmpty()) {
      return null;
    }
    Sql.execute(op.c, "select pg_advisory_xact_lock(?, ?)", 0x5342, (int) op.q.id());
    Map<String, Long> inFlight = new HashMap<>();
    long total = inFlight(op, inFlight);
    return new KeyLimits(op.q.config().keyLimit().getAsInt(), inFlight, total);
  }

  /**
   * Fills {@code perGroup} with the queue's messages in flight (leased, the lease running) per
   * group and returns how many are in flight in all.
   */
  static long inFlight(Op op, Map<String, Long> perGroup) throws SQLException {
    long total = 0;
    try (PreparedStatement ps =
        Sql.prepare(
            op.c,
            "select group_id, count(*) from sb_message where qid = ? and leased and visible_at > ?"
                + " group by group_id",
            op.q.id(),
            op.now)) {
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long n = rs.getLong(2);
          total += n;
          if (rs.getString(1) != null) {
            perGroup.put(rs.getString(1), n);
          }
        }
      }
    }
    return total;
  }

  /** How many more messages of {@code group} may go in flight now (none for no group: no limit). */
  int room(@Nullable String group) {
    if (group == null) {
      return Integer.MAX_VALUE;
    }
    return (int) Math.max(0, limit - inFlight.getOrDefault(group, 0L));
  }

  /** Whether {@code group} is at its limit. */
  boolean atLimit(@Nullable String group) {
    return room(group) == 0;
  }

  /**
   * Whether one more message of {@code group} may be taken: if so it is counted as taken, if not
   * the receive has passed one over.
   */
  boolean admit(@Nullable String group) {
    if (group == null) {
      return true;
    }
    if (atLimit(group)) {
      skipped = true;
      return false;
    }
    inFlight.merge(group, 1L, Long::sum);
    total++;
    return true;
  }

  /** The groups at their limit now. */
  Set<String> held() {
    Set<String> out = new HashSet<>();
    inFlight.forEach(
        (g, n) -> {
          if (n >= limit) {
            out.add(g);
          }
        });
    return out;
  }
}
