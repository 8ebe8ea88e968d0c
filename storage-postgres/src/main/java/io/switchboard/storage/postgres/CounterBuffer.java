package io.switchboard.storage.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counter changes of this server's one-statement operations (plain send, claim, ack), kept in
 * memory and written to {@code sb_counter} by housekeeping, one statement per queue every 200 ms
 * and on close, instead of one counter row update in every operation. Stats on this server add what
 * is still here, so they are exact here; another server's stats see these changes once they are
 * written, at most a housekeeping interval later. If a server dies, what it had not written yet is
 * lost from the counters (never from the messages: counters are statistics).
 *
 * <p>Writing and reading for stats take the same lock, so a change is never seen twice or missed
 * while it moves from memory to the table.
 */
final class CounterBuffer {

  private static final int COUNTERS = 10;

  private final Map<Long, AtomicLongArray> byQueue = new ConcurrentHashMap<>();
  private final Object moving = new Object();

  void add(long qid, int counter, long n) {
    if (n != 0) {
      byQueue.computeIfAbsent(qid, k -> new AtomicLongArray(COUNTERS)).addAndGet(counter, n);
    }
  }

  /** Work given the changes still in memory for a queue, one per counter. */
  @FunctionalInterface
  interface WithPending<T> {
    T run(long[] pending) throws SQLException;
  }

  /** Runs {@code work} (which reads the table) with the queue's changes still in memory. */
  <T> T withPending(long qid, WithPending<T> work) throws SQLException {
    synchronized (moving) {
      long[] pending = new long[COUNTERS];
      AtomicLongArray here = byQueue.get(qid);
      for (int i = 0; here != null && i < COUNTERS; i++) {
        pending[i] = here.get(i);
      }
      return work.run(pending);
    }
  }

  /**
   * Writes every queue's changes, one upsert per queue (skipped for a queue deleted meanwhile). On
   * a database error what was taken out goes back, for the next round.
   */
  void flush(Sql sql) {
    synchronized (moving) {
      for (Map.Entry<Long, AtomicLongArray> e : byQueue.entrySet()) {
        long[] taken = new long[COUNTERS];
        boolean any = false;
        for (int i = 0; i < COUNTERS; i++) {
          taken[i] = e.getValue().getAndSet(i, 0);
          any |= taken[i] != 0;
        }
        if (!any) {
          continue; // the entry stays: removing it could lose an add racing with the removal
        }
        try {
          sql.statement(
              "writing the counters of queue id",
              e.getKey().toString(),
              c -> write(c, e.getKey(), taken));
        } catch (RuntimeException failed) {
          for (int i = 0; i < COUNTERS; i++) {
            e.getValue().addAndGet(i, taken[i]);
          }
          throw failed;
        }
      }
    }
  }

  private static int write(Connection c, long qid, long[] taken) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(Counters.WRITE_IF_QUEUE)) {
      ps.setLong(1, qid);
      for (int i = 0; i < COUNTERS; i++) {
        ps.setLong(i + 2, taken[i]);
      }
      ps.setLong(COUNTERS + 2, qid);
      return ps.executeUpdate();
    }
  }
}
