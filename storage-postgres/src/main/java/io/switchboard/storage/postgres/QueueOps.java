package io.switchboard.storage.postgres;

import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueCreation;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.spi.QueueRules;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Creating, reconfiguring, listing and deleting queues. Creation serializes on an advisory lock, so
 * the queue limit holds across servers; the rules and messages are the core engine's.
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
              if (Sql.queryLong(c, "select count(*) from sb_queue") >= maxQueues) {
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
              Sql.update(c, "delete from sb_queue where id = ?", q.id());
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
    List<QueueInfo> out =
        engine
            .sql()
            .tx(
                "listing queues",
                c -> {
                  List<QueueInfo> all = new ArrayList<>();
                  try (PreparedStatement ps =
                          c.prepareStatement("select " + Op.QUEUE_COLS + " from sb_queue");
                      ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                      Op.Q q = Op.readQueue(rs);
                      if (q.name().startsWith(prefix)) {
                        all.add(q.info());
                      }
                    }
                  }
                  return all;
                });
    out.sort(Comparator.comparing(QueueInfo::name));
    return out;
  }
}
