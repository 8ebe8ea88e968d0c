package io.switchboard.storage.postgres;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueLimits;
import io.switchboard.queue.SendResult;
import io.switchboard.queue.spi.CheckedMessage;
import io.switchboard.queue.spi.MessageIds;
import io.switchboard.queue.spi.MessageRules;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Sends: the whole batch checked first, then in one transaction the deduplication window claimed
 * key by key (an insert that wins only when no live entry exists, so two servers sending the same
 * id concurrently enqueue it once), room made under the queue's depth limit, and the rows inserted.
 * A refused batch rolls back whole, dedup claims included. Every send first reserves its room under
 * {@code max-queue-bytes} and {@code default-max-depth} ({@link QueueUse}), given back if it fails.
 *
 * <p>The common case, a standard queue without a depth limit and a batch without deduplication ids,
 * is one autocommit statement instead: the rows inserted from arrays, the sends counted, and the
 * cached queue row checked in passing (see {@link QueueCache}). A statement is atomic, so the batch
 * still goes in whole or not at all.
 */
final class Sender {

  private Sender() {}

  static List<SendResult> send(
      PostgresQueueEngine engine, String queue, List<NewMessage> messages, int firstIndex) {
    Op.Q cached = engine.cache().get(queue);
    if (!cached.grouped() && messages.stream().anyMatch(m -> m.groupId().isPresent())) {
      engine.markFair(queue); // before the send: a receive after it must be fair
    }
    List<CheckedMessage> checked = plain(cached, messages, firstIndex);
    if (checked != null) {
      QueueUse.Reservation room =
          engine
              .use()
              .reserveSend(cached, checked.size(), bytes(checked, null), engine.clock().millis());
      List<SendResult> sent;
      try {
        sent =
            engine
                .sql()
                .statementOrNull(
                    "sending to",
                    queue,
                    c -> insertPlain(c, cached, checked, engine.clock().millis(), engine.ids()));
      } catch (RuntimeException e) {
        room.release();
        throw e;
      }
      if (sent != null) {
        engine.counters().add(cached.id(), Counters.SENT, sent.size());
        engine.changed(queue);
        return sent;
      }
      room.release();
      engine.cache().forget(queue); // reconfigured or gone: check again against the current row
    }
    QueueUse.Reservation[] room = {QueueUse.Reservation.NONE};
    List<SendResult> results;
    try {
      results =
          engine.run(
              queue,
              "sending to '" + queue + "'",
              op -> {
                room[0].release(); // an earlier attempt's
                return insert(op, check(op.q, messages, firstIndex), engine.use(), room);
              });
    } catch (RuntimeException e) {
      room[0].release();
      throw e;
    }
    if (results.stream().anyMatch(r -> !r.duplicate())) {
      engine.changed(queue);
    }
    return results;
  }

