package io.switchboard.storage.postgres;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueLimits;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What each queue holds — messages, queued bytes, messages in flight — as this server last measured
 * it, for the per-queue limits ({@link QueueLimits}: {@code default-max-depth}, {@code
 * max-queue-bytes}, {@code max-in-flight}). No send or receive counts a queue: each checks the
 * queue's last measure plus what this server has added since (its own sends and receives), and
 * housekeeping measures again every queue this server used since its last measure (one indexed
 * aggregate per queue). So a limit holds exactly for one server on its own, except that what
 * consumers take out (acks, expiries, lapsed leases) counts only from the next measure (the limit
 * is conservative meanwhile); with several servers a queue can pass a limit by what the others send
 * or receive between two measures. A queue whose measure takes longer is measured less often
 * ({@link #SPACING} times its last measure's duration apart), so measuring a deep queue never takes
 * more than about a tenth of housekeeping's time. See docs/decisions.md (2026-11-25).
 *
 * <p>A queue with its own {@code maxDepth} keeps the exact count under a lock that {@link Sender}
 * needs to shed the oldest; only the server's {@code default-max-depth} is checked here.
 */
final class QueueUse {

  /** A queue's measure is at least this many times its last duration apart. */
  static final int SPACING = 10;

  /** An entry not used for this long is dropped (the queue may be gone). */
  static final long IDLE_MILLIS = 10 * 60_000;

  private static final String MEASURE =
      "select count(*), coalesce(sum(octet_length(body) + coalesce(octet_length(attrs), 0)), 0),"
          + " count(*) filter (where leased and visible_at > ?) from sb_message where qid = ?";

  private final QueueLimits limits;
  private final boolean enforced;
  private final Map<Long, Use> byQueue = new ConcurrentHashMap<>();

  QueueUse(QueueLimits limits) {
    this.limits = limits;
    this.enforced =
        limits.maxQueueBytes() < Long.MAX_VALUE
            || limits.defaultMaxDepth() < QueueConfig.MAX_DEPTH_LIMIT
            || limits.maxInFlight() < Integer.MAX_VALUE
            || limits.maxInFlightGrouped() < Integer.MAX_VALUE;
  }

  /** One queue's measure and what this server added since. */
  private static final class Use {
    long depth;
    long bytes;
    long inFlight;
    long addedDepth;
    long addedBytes;
    long addedInFlight;
    long nextMeasure;
    long lastUsed;
    boolean used = true;

    synchronized long depth() {
      return depth + addedDepth;
    }

    synchronized long bytes() {
      return bytes + addedBytes;
    }

    synchronized long inFlight() {
      return inFlight + addedInFlight;
    }
  }

  private Use use(long qid, long now) {
    Use u = byQueue.computeIfAbsent(qid, k -> new Use());
    synchronized (u) {
      u.used = true;
      u.lastUsed = now;
    }
    return u;
  }

  /**
   * Refuses a send of {@code fresh} messages weighing {@code bytes} (as {@link QueueLimits#charge}
   * counts them) that would take queue {@code q} over {@code max-queue-bytes} or, when the queue
   * sets no {@code maxDepth} of its own, {@code default-max-depth}; the same codes and texts as the
   * in-memory engine.
   */
  void checkSend(Op.Q q, int fresh, long bytes, long now) {
    if (!enforced || fresh == 0) {
      return;
    }
    Use u = use(q.id(), now);
    long queued = u.bytes();
    if (bytes > 0 && queued + bytes > limits.maxQueueBytes()) {
      throw limits.queueBytesFull(q.name(), queued, bytes);
    }
    if (q.config().maxDepth().isEmpty()) {
      long max = limits.defaultMaxDepth();
      long depth = u.depth();
      if (depth + fresh > max) {
        throw new QueueException(
            ErrorCode.QUEUE_FULL,
            "queue '"
                + q.name()
                + "' is full: maxDepth is "
                + max
                + " (the server's default-max-depth), it holds "
                + depth
                + ", and the send adds "
                + fresh);
      }
    }
  }

  /** Counts a committed send until the next measure. */
  void sent(long qid, int fresh, long bytes) {
    if (!enforced || fresh == 0) {
      return;
    }
    Use u = byQueue.computeIfAbsent(qid, k -> new Use());
    synchronized (u) {
      u.addedDepth += fresh;
      u.addedBytes += bytes;
      u.used = true;
    }
  }

  /**
   * How many more messages may go in flight in queue {@code q}; with {@code refuse}, a queue at its
   * limit is refused with {@code OVER_LIMIT} (a receive), else it just gets 0 (a waiter's turn).
   */
  int inFlightRoom(Op.Q q, boolean refuse, long now) {
    if (!enforced) {
      return Integer.MAX_VALUE;
    }
    long inFlight = use(q.id(), now).inFlight();
    long room = limits.maxInFlight(q.grouped()) - inFlight;
    if (room <= 0 && refuse) {
      throw limits.overLimit(q.name(), q.grouped(), inFlight);
    }
    return (int) Math.max(0, Math.min(Integer.MAX_VALUE, room));
  }

  /** Counts committed receives until the next measure. */
  void received(long qid, int n) {
    if (!enforced || n == 0) {
      return;
    }
    Use u = byQueue.computeIfAbsent(qid, k -> new Use());
    synchronized (u) {
      u.addedInFlight += n;
      u.used = true;
    }
  }

  /** Queued bytes of a queue as last measured plus this server's sends since. */
  long bytes(long qid) {
    Use u = byQueue.get(qid);
    return u == null ? 0 : u.bytes();
  }

  /**
   * Housekeeping's part: measures each queue used since its last measure whose spacing has passed,
   * and drops entries idle for {@link #IDLE_MILLIS}.
   */
  void measure(Sql sql, long now) {
    if (!enforced) {
      return;
    }
    for (Map.Entry<Long, Use> e : byQueue.entrySet()) {
      Use u = e.getValue();
      long depthBefore;
      long bytesBefore;
      long inFlightBefore;
      synchronized (u) {
        if (!u.used) {
          if (now - u.lastUsed > IDLE_MILLIS) {
            byQueue.remove(e.getKey(), u);
          }
          continue;
        }
        if (now < u.nextMeasure) {
          continue;
        }
        u.used = false;
        depthBefore = u.addedDepth;
        bytesBefore = u.addedBytes;
        inFlightBefore = u.addedInFlight;
      }
      long started = System.nanoTime();
      long[] m =
          sql.statement("measuring", "queue " + e.getKey(), c -> measure(c, e.getKey(), now));
      long tookMillis = (System.nanoTime() - started) / 1_000_000;
      synchronized (u) {
        // what was added while the measure ran may be in it too: counted twice until the next one
        u.depth = m[0];
        u.bytes = m[1] + m[0] * QueueLimits.MESSAGE_OVERHEAD;
        u.inFlight = m[2];
        u.addedDepth -= depthBefore;
        u.addedBytes -= bytesBefore;
        u.addedInFlight -= inFlightBefore;
        u.nextMeasure = now + SPACING * tookMillis;
      }
    }
  }

  private static long[] measure(java.sql.Connection c, long qid, long now)
      throws java.sql.SQLException {
    try (PreparedStatement ps = Sql.prepare(c, MEASURE, now, qid);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
    }
  }
}
