package io.switchboard.storage.postgres;

import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueCreation;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueOverview;
import io.switchboard.queue.QueueTally;
import io.switchboard.queue.spi.QueueRules;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Creating, reconfiguring, listing and deleting queues. Creation serializes on an advisory lock, so
 * the queue limit holds across servers; the rules and messages are the core engine's. The number of
 * queues is one row, {@code sb_queue_count}, raised by a creation and lowered by a deletion in the
 * same transaction as the queue's row: the limit is exact, and a creation costs the same however
 * many queues there are (docs/decisions.md, "2026-12-02-postgres-counts-its-queues").
 */
final class QueueOps {

  private final PostgresQueueEngine engine;
  private final int maxQueues;

  QueueOps(PostgresQueueEngine engine, int maxQueues) {
    this.engine = engine;
    this.maxQueues = maxQueues;
  }

  QueueCreation ensureQueue(String name, QueueConfig config) {
    QueueRules.checkName(name, "name");
    Objects.requireNonNull(config, "config");
    return engine
        .sql()
        .tx(
            "creating queue '" + name + "'",
            c -> {
              Sql.execute(c, "select pg_advisory_xact_lock(?, ?)", 0x5342, 0);
              checkConfig(c, name, config);
              Op.Q existing = Op.findQueue(c, name);
              if (existing != null) {
                if (existing.config().equals(config)) {
                  return new QueueCreation(existing.info(), false);
                }
                throw QueueRules.alreadyExists(name);
              }
              if (Sql.update(
                      c, "update sb_queue_count set n = n + 1 where id = 1 and n < ?", maxQueues)
                  == 0) {
                throw QueueRules.tooManyQueues(maxQueues);
              }
              Sql.update(
                  c,
                  "insert into sb_queue (name, grouped, config, created_at, receipt_key)"
                      + " values (?, ?, ?, ?, ?)",
                  name,
                  QueueRules.isGrouped(name),
                  Codecs.encodeConfig(config),
                  engine.clock().millis(),
                  java.util.concurrent.ThreadLocalRandom.current().nextLong());
              return new QueueCreation(Op.requireQueue(c, name).info(), true);
            });
  }

  private static void checkConfig(Connection c, String name, QueueConfig config)
      throws SQLException {
    QueueRules.checkConfig(
        name, config, t -> Optional.ofNullable(Op.findQueue(c, t)).map(Op.Q::info));
  }

  /**
   * Reads the queue's row {@code for update}, so an update on any server sharing the database waits
   * for this one to commit and then starts from what it wrote: no update is lost.
   */
  QueueInfo updateQueue(String name, UnaryOperator<QueueConfig> change) {
    Objects.requireNonNull(change, "change");
    QueueInfo info =
        engine
            .sql()
            .tx(
                "updating queue '" + name + "'",
                c -> {
                  Op.Q q = lockQueue(c, name);
                  QueueConfig config =
                      Objects.requireNonNull(change.apply(q.config()), "the changed configuration");
                  if (config.equals(q.config())) {
                    return q.info();
                  }
                  checkConfig(c, name, config);
                  Sql.update(
                      c,
                      "update sb_queue set config = ?, revision = revision + 1 where id = ?",
                      Codecs.encodeConfig(config),
                      q.id());
                  if (!q.config().indexedAttributes().equals(config.indexedAttributes())) {
                    reindex(c, q, config);
                  }
                  if (q.fifo() != q.with(config).fifo()) {
                    // the LIFO claim walks sb_message_lifo, which holds the rows flagged lifo
                    Sql.update(
                        c,
                        "update sb_message set lifo = ? where qid = ?",
                        !q.with(config).fifo(),
                        q.id());
                  }
                  return new QueueInfo(name, q.grouped(), config, q.createdAt());
                });
    engine.cache().forget(name);
    engine.wakeups().wakeLocal();
    return info;
  }

