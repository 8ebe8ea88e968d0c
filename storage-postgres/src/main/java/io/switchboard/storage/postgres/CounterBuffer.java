package io.switchboard.storage.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counter changes of this server's one-statement operations (plain send, claim, ack), kept in
 * memory and written to {@code sb_counter} by housekeeping, one statement for all queues every 200
 * ms and on close, instead of one counter row update in every operation. Stats on this server add
 * what is still here, so they are exact here; another server's stats see these changes once they
 * are written, at most a housekeeping interval later. If a server dies, what it had not written yet
 * is lost from the counters (never from the messages: counters are statistics).
 *
 * <p>Writing and reading for stats take the same lock, so a change is never seen twice or missed
 * while it moves from memory to the table.
 */
final class CounterBuffer {

  private static final int COUNTERS = Counters.COUNT;

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
   * Writes every queue's changes in one statement (skipping queues deleted meanwhile). On a
   * database error what was taken out goes back, for the next round.
   */
  void flush(Sql sql) {
    synchronized (moving) {
      List<Long> qids = new ArrayList<>();
      List<long[]> taken = new ArrayList<>();
      for (Map.Entry<Long, AtomicLongArray> e : byQueue.entrySet()) {
        long[] t = new long[COUNTERS];
        boolean any = false;
        for (int i = 0; i < COUNTERS; i++) {
          t[i] = e.getValue().getAndSet(i, 0);
          any |= t[i] != 0;
        }
        // an entry found empty stays: removing it could lose an add racing with the removal
        if (any) {
          qids.add(e.getKey());
          taken.add(t);
        }
      }
      if (qids.isEmpty()) {
        return;
      }
      try {
        sql.statement("writing counters of", qids.size() + " queues", c -> write(c, qids, taken));
      } catch (RuntimeException failed) {
        for (int q = 0; q < qids.size(); q++) {
          // an entry is never removed from byQueue, and qids were read from it
          AtomicLongArray back = Objects.requireNonNull(byQueue.get(qids.get(q)), "counters");
          for (int i = 0; i < COUNTERS; i++) {
            back.addAndGet(i, taken.get(q)[i]);
          }
        }
        throw failed;
      }
    }
  }

  private static int write(Connection c, List<Long> qids, List<long[]> taken) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(Counters.WRITE_MANY)) {
      ps.setArray(1, c.createArrayOf("bigint", qids.toArray()));
      for (int i = 0; i < COUNTERS; i++) {
        Long[] column = new Long[qids.size()];
        for (int q = 0; q < column.length; q++) {
          column[q] = taken.get(q)[i];
        }
        ps.setArray(i + 2, c.createArrayOf("bigint", column));
      }
      return ps.executeUpdate();
    }
  }
}
