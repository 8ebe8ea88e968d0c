package io.switchboard.storage.postgres;

import io.switchboard.queue.QueueException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Queue rows by name, read once and then trusted by the one-statement operations ({@link Claim},
 * the plain send and ack), which check in passing that the row's id and revision are still the
 * database's and report when they are not; the caller then drops the entry and takes the ordinary
 * path, which reads the queue afresh. So a queue deleted, recreated or reconfigured on another
 * server is never acted on with its old row, and no invalidation message is needed.
 */
final class QueueCache {

  private final Sql sql;
  private final Map<String, Op.Q> byName = new ConcurrentHashMap<>();

  QueueCache(Sql sql) {
    this.sql = sql;
  }

  /** The queue's row, from memory or the database; refuses a queue that does not exist. */
  Op.Q get(@Nullable String name) {
    if (name == null) {
      throw QueueException.queueNotFound(null);
    }
    Op.Q q = byName.get(name);
    if (q != null) {
      return q;
    }
    q = sql.statementOrNull("reading queue", name, c -> Op.findQueue(c, name));
    if (q == null) {
      throw QueueException.queueNotFound(name);
    }
    byName.put(name, q);
    return q;
  }

  /** Remembers a row just read in a transaction (so the next operation need not read it). */
  void put(Op.Q q) {
    byName.put(q.name(), q);
  }

  void forget(String name) {
    byName.remove(name);
  }
}