  private static List<CheckedMessage> check(Op.Q q, List<NewMessage> messages, int firstIndex) {
    List<CheckedMessage> batch = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      batch.add(
          MessageRules.check(
              messages.get(i), firstIndex < 0 ? -1 : i, q.name(), q.grouped(), q.config()));
    }
    return batch;
  }

  /**
   * The batch checked against the cached queue row when it can go in as one plain insert (a
   * standard queue without a depth limit, no deduplication id in the batch); null otherwise. A
   * batch this refuses is refused again, with the same message, by the ordinary path.
   */
  private static @Nullable List<CheckedMessage> plain(
      Op.Q q, List<NewMessage> messages, int firstIndex) {
    if (q.grouped() || q.config().maxDepth().isPresent()) {
      return null;
    }
    List<CheckedMessage> batch;
    try {
      batch = check(q, messages, firstIndex);
    } catch (QueueException e) {
      return null; // perhaps the cached configuration is old: let the ordinary path decide
    }
    for (CheckedMessage p : batch) {
      if (p.dedupKey() != null) {
        return null;
      }
    }
    return batch;
  }

  private static final String INSERT_PLAIN =
      "with g as (select id from sb_queue where id = ? and revision = ?),"
          + " v as (select nextval('sb_seq') s, u.* from unnest(?::int[], ?::bigint[],"
          + " ?::bigint[], ?::text[], ?::bytea[], ?::bytea[], ?::text[]) with ordinality"
          + " u(priority, visible_at, expires_at, group_id, body, attrs, idx, ord)"
          + " order by ord),"
          + " ins as (insert into sb_message (serial, qid, seq, priority, visible_at,"
          + " expires_at, sent_at, group_id, body, attrs, arrival, idx, lifo) select v.s, g.id,"
          + " v.s, v.priority, v.visible_at, v.expires_at, ?, v.group_id, v.body, v.attrs, v.s,"
          + " v.idx::text[], ? from g, v returning serial)"
          + " select (select count(*) from g), array(select serial from ins order by serial)";

  /**
   * Inserts a plain batch in one autocommit statement, checking that {@code q} is still current;
   * null when {@code q} is not current (nothing was inserted). Serials are taken from the sequence
   * in batch order, so the batch keeps its order.
   */
  private static @Nullable List<SendResult> insertPlain(
      Connection c, Op.Q q, List<CheckedMessage> batch, long now, MessageIds ids)
      throws SQLException {
    int n = batch.size();
    int[] priority = new int[n];
    long[] visibleAt = new long[n];
    long[] expiresAt = new long[n];
    String[] groupId = new String[n];
    byte[][] body = new byte[n][];
    byte[][] attrs = new byte[n][];
    @Nullable String[] idx = new String[n];
    for (int i = 0; i < n; i++) {
      CheckedMessage p = batch.get(i);
      priority[i] = p.source().priority();
      visibleAt[i] = p.delayMillis() > 0 ? now + p.delayMillis() : 0;
      expiresAt[i] = now + p.ttlMillis();
      groupId[i] = p.source().groupId().orElse(null);
      body[i] = p.body();
      attrs[i] = Codecs.encodeAttributes(p.attributes());
      idx[i] = arrayLiteral(Pushdown.tokens(p.attributes(), q.config().indexedAttributes()));
    }
    try (PreparedStatement ps = c.prepareStatement(INSERT_PLAIN)) {
      ps.setLong(1, q.id());
      ps.setLong(2, q.revision());
      // Java arrays, bound in binary by the driver: createArrayOf looked up the type by name and
      // wrote a text form of every array on each call (a sixth of a send's CPU in the engine, JFR)
      ps.setObject(3, priority);
      ps.setObject(4, visibleAt);
      ps.setObject(5, expiresAt);
      ps.setObject(6, groupId);
      ps.setObject(7, body);
      ps.setObject(8, attrs);
      ps.setObject(9, idx);
      ps.setLong(10, now);
      ps.setBoolean(11, !q.fifo());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getInt(1) == 0) {
          return null;
        }
        Long[] serials = (Long[]) rs.getArray(2).getArray();
        List<SendResult> out = new ArrayList<>(n);
        for (long serial : serials) {
          out.add(new SendResult(ids.id(serial), serial, false));
        }
        return out;
      }
    }
  }

  /** Tokens as a PostgreSQL array literal ({@code {"a=1","b[x"}}), or null for none. */
  static @Nullable String arrayLiteral(String @Nullable [] tokens) {
    if (tokens == null) {
      return null;
    }
    StringBuilder b = new StringBuilder("{");
    for (int i = 0; i < tokens.length; i++) {
      b.append(i == 0 ? "\"" : ",\"")
          .append(tokens[i].replace("\\", "\\\\").replace("\"", "\\\""))
          .append('"');
    }
    return b.append('}').toString();
  }

  /**
   * Queued bytes of the messages of {@code batch} at {@code indexes} (all when null), as {@link
   * QueueLimits#charge} counts them.
   */
  private static long bytes(List<CheckedMessage> batch, @Nullable List<Integer> indexes) {
    long bytes = 0;
    for (int n = 0; n < (indexes == null ? batch.size() : indexes.size()); n++) {
      CheckedMessage p = batch.get(indexes == null ? n : indexes.get(n));
      bytes +=
          QueueLimits.charge(
              p.body().length + MessageRules.attributeBytes(p.attributes(), "message"));
    }
    return bytes;
  }

  /**
   * Inserts a checked batch in {@code op}'s transaction; {@code room} receives the room reserved
   * for the messages that are not duplicates, for the caller to give back if the transaction fails.
   */
  private static List<SendResult> insert(
      Op op, List<CheckedMessage> batch, QueueUse use, QueueUse.Reservation[] room)
      throws SQLException {
    long[] serials = serials(op, batch.size());
    Map<String, SendResult> seen = new HashMap<>();
    List<SendResult> results = new ArrayList<>(batch.size());
    List<Integer> freshIndex = new ArrayList<>();
    int dups = 0;
    for (int i = 0; i < batch.size(); i++) {
      CheckedMessage p = batch.get(i);
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
    room[0] = use.reserveSend(op.q, freshIndex.size(), bytes(batch, freshIndex), op.now);
    makeRoom(op, freshIndex.size());
    try (PreparedStatement ps =
        op.c.prepareStatement(
            "insert into sb_message (serial, qid, seq, priority, visible_at, expires_at, sent_at,"
                + " group_id, dedup_id, body, attrs, arrival, idx, lifo) values (?, ?, ?, ?, ?, ?,"
                + " ?, ?, ?, ?, ?, ?, ?, ?)")) {
      for (int i : freshIndex) {
        CheckedMessage p = batch.get(i);
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
        ps.setBoolean(14, !op.q.fifo());
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
  private static @Nullable SendResult claim(Op op, String key, long serial) throws SQLException {
    long until = op.now + MessageRules.DEDUP_WINDOW_MILLIS;
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
