package io.switchboard.storage.postgres;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueLimits;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * What each queue holds — messages, queued bytes, messages in flight — as this server last measured
 * it, for the per-queue limits ({@link QueueLimits}: {@code default-max-depth}, {@code
 * max-queue-bytes}, {@code max-in-flight}). No send or receive counts a queue: each checks the
 * queue's last measure plus what this server has added since (its own sends and receives, each
 * reserved under the queue's entry before it runs and given back if it fails: {@link Reservation}),
 * and housekeeping measures again every queue this server used since its last measure (one indexed
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
   * What a send or receive has added to a queue's use before it commits: kept when it commits,
   * given back ({@link #release}) when it fails, so concurrent operations on one server never pass
   * a limit together.
   */
  static final class Reservation {
    static final Reservation NONE = new Reservation(null, 0, 0, 0);

    private final @Nullable Use u;
    private long depth;
    private long bytes;
    private int inFlight;

    private Reservation(@Nullable Use u, long depth, long bytes, int inFlight) {
      this.u = u;
      this.depth = depth;
      this.bytes = bytes;
      this.inFlight = inFlight;
    }

    /** The messages this receive may take. */
    int inFlight() {
      return inFlight;
    }

    /** Gives everything back (the operation failed or will be tried again); idempotent. */
    void release() {
      keep(0);
      if (u != null) {
        synchronized (u) {
          u.addedDepth -= depth;
          u.addedBytes -= bytes;
        }
      }
      depth = 0;
      bytes = 0;
    }

    /** A receive took {@code taken} of the messages it reserved: gives the rest back. */
    void keep(int taken) {
      if (u != null && inFlight > taken) {
        synchronized (u) {
          u.addedInFlight -= inFlight - taken;
        }
        inFlight = taken;
      }
    }
  }

  /**
   * Reserves room for a send of {@code fresh} messages weighing {@code bytes} (as {@link
   * QueueLimits#charge} counts them) in queue {@code q}; refuses it, reserving nothing, when it
   * would take the queue over {@code max-queue-bytes} or, when the queue sets no {@code maxDepth}
   * of its own, {@code default-max-depth}, with the in-memory engine's codes and texts.
   */
  Reservation reserveSend(Op.Q q, int fresh, long bytes, long now) {
    if (!enforced || fresh == 0) {
      return Reservation.NONE;
    }
    Use u = use(q.id(), now);
    synchronized (u) {
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
      u.addedDepth += fresh;
      u.addedBytes += bytes;
      return new Reservation(u, fresh, bytes, 0);
    }
  }

  /** Refuses a receive with {@code OVER_LIMIT} while queue {@code q} is at its in-flight limit. */
  void checkInFlight(Op.Q q, long now) {
    if (enforced) {
      Use u = use(q.id(), now);
      long inFlight = u.inFlight();
      if (inFlight >= limits.maxInFlight(q.grouped())) {
        throw limits.overLimit(q.name(), q.grouped(), inFlight);
      }
    }
  }

  /**
   * Reserves room for at most {@code wanted} more messages in flight in queue {@code q}: what is
   * left below its limit, perhaps 0 (a waiter's turn then takes nothing).
   */
  Reservation reserveInFlight(Op.Q q, int wanted, long now) {
    if (!enforced) {
      return new Reservation(null, 0, 0, wanted);
    }
    Use u = use(q.id(), now);
    synchronized (u) {
      long room = limits.maxInFlight(q.grouped()) - u.inFlight();
      int reserved = (int) Math.max(0, Math.min(wanted, room));
      u.addedInFlight += reserved;
      return new Reservation(u, 0, 0, reserved);
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
      long[] m;
      try {
        m = sql.statement("measuring", "queue " + e.getKey(), c -> measure(c, e.getKey(), now));
      } catch (RuntimeException failed) {
        synchronized (u) {
          u.used = true; // measured at the next tick that can
        }
        throw failed;
      }
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

  private static long[] measure(Connection c, long qid, long now) throws SQLException {
    try (PreparedStatement ps = Sql.prepare(c, MEASURE, now, qid);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
    }
  }
}
