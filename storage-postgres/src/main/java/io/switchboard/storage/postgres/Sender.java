package io.switchboard.storage.postgres;

import io.switchboard.queue.EngineSupport;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.SendResult;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Sends: the whole batch checked first, then in one transaction the deduplication window claimed
 * key by key (an insert that wins only when no live entry exists, so two servers sending the same
 * id concurrently enqueue it once), room made under the queue's depth limit, and the rows inserted.
 * A refused batch rolls back whole, dedup claims included.
 */
final class Sender {

  private Sender() {}

  static List<SendResult> send(
      PostgresQueueEngine engine, String queue, List<NewMessage> messages, int firstIndex) {
    long[] qid = {0};
    int[] fresh = {0};
    List<SendResult> results =
        engine.run(
            queue,
            "sending to '" + queue + "'",
            op -> {
              List<EngineSupport.Checked> batch = new ArrayList<>(messages.size());
              for (int i = 0; i < messages.size(); i++) {
                batch.add(
                    EngineSupport.check(
                        messages.get(i),
                        firstIndex < 0 ? -1 : i,
                        queue,
                        op.q.grouped(),
                        op.q.config()));
              }
              qid[0] = op.q.id();
              List<SendResult> out = insert(op, batch);
              fresh[0] = (int) out.stream().filter(r -> !r.duplicate()).count();
              return out;
            });
    if (fresh[0] > 0) {
      engine.changed(queue);
    }
    return results;
  }

  private static List<SendResult> insert(Op op, List<EngineSupport.Checked> batch)
      throws SQLException {
    long[] serials = serials(op, batch.size());
    Map<String, SendResult> seen = new HashMap<>();
    List<SendResult> results = new ArrayList<>(batch.size());
    List<Integer> freshIndex = new ArrayList<>();
    int dups = 0;
    for (int i = 0; i < batch.size(); i++) {
      EngineSupport.Checked p = batch.get(i);
      // group and dedup ids are printable ASCII, so a tab separates them as NUL does in the core
      String key = p.dedupKey() == null ? null : p.dedupKey().replace('\u0000', '\t');
      SendResult dup = key == null ? null : seen.get(key);
      if (dup == null && key != null) {
        dup = claim(op, key, serials[i]);
      }
      if (dup != null) {
        dups++;
        results.add(new SendResult(dup.id(), dup.sequence(), true));
        continue;
      }
      SendResult r = new SendResult(op.idOf(serials[i]), serials[i], false);
      if (key != null) {
        seen.put(key, r);
      }
      results.add(r);
      freshIndex.add(i);
    }
    makeRoom(op, freshIndex.size());
    try (PreparedStatement ps =
        op.c.prepareStatement(
            "insert into sb_message (serial, qid, seq, priority, visible_at, expires_at, sent_at,"
                + " group_id, dedup_id, body, attrs, arrival, idx) values (?, ?, ?, ?, ?, ?, ?, ?, ?,"
                + " ?, ?, ?, ?)")) {
      for (int i : freshIndex) {
        EngineSupport.Checked p = batch.get(i);
        NewMessage m = p.source();
        ps.setLong(1, serials[i]);
        ps.setLong(2, op.q.id());
        ps.setLong(3, serials[i]);
        ps.setInt(4, m.priority());
        ps.setLong(5, p.delayMillis() > 0 ? op.now + p.delayMillis() : 0);
        ps.setLong(6, op.now + p.ttlMillis());
        ps.setLong(7, op.now);
        ps.setString(8, m.groupId().orElse(null));
        ps.setString(9, p.dedupId());
        ps.setBytes(10, p.body());
        byte[] attrs = Codecs.encodeAttributes(p.attributes());
        if (attrs == null) {
          ps.setNull(11, Types.BINARY);
        } else {
          ps.setBytes(11, attrs);
        }
        ps.setLong(12, serials[i]);
        String[] tokens = Pushdown.tokens(p.attributes(), op.q.config().indexedAttributes());
        ps.setArray(13, tokens == null ? null : op.c.createArrayOf("text", tokens));
        ps.addBatch();
      }
      if (!freshIndex.isEmpty()) {
        ps.executeBatch();
      }
    }
    op.counters.add(Counters.SENT, freshIndex.size());
    op.counters.add(Counters.DUPLICATES, dups);
    return results;
  }

  private static long[] serials(Op op, int n) throws SQLException {
    long[] out = new long[n];
    try (PreparedStatement ps =
        Sql.prepare(op.c, "select nextval('sb_seq') from generate_series(1, ?)", n)) {
      try (ResultSet rs = ps.executeQuery()) {
        for (int i = 0; rs.next(); i++) {
          out[i] = rs.getLong(1);
        }
      }
    }
    java.util.Arrays.sort(out);
    return out;
  }

  /**
   * Claims a deduplication key for {@code serial}; returns the original send when the key is live
   * in the window, null when the claim won.
   */
  private static SendResult claim(Op op, String key, long serial) throws SQLException {
    long until = op.now + EngineSupport.dedupWindowMillis();
    try (PreparedStatement ps =
        Sql.prepare(
            op.c,
            "insert into sb_dedup (qid, key, serial, seq, until) values (?, ?, ?, ?, ?)"
                + " on conflict (qid, key) do update set serial = excluded.serial,"
                + " seq = excluded.seq, until = excluded.until where sb_dedup.until <= ?"
                + " returning serial",
            op.q.id(),
            key,
            serial,
            serial,
            until,
            op.now)) {
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          return null;
        }
      }
    }
    try (PreparedStatement ps =
        Sql.prepare(
            op.c, "select serial, seq from sb_dedup where qid = ? and key = ?", op.q.id(), key)) {
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new SendResult(op.idOf(rs.getLong(1)), rs.getLong(2), true);
      }
    }
  }

  /** Enforces maxDepth: refuses, or sheds the oldest messages not in flight. */
  private static void makeRoom(Op op, int fresh) throws SQLException {
    if (op.q.config().maxDepth().isEmpty() || fresh == 0) {
      return;
    }
    Sql.execute(op.c, "select pg_advisory_xact_lock(?, ?)", 0x5344, (int) op.q.id());
    long max = op.q.config().maxDepth().getAsLong();
    long size = Sql.queryLong(op.c, "select count(*) from sb_message where qid = ?", op.q.id());
    long excess = size + fresh - max;
    if (excess <= 0) {
      return;
    }
    long droppable =
        Sql.queryLong(
            op.c,
            "select count(*) from sb_message where qid = ? and not (leased and visible_at > ?)",
            op.q.id(),
            op.now);
    if (op.q.config().overflow() == Overflow.REJECT || droppable < excess || fresh > max) {
      throw new QueueException(
          ErrorCode.QUEUE_FULL,
          "queue '"
              + op.q.name()
              + "' is full: maxDepth is "
              + max
              + ", it holds "
              + size
              + ", and the send adds "
              + fresh);
    }
    int shed =
        Sql.update(
            op.c,
            "delete from sb_message where serial in (select serial from sb_message where qid = ?"
                + " and not (leased and visible_at > ?) order by arrival limit ?)",
            op.q.id(),
            op.now,
            excess);
    op.counters.add(Counters.SHED, shed);
  }
}
