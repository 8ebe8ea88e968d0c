package io.switchboard.storage.postgres;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.queue.spi.DeadLetterRules;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Redrive tasks kept in {@code sb_redrive}, so any server can list, cancel or carry on a task: each
 * moves the messages that were in the dead-letter queue when it started, in delivery order, at most
 * {@code maxPerSecond} (one second's worth at the start, then the rate). A step locks the task's
 * row, so two servers never move the same chunk. Leased messages are skipped and stay.
 */
final class Redrives {

  private static final int CHUNK = 1000;
  private static final String COLS =
      "id, source, destination, max_per_second, status, moved, to_move, started_at, failure";

  private final PostgresQueueEngine engine;

  Redrives(PostgresQueueEngine engine) {
    this.engine = engine;
  }

  RedriveTask start(String source, RedriveRequest request) {
    String id = UUID.randomUUID().toString();
    engine.act(
        source,
        "starting a redrive of '" + source + "'",
        op -> {
          try (PreparedStatement ps =
              Sql.prepare(
                  op.c,
                  "select id from sb_redrive where source = ? and status = 'RUNNING' for update",
                  source)) {
            try (ResultSet rs = ps.executeQuery()) {
              if (rs.next()) {
                throw DeadLetterRules.alreadyRedriving(source, rs.getString(1));
              }
            }
          }
          if (request.destination().isPresent()) {
            String d = request.destination().get();
            DeadLetterRules.checkDestination(
                source, op.q.grouped(), Op.requireQueue(op.c, d).info());
          }
          List<Long> serials = new ArrayList<>();
          try (PreparedStatement ps =
              Sql.prepare(
                  op.c,
                  "select serial from sb_message where "
                      + op.q.ofQueue()
                      + " order by "
                      + op.q.orderBy(),
                  op.q.id())) {
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                serials.add(rs.getLong(1));
              }
            }
          }
          Array arr = op.c.createArrayOf("bigint", serials.toArray());
          Sql.update(
              op.c,
              "insert into sb_redrive (id, source, destination, max_per_second, status, moved,"
                  + " to_move, started_at, serials) values (?, ?, ?, ?, 'RUNNING', 0, ?, ?, ?)",
              id,
              source,
              request.destination().orElse(null),
              request.maxPerSecond().isPresent() ? request.maxPerSecond().getAsInt() : null,
              serials.size(),
              op.now,
              arr);
        });
    step(id);
    return Objects.requireNonNull(find(id), "the task this call just stored");
  }

  List<RedriveTask> list(String source) {
    return engine
        .sql()
        .tx(
            "listing redrives of '" + source + "'",
            c -> {
              Op.requireQueue(c, source);
              List<RedriveTask> out = new ArrayList<>();
              try (PreparedStatement ps =
                  Sql.prepare(
                      c,
                      "select " + COLS + " from sb_redrive where source = ? order by created desc",
                      source)) {
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    out.add(read(rs));
                  }
                }
              }
              return out;
            });
  }

  RedriveTask cancel(String taskId) {
    return engine
        .sql()
        .tx(
            "cancelling redrive '" + taskId + "'",
            c -> {
              Sql.update(
                  c,
                  "update sb_redrive set status = 'CANCELLED' where id = ? and status = 'RUNNING'",
                  taskId);
              RedriveTask t = find(c, taskId);
              if (t == null) {
                throw new QueueException(
                    ErrorCode.TASK_NOT_FOUND, "no redrive task '" + taskId + "'");
              }
              return t;
            });
  }

  private @Nullable RedriveTask find(String id) {
    return engine.sql().txOrNull("reading redrive '" + id + "'", c -> find(c, id));
  }

  private static @Nullable RedriveTask find(Connection c, String id) throws SQLException {
    try (PreparedStatement ps =
        Sql.prepare(c, "select " + COLS + " from sb_redrive where id = ?", id)) {
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? read(rs) : null;
      }
    }
  }

  private static RedriveTask read(ResultSet rs) throws SQLException {
    int rate = rs.getInt(4);
    boolean hasRate = !rs.wasNull();
    return new RedriveTask(
        rs.getString(1),
        rs.getString(2),
        Optional.ofNullable(rs.getString(3)),
        hasRate ? OptionalInt.of(rate) : OptionalInt.empty(),
        RedriveTask.Status.valueOf(rs.getString(5)),
        rs.getLong(6),
        rs.getLong(7),
        Instant.ofEpochMilli(rs.getLong(8)),
        Optional.ofNullable(rs.getString(9)));
  }

  /** Moves every running task on as far as its rate allows. */
  void progress() {
    List<String> running =
        engine
            .sql()
            .tx(
                "listing running redrives",
                c -> {
                  List<String> ids = new ArrayList<>();
                  try (PreparedStatement ps =
                          c.prepareStatement("select id from sb_redrive where status = 'RUNNING'");
                      ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                      ids.add(rs.getString(1));
                    }
                  }
                  return ids;
                });
    for (String id : running) {
      step(id);
    }
  }

  private void step(String id) {
    boolean again = true;
    while (again) {
      Op[] committed = new Op[1];
      again = engine.sql().tx("moving redrive '" + id + "' on", c -> stepChunk(c, id, committed));
      engine.told(committed[0]);
    }
  }

  /** Moves one chunk; true if another may follow now. */
  private boolean stepChunk(Connection c, String id, Op[] committed) throws SQLException {
    committed[0] = null;
    long now = engine.clock().millis();
    String source;
    String destination;
    Integer rate;
    long moved;
    long startedAt;
    Long[] serials;
    int next;
    String problem;
    try (PreparedStatement ps =
        Sql.prepare(
            c,
            "select source, destination, max_per_second, moved, started_at, serials, next, failure"
                + " from sb_redrive where id = ? and status = 'RUNNING' for update",
            id)) {
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return false;
        }
        source = rs.getString(1);
        destination = rs.getString(2);
        rate = (Integer) rs.getObject(3);
        moved = rs.getLong(4);
        startedAt = rs.getLong(5);
        serials = (Long[]) rs.getArray(6).getArray();
        next = rs.getInt(7);
        problem = rs.getString(8);
      }
    }
    if (next >= serials.length) {
      Sql.update(c, "update sb_redrive set status = 'COMPLETED' where id = ?", id);
      return false;
    }
    long budget = rate == null ? Long.MAX_VALUE : rate + (now - startedAt) * rate / 1000 - moved;
    if (budget <= 0) {
      return false;
    }
    Op.Q from = Op.findQueue(c, source);
    if (from == null) {
      Sql.update(
          c,
          "update sb_redrive set status = 'FAILED', failure = ? where id = ?",
          "source queue '" + source + "' was deleted",
          id);
      return false;
    }
    Op op = new Op(c, now, from, engine.ids(), engine.receiptKeys());
    committed[0] = op;
    int n = (int) Math.min(Math.min(budget, CHUNK), serials.length - next);
    for (int i = next; i < next + n; i++) {
      Row r = op.find(serials[i]);
      if (r == null || r.inFlight(now)) {
        continue;
      }
      String to = destination != null ? destination : r.dlSource;
      if (to == null) {
        problem = "some messages were not dead-lettered from another queue and stayed";
        continue;
      }
      Op.Q target = Op.findQueue(c, to);
      if (target == null) {
        problem = "queue '" + to + "' does not exist; its messages stayed";
        continue;
      }
      String refused = engine.moveCheck().refusal(id, source, to);
      if (refused != null) {
        // the task stops here: this message and every one after it stay where they are
        Sql.update(
            c,
            "update sb_redrive set status = 'FAILED', next = ?, moved = ?, failure = ? where id = ?",
            i,
            moved,
            refused,
            id);
        return false;
      }
      op.redriveTo(r, target);
      moved++;
    }
    Sql.update(
        c,
        "update sb_redrive set next = ?, moved = ?, failure = ? where id = ?",
        next + n,
        moved,
        problem,
        id);
    return true;
  }

  Message restore(String deadLetterQueue, String id) {
    return engine.run(
        deadLetterQueue,
        "restoring a message from '" + deadLetterQueue + "'",
        op -> {
          Row r = op.require(engine.serialOf(id), id);
          if (r.dlSource == null) {
            throw DeadLetterRules.notDeadLettered(id);
          }
          Op.Q source = Op.findQueue(op.c, r.dlSource);
          if (source == null) {
            throw QueueException.queueNotFound(r.dlSource);
          }
          if (r.inFlight(op.now)) {
            throw DeadLetterRules.leasedOnRestore(id);
          }
          op.redriveTo(r, source);
          Op there = new Op(op.c, op.now, source, engine.ids(), engine.receiptKeys());
          // the row this transaction holds locked and just moved there
          return op.view(Objects.requireNonNull(there.find(r.serial), "the restored row"), null);
        });
  }
}
