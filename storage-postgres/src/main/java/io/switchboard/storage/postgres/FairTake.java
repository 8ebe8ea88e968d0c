package io.switchboard.storage.postgres;

import io.switchboard.queue.spi.FairShareRules;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Fair queues ({@link FairShareRules}, as the core engine's {@code FairShare}) for an unfiltered
 * receive from a standard queue whose messages carry group ids: chooses, one message at a time, the
 * best available message of a group that is not noisy, else the best of the noisy group with the
 * fewest messages in flight, counting each choice as in flight for the next. A queue without group
 * ids (one index probe on {@code sb_message_group}) and a receive that cannot make any group noisy
 * take the plain claim. Candidates are chosen without locks; the lease skips any another receiver
 * took meanwhile.
 *
 * <p>With a limit per key ({@link KeyLimits}) a group at its limit is left out of the candidates as
 * a noisy one is, and never taken from even when only such groups are left; each choice counts
 * against its group, so one receive takes at most the room its group has.
 */
final class FairTake {

  /** A message that may be taken; {@code groupId} null for one without a group. */
  private record Candidate(long serial, @Nullable String groupId, int priority, long seq) {}

  private FairTake() {}

  /**
   * The serials to lease in order, or null when the plain claim is fair anyway (and no group can
   * reach a limit per key).
   */
  static @Nullable List<Long> choose(Op op, int max, @Nullable KeyLimits keys) throws SQLException {
    if (!hasGroups(op)) {
      return null;
    }
    Map<String, Long> inFlight;
    long total;
    if (keys != null) {
      inFlight = keys.inFlight;
      total = keys.total;
    } else {
      inFlight = new HashMap<>();
      total = KeyLimits.inFlight(op, inFlight);
    }
    boolean anyCanBeNoisy = max >= FairShareRules.NOISY_MIN_IN_FLIGHT;
    for (long n : inFlight.values()) {
      anyCanBeNoisy |= n + max >= FairShareRules.NOISY_MIN_IN_FLIGHT;
    }
    if (!anyCanBeNoisy && keys == null) {
      return null;
    }
    List<Long> chosen = new ArrayList<>();
    Candidate last = null;
    while (chosen.size() < max) {
      Set<String> noisy = noisy(inFlight, total);
      Set<String> held = keys == null ? Set.of() : keys.held();
      Set<String> skip = new HashSet<>(noisy);
      skip.addAll(held);
      List<Candidate> next = best(op, chosen, skip, null, max - chosen.size());
      if (next.isEmpty()) {
        Candidate pick = null;
        for (String g : noisy) {
          if (held.contains(g)) {
            continue;
          }
          List<Candidate> head = best(op, chosen, Set.of(), Set.of(g), 1);
          if (!head.isEmpty() && (pick == null || better(op, head.get(0), pick, inFlight))) {
            pick = head.get(0);
          }
        }
        if (pick == null) {
          break;
        }
        next = List.of(pick);
      }
      for (Candidate c : next) {
        chosen.add(c.serial());
        last = c;
        total++;
        if (c.groupId() != null) {
          inFlight.merge(c.groupId(), 1L, Long::sum);
        }
        if (!noisy(inFlight, total).equals(noisy)) {
          break; // the next choice sees the new noisy groups
        }
        if (keys != null && keys.atLimit(c.groupId())) {
          break; // the group reached its limit: the next choice leaves it out
        }
      }
    }
    if (keys != null) {
      keys.total = total;
      keys.skipped = passedOver(op, chosen, keys.held(), max, last);
    }
    return chosen;
  }

  /**
   * Whether a group at its limit has an available message the receive would have been offered: it
   * ended short, or that message sorts before the last one it took.
   */
  private static boolean passedOver(
      Op op, List<Long> chosen, Set<String> held, int max, @Nullable Candidate last)
      throws SQLException {
    if (held.isEmpty()) {
      return false;
    }
    List<Candidate> best = best(op, chosen, Set.of(), held, 1);
    if (best.isEmpty()) {
      return false;
    }
    if (chosen.size() < max || last == null) {
      return true;
    }
    Candidate h = best.get(0);
    if (h.priority() != last.priority()) {
      return h.priority() > last.priority();
    }
    return op.q.fifo() ? h.seq() < last.seq() : h.seq() > last.seq();
  }

  /** Fewer in flight wins; on a tie, the first in queue order. */
  private static boolean better(Op op, Candidate a, Candidate b, Map<String, Long> inFlight) {
    long na = inFlight.getOrDefault(a.groupId(), 0L);
    long nb = inFlight.getOrDefault(b.groupId(), 0L);
    if (na != nb) {
      return na < nb;
    }
    if (a.priority() != b.priority()) {
      return a.priority() > b.priority();
    }
    return op.q.fifo() ? a.seq() < b.seq() : a.seq() > b.seq();
  }

  private static Set<String> noisy(Map<String, Long> inFlight, long total) {
    Set<String> out = new HashSet<>();
    inFlight.forEach(
        (g, n) -> {
          if (FairShareRules.noisy(n, total)) {
            out.add(g);
          }
        });
    return out;
  }

  private static boolean hasGroups(Op op) throws SQLException {
    try (PreparedStatement ps =
        Sql.prepare(
            op.c,
            "select exists (select 1 from sb_message where qid = ? and group_id is not null)",
            op.q.id())) {
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  /**
   * The best {@code limit} available messages, in queue order, not among {@code chosen}: of the
   * groups {@code only} when given, else of no group in {@code skip}.
   */
  private static List<Candidate> best(
      Op op, List<Long> chosen, Set<String> skip, @Nullable Set<String> only, int limit)
      throws SQLException {
    String groups =
        only != null
            ? " and group_id = any(?)"
            : skip.isEmpty() ? "" : " and (group_id is null or group_id <> all(?))";
    List<Object> args = new ArrayList<>();
    args.add(op.q.id());
    args.add(op.now);
    args.add(op.now);
    args.add(op.c.createArrayOf("bigint", chosen.toArray()));
    if (only != null) {
      args.add(op.c.createArrayOf("text", only.toArray()));
    } else if (!skip.isEmpty()) {
      args.add(op.c.createArrayOf("text", skip.toArray()));
    }
    args.add(limit);
    List<Candidate> out = new ArrayList<>();
    try (PreparedStatement ps =
        Sql.prepare(
            op.c,
            "select serial, group_id, priority, seq from sb_message where qid = ? and not leased"
                + " and visible_at <= ? and expires_at > ? and serial <> all(?)"
                + groups
                + " order by "
                + op.q.orderBy()
                + " limit ?",
            args.toArray())) {
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new Candidate(rs.getLong(1), rs.getString(2), rs.getInt(3), rs.getLong(4)));
        }
      }
    }
    return out;
  }
}
