package io.switchboard.storage.postgres;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import java.util.List;

/**
 * One server's periodic work (every 200 ms on the system clock, on every advance of a manual one):
 * writes the counter changes held in memory ({@link CounterBuffer}), measures the queues this
 * server used for the per-queue limits ({@link QueueUse}), fires the timers of queues no operation
 * has touched, deletes dedup entries and history past their window, moves redrives on, and wakes
 * this server's long polls so they look again. Every step is a bounded transaction — at most {@link
 * #CLEANUP_BATCH} rows deleted or {@link Timers#BATCH} timers fired in each — repeated while a step
 * finds a full batch, up to {@link #MAX_ROUNDS} times per tick, so a backlog is worked off without
 * ever holding one long transaction (which would keep autovacuum from removing dead rows everywhere
 * in the database).
 */
final class Housekeeping {

  /** Rows deleted per cleanup transaction. */
  static final int CLEANUP_BATCH = 1000;

  /** Transactions per step and tick at most; the next tick goes on where this one stopped. */
  static final int MAX_ROUNDS = 100;

  private final PostgresQueueEngine engine;

  Housekeeping(PostgresQueueEngine engine) {
    this.engine = engine;
  }

  void tick() {
    try {
      engine.counters().flush(engine.sql());
    } catch (RuntimeException e) {
      // kept in memory; the next tick writes them (the steps below meet the same database)
    }
    long now = engine.clock().millis();
    engine.use().measure(engine.sql(), now);
    for (String table : List.of("sb_dedup", "sb_history")) {
      for (int round = 0; round < MAX_ROUNDS; round++) {
        if (deletePast(table, now, CLEANUP_BATCH) < CLEANUP_BATCH) {
          break;
        }
      }
    }
    List<String> due = engine.sql().tx("finding due timers", c -> Timers.dueQueues(c, now));
    for (String name : due) {
      fireAll(name);
    }
    engine.redrives().progress();
    engine.wakeups().wakeLocal();
  }

  /**
   * Deletes at most {@code limit} rows of {@code table} ({@code sb_dedup} or {@code sb_history})
   * whose window ended by {@code now}, in one transaction; returns how many.
   */
  int deletePast(String table, long now, int limit) {
    return engine
        .sql()
        .tx(
            "cleaning up " + table,
            c ->
                Sql.update(
                    c,
                    "delete from "
                        + table
                        + " where ctid in (select ctid from "
                        + table
                        + " where until <= ? limit ?)",
                    now,
                    limit));
  }

  private void fireAll(String queue) {
    try {
      for (int round = 0; round < MAX_ROUNDS; round++) {
        if (!engine.run(queue, "firing timers", op -> Timers.fire(op, Timers.BATCH))) {
          return;
        }
      }
    } catch (QueueException e) {
      if (e.code() != ErrorCode.QUEUE_NOT_FOUND) {
        throw e;
      }
      // deleted meanwhile
    }
  }
}
