package io.switchboard.storage.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A receive on a standard queue without a filter, the common case, as one autocommit call of the
 * database function {@code sb_claim} ({@link Schema} version 4): one round trip instead of a
 * transaction of four. The function takes the best eligible messages in delivery order {@code FOR
 * UPDATE SKIP LOCKED}, leases them (a HOT update: no leased column is indexed) and arms their
 * timers in {@code sb_lease}; the caller counts the receives in memory ({@link CounterBuffer}).
 *
 * <p>Eligibility needs no timer to have fired first: a message is eligible when it is visible and
 * not expired by now, and either not leased or leased with its lease ended and receives left. So a
 * lease that ran out is claimed again in its old place (and counted as released then) even if no
 * housekeeping has returned it yet, an expired message is never delivered, and a message whose
 * receives are used up waits for its timer to take it to the dead-letter queue. The claim is thus
 * what the engine's "fire due timers, then claim" transaction would return.
 *
 * <p>The queue row is the caller's cached one: the function refuses with SQLSTATE {@value #STALE}
 * when the queue's id and revision no longer match (deleted, recreated or reconfigured), and the
 * caller reads the queue again.
 */
final class Claim {

  /** SQLSTATE raised when the queue row the caller used is not current. */
  static final String STALE = "SB001";

  /**
   * The function as schema version 4 created it: both orders walk a full index. Kept as it was, so
   * a database migrates through the same steps whatever build creates it.
   */
  static final String FUNCTION_V4 = function("", "");

  /**
   * The function as schema version 33 replaces it. A LIFO claim walks the partial index {@code
   * sb_message_lifo} ({@code where lifo}), which holds the messages of LIFO queues only. And the
   * plan is made once per connection, not on every call: PL/pgSQL planned the claim afresh for each
   * call (a custom plan for its parameters), which cost about as much as running it
   * (pg_stat_statements with {@code track_planning}: 296 µs planning and 320 µs executing per call
   * of ten messages). A generic plan is kept instead, and with sequential scans, hash and merge
   * joins also off it is the one the custom plans were: the ordering index from the head, then each
   * claimed row by its primary key (left to itself, the generic plan updated the claimed rows
   * through a sequential scan of the table and a hash join: 14 ms per call with 2,000 queued).
   */
  static final String FUNCTION =
      function(
          " and m.lifo",
          " set plan_cache_mode = force_generic_plan set enable_seqscan = off"
              + " set enable_hashjoin = off set enable_mergejoin = off");

  /**
   * The function, {@code lifoOnly} added to the LIFO claim's conditions, {@code settings} to the
   * ones that pin the plan (sorts and bitmap scans off).
   */
  private static String function(String lifoOnly, String settings) {
    return "create or replace function sb_claim(p_qid bigint, p_revision bigint, p_now bigint,"
        + " p_max int, p_until bigint, p_max_receives int, p_lifo boolean) returns setof"
        + " sb_message language plpgsql set enable_sort = off set enable_incremental_sort = off"
        + " set enable_bitmapscan = off"
        + settings
        + " as $$ begin"
        + " perform 1 from sb_queue where id = p_qid and revision = p_revision;"
        + " if not found then raise exception 'queue % changed', p_qid using errcode = '"
        + STALE
        + "'; end if;"
        + " if p_lifo then return query "
        + statement("m.priority desc, m.seq desc", lifoOnly)
        + "; else return query "
        + statement("m.priority desc, m.seq", "")
        + "; end if; end $$";
  }

  private static String statement(String order, String extra) {
    return "with c as (select m.serial, m.leased from sb_message m where m.qid = p_qid"
        + extra
        + " and m.visible_at <= p_now and m.expires_at > p_now"
        + " and (not m.leased or m.receive_count < p_max_receives)"
        + " order by "
        + order
        + " limit p_max for update skip locked),"
        + " u as (update sb_message m set leased = true, visible_at = p_until,"
        + " lease_epoch = m.lease_epoch + 1, leased_at = p_now,"
        + " receive_count = m.receive_count + 1, first_received_at = case"
        + " when m.first_received_at = 0 then p_now else m.first_received_at end"
        + " from c where m.serial = c.serial returning m.*),"
        + " l as (insert into sb_lease (qid, until, serial) select p_qid, p_until, c.serial from c),"
        + " k as ("
        + Counters.upsert(
            "p_qid",
            "from c having count(*) filter (where c.leased) > 0",
            "released",
            "count(*) filter (where c.leased)")
        + ") select * from u";
  }

  private static final String CALL = "select " + Row.COLS + " from sb_claim(?, ?, ?, ?, ?, ?, ?)";

  private Claim() {}

  /**
   * Claims up to {@code max} messages of {@code q} for {@code visibilityMillis}; returns their rows
   * in delivery order, or null when {@code q} is no longer current.
   */
  static @Nullable List<Row> claim(Connection c, Op.Q q, long now, int max, long visibilityMillis)
      throws SQLException {
    int maxReceives =
        q.config().deadLetter().map(d -> d.maxReceiveCount()).orElse(Integer.MAX_VALUE);
    boolean lifo = !q.fifo();
    List<Row> out = new ArrayList<>(max);
    try (PreparedStatement ps = c.prepareStatement(CALL)) {
      ps.setLong(1, q.id());
      ps.setLong(2, q.revision());
      ps.setLong(3, now);
      ps.setInt(4, max);
      ps.setLong(5, now + visibilityMillis);
      ps.setInt(6, maxReceives);
      ps.setBoolean(7, lifo);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(Row.read(rs));
        }
      }
    } catch (SQLException e) {
      if (STALE.equals(e.getSQLState())) {
        return null;
      }
      throw e;
    }
    out.sort(Row.order(!lifo));
    return out;
  }
}