  private static Op.Q lockQueue(Connection c, String name) throws SQLException {
    try (PreparedStatement ps =
        Sql.prepare(
            c, "select " + Op.QUEUE_COLS + " from sb_queue where name = ? for update", name)) {
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          return Op.readQueue(rs);
        }
      }
    }
    throw QueueException.queueNotFound(name);
  }

  /** Recomputes every message's index tokens after the queue's indexed attributes changed. */
  private void reindex(Connection c, Op.Q q, QueueConfig config) throws SQLException {
    Op.Q next = q.with(config);
    Op op = new Op(c, engine.clock().millis(), q, engine.ids(), engine.receiptKeys());
    List<Row> rows = op.rows("true");
    for (Row r : rows) {
      Sql.update(c, "update sb_message set idx = ? where serial = ?", op.tokens(r, next), r.serial);
    }
  }

  void deleteQueue(String name) {
    engine
        .sql()
        .act(
            "deleting queue '" + name + "'",
            c -> {
              Op.Q q = Op.requireQueue(c, name);
              for (String table :
                  List.of("sb_message", "sb_lease", "sb_dedup", "sb_history", "sb_counter")) {
                Sql.update(c, "delete from " + table + " where qid = ?", q.id());
              }
              if (Sql.update(c, "delete from sb_queue where id = ?", q.id()) == 1) {
                // not when another deletion of the queue committed first: counted once
                Sql.update(c, "update sb_queue_count set n = n - 1 where id = 1");
              }
              Sql.update(
                  c,
                  "update sb_redrive set status = 'FAILED', failure = ? where source = ? and status"
                      + " = 'RUNNING'",
                  "source queue '" + name + "' was deleted",
                  name);
            });
    engine.cache().forget(name);
    engine.changed(name);
  }

  QueueInfo queue(String name) {
    return engine.sql().tx("reading queue '" + name + "'", c -> Op.requireQueue(c, name).info());
  }

  List<QueueInfo> listQueues(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    return page(prefix, "", Long.MAX_VALUE);
  }

  /**
   * One page of names, as one query that walks {@code sb_queue_name_c} (the names in byte order,
   * which is Java's order for queue names) from the later of {@code after} and {@code prefix} and
   * stops at the end of the prefix's range or after {@code limit} rows: a page reads its own rows,
   * however many queues there are.
   */
  List<QueueInfo> page(String prefix, String after, long limit) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(after, "after");
    if (limit < 1) {
      throw QueueException.invalid("limit must be 1 or more, got " + limit);
    }
    if (prefix.indexOf('\0') >= 0) {
      return List.of(); // no queue name holds a NUL (nor can a PostgreSQL text)
    }
    // a name never holds a NUL: each sorts after "x\0..." exactly when it sorts after "x"
    int nul = after.indexOf('\0');
    String from = nul < 0 ? after : after.substring(0, nul);
    String upTo = successor(prefix);
    String query =
        "select "
            + Op.QUEUE_COLS
            + " from sb_queue where name collate \"C\" > ? and name collate \"C\" >= ?"
            + (upTo == null ? "" : " and name collate \"C\" < ?")
            + " and starts_with(name, ?) order by name collate \"C\""
            + (limit == Long.MAX_VALUE ? "" : " limit " + limit);
    return engine
        .sql()
        .tx(
            "listing queues",
            c -> {
              List<QueueInfo> out = new ArrayList<>();
              try (PreparedStatement ps =
                  upTo == null
                      ? Sql.prepare(c, query, from, prefix, prefix)
                      : Sql.prepare(c, query, from, prefix, upTo, prefix)) {
                ps.setFetchSize(1000);
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    out.add(Op.readQueue(rs).info());
                  }
                }
              }
              return out;
            });
  }

  /**
   * The first string after every string starting with {@code prefix}, in byte order: the prefix
   * with its last character one higher; null when there is none to give (an empty prefix, or one
   * not all ASCII, which the query then bounds by {@code starts_with} alone).
   */
  static @Nullable String successor(String prefix) {
    if (prefix.isEmpty() || !prefix.chars().allMatch(ch -> ch < 0x7f)) {
      return null;
    }
    int last = prefix.length() - 1;
    return prefix.substring(0, last) + (char) (prefix.charAt(last) + 1);
  }

  /**
   * The queues at a glance in three queries, none of them one per queue: the counts of each queue
   * holding messages (one pass over the messages, grouped by queue, joined to those queues' rows
   * only), the number of queues, and when the deepest list has room, a few empty queues' names to
   * fill it. A queue's queued bytes are this server's figure ({@link QueueUse}). Timers that fell
   * due but did not fire yet count as in {@link Browse#stats} before its queue is next used.
   */
  QueueOverview overview(int top, QueueUse use) {
    QueueTally tally = new QueueTally(top);
    long now = engine.clock().millis();
    return engine
        .sql()
        .tx(
            "reading the queues' overview",
            c -> {
              int holding = 0;
              Set<String> named = new HashSet<>();
              try (PreparedStatement ps =
                  Sql.prepare(
                      c,
                      "select q.name, q.grouped, q.config, q.id, m.available, m.delayed,"
                          + " m.in_flight, m.oldest from (select qid, count(*) filter (where"
                          + " visible_at <= ?) as available, count(*) filter (where visible_at > ?"
                          + " and not leased) as delayed, count(*) filter (where visible_at > ? and"
                          + " leased) as in_flight, min(sent_at) as oldest from sb_message group by"
                          + " qid) m join sb_queue q on q.id = m.qid",
                      now,
                      now,
                      now)) {
                ps.setFetchSize(1000);
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    String name = rs.getString(1);
                    holding++;
                    if (named.size() < top) {
                      named.add(name);
                    }
                    tally.add(
                        name,
                        rs.getBoolean(2),
                        Codecs.decodeConfig(rs.getString(3)).maxDepth().isEmpty(),
                        rs.getLong(5),
                        rs.getLong(6),
                        rs.getLong(7),
                        use.bytes(rs.getLong(4)),
                        rs.getLong(8));
                  }
                }
              }
              int all = (int) Sql.queryLong(c, "select count(*) from sb_queue");
              int empty = 0;
              int room = tally.roomForDeepest();
              if (room > 0) {
                // the deepest list shows every queue while there are fewer than it holds: a few
                // empty queues fill it, in no particular order
                try (PreparedStatement ps =
                    Sql.prepare(c, "select name from sb_queue limit ?", room + named.size())) {
                  try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next() && empty < room) {
                      String name = rs.getString(1);
                      if (!named.contains(name)) {
                        tally.add(name, QueueRules.isGrouped(name), false, 0, 0, 0, 0, -1);
                        empty++;
                      }
                    }
                  }
                }
              }
              tally.addEmpty(Math.max(0, all - holding - empty));
              return tally.overview();
            });
  }
}
