package io.switchboard.storage.postgres;

import io.switchboard.queue.Message;
import io.switchboard.queue.MessageEvent;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MoveCheck;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.spi.DeadLetterRules;
import io.switchboard.queue.spi.MessageIds;
import io.switchboard.queue.spi.MessageRules;
import io.switchboard.queue.spi.Messages;
import io.switchboard.queue.spi.Receipt;
import io.switchboard.queue.spi.ReceiptKey;
import io.switchboard.queue.spi.ReceiptKeys;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One operation on one queue inside one transaction: the queue's row as read at the start, the
 * time, and the counter changes to write before commit. Holds what every operation shares: firing
 * due timers, moves to the dead-letter queue, history, and turning rows into messages.
 */
final class Op {

  /** A queue as stored. */
  record Q(
      long id,
      String name,
      boolean grouped,
      QueueConfig config,
      Instant createdAt,
      long receiptKey,
      long revision) {
    QueueInfo info() {
      return new QueueInfo(name, grouped, config, createdAt);
    }

    /** Oldest first among equal priorities (grouped queues always are). */
    boolean fifo() {
      return config.order() == Order.FIFO || grouped;
    }

    String orderBy() {
      return fifo() ? "priority desc, seq asc" : "priority desc, seq desc";
    }

    /**
     * The condition on {@code sb_message} that selects this queue's messages, {@code qid} bound to
     * the queue's id: for a LIFO queue it names {@code lifo} too, so a scan in {@link #orderBy}
     * order can walk the partial index {@code sb_message_lifo} (schema version 33).
     */
    String ofQueue() {
      return fifo() ? "qid = ?" : "qid = ? and lifo";
    }

    /** This queue with another configuration (same row, next revision). */
    Q with(QueueConfig next) {
      return new Q(id, name, grouped, next, createdAt, receiptKey, revision + 1);
    }
  }

  final Connection c;
  final long now;
  final Q q;
  final Counters counters = new Counters();
  final MessageIds ids;
  private final ReceiptKeys receipts;

  /**
   * Asked before a message is dead-lettered on the engine's own account ({@link
   * MoveCheck#deadLetterRefusal}); the engine's check for operations it begins, none otherwise.
   */
  MoveCheck moves = MoveCheck.NONE;

  /**
   * What this operation did to messages beyond its answer ({@link MessageEvent}), told once its
   * transaction has committed ({@link PostgresQueueEngine#told}); built only if someone listens.
   */
  final List<Supplier<MessageEvent>> events = new ArrayList<>(0);

  Op(Connection c, long now, Q q, MessageIds ids, ReceiptKeys receipts) {
    this.c = c;
    this.now = now;
    this.q = q;
    this.ids = ids;
    this.receipts = receipts;
  }

  /** The key of this queue's receipt handles. */
  ReceiptKey receiptKey() {
    return receipts.forQueue(q.name, q.receiptKey);
  }

  /** An operation that only renders rows of {@code q} as messages (no connection). */
  // No connection: only view() is called on it, and rendering a row reads none of c
  @SuppressWarnings("NullAway")
  static Op viewOnly(long now, Q q, MessageIds ids, ReceiptKeys receipts) {
    return new Op(null, now, q, ids, receipts);
  }

  static final String QUEUE_COLS = "id, name, grouped, config, created_at, receipt_key, revision";

  static Q readQueue(ResultSet rs) throws SQLException {
    return new Q(
        rs.getLong(1),
        rs.getString(2),
        rs.getBoolean(3),
        Codecs.decodeConfig(rs.getString(4)),
        Instant.ofEpochMilli(rs.getLong(5)),
        rs.getLong(6),
        rs.getLong(7));
  }

  static @Nullable Q findQueue(Connection c, String name) throws SQLException {
    try (PreparedStatement ps =
        Sql.prepare(c, "select " + QUEUE_COLS + " from sb_queue where name = ?", name)) {
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? readQueue(rs) : null;
      }
    }
  }

  /**
   * The queue and whether it has timers due by {@code now}, in one round trip: most operations find
   * nothing due and skip {@link Timers#fire}. At most one bounded batch fires here; housekeeping
   * fires the rest (claims do not depend on it, see {@link Claim}).
   */
  static Op begin(
      Connection c, String name, long now, MessageIds ids, ReceiptKeys receipts, MoveCheck moves)
      throws SQLException {
    if (name != null) {
      try (PreparedStatement ps =
          Sql.prepare(
              c,
              "select " + QUEUE_COLS + ", " + Timers.DUE + " from sb_queue q where name = ?",
              now,
              now,
              name)) {
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            Op op = new Op(c, now, readQueue(rs), ids, receipts);
            op.moves = moves;
            if (rs.getBoolean(8)) {
              Timers.fire(op, Timers.BATCH);
            }
            return op;
          }
        }
      }
    }
    throw QueueException.queueNotFound(name);
  }

  static Q requireQueue(Connection c, @Nullable String name) throws SQLException {
    Q q = name == null ? null : findQueue(c, name);
    if (q == null) {
      throw QueueException.queueNotFound(name);
    }
    return q;
  }

  void finish() throws SQLException {
    counters.flush(c, q.id);
  }

  /**
   * The queue's counters including this operation's changes so far and {@code pending}, the changes
   * this server holds in memory (see {@link CounterBuffer}).
   */
  io.switchboard.queue.QueueStats.Counters flushedCounters(long[] pending) throws SQLException {
    counters.flush(c, q.id);
    return Counters.read(c, q.id, pending);
  }

  /** Rows of this queue matching {@code where} (with {@code ?} bound to args), locked. */
  List<Row> rows(String where, Object... args) throws SQLException {
    Object[] all = new Object[args.length + 1];
    all[0] = q.id;
    System.arraycopy(args, 0, all, 1, args.length);
    List<Row> out = new ArrayList<>();
    try (PreparedStatement ps =
        Sql.prepare(
            c,
            "select "
                + Row.COLS
                + " from sb_message where "
                + q.ofQueue()
                + " and "
                + where
                + " order by "
                + q.orderBy()
                + " for update",
            all)) {
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(Row.read(rs));
        }
      }
    }
    return out;
  }

  boolean exhausted(Row r) {
    return DeadLetterRules.exhausted(q.config, r.receiveCount);
  }

  void requireDeadLetterTarget() {
    DeadLetterRules.requireTarget(q.name, q.config);
  }

  /**
   * Moves a row to the dead-letter target as its newest message. If the target is gone, the message
   * stays where it was (available), so nothing is lost. A queue that is its own target keeps the
   * message in its place, available, with its receive count reset
   * (DeadLetterRules.deadLettersToItself).
   */
  boolean deadLetter(Row r, MessageEvent.Cause cause) throws SQLException {
    if (DeadLetterRules.deadLettersToItself(q.name, q.config)) {
      counters.add(Counters.DEAD_LETTERED, 1);
      r.leased = false;
      r.visibleAt = 0;
      r.receiveCount = 0;
      Sql.update(
          c,
          "update sb_message set leased = false, visible_at = 0, receive_count = 0 where serial = ?",
          r.serial);
      events.add(() -> new MessageEvent.DeadLettered(q.name, q.name, view(r, null), cause));
      return true;
    }
    String targetName = q.config.deadLetter().get().target();
    if (cause != MessageEvent.Cause.REQUESTED) {
      String refusal = moves.deadLetterRefusal(q.name, targetName, idOf(r.serial));
      if (refusal != null) {
        keepRefused(r, cause);
        return false;
      }
    }
    counters.add(Counters.DEAD_LETTERED, 1);
    remember(r, MessageState.DEAD_LETTERED);
    Q target = findQueue(c, targetName);
    if (target == null) {
      Sql.update(
          c, "update sb_message set leased = false, visible_at = 0 where serial = ?", r.serial);
      return true;
    }
    Sql.update(
        c,
        "update sb_message m set qid = ?, seq = v.n, arrival = v.n, leased = false,"
            + " visible_at = 0, expires_at = ?, lease_epoch = m.lease_epoch + 1, dl_source = ?"
            + ", idx = ?, lifo = ? from (select nextval('sb_seq') n) v where serial = ?",
        target.id,
        now + target.config.retention().toMillis(),
        q.name,
        tokens(r, target),
        !target.fifo(),
        r.serial);
    events.add(
        () ->
            new MessageEvent.DeadLettered(
                q.name, target.name, view(r, null, MessageState.AVAILABLE), cause));
    return true;
  }

  /**
   * Leaves a message whose move to the dead-letter target was refused where it is ({@link
   * MoveCheck#deadLetterRefusal}): after its last receive, available with its receive count kept;
   * expired, as it was, its expiry put off.
   */
  private void keepRefused(Row r, MessageEvent.Cause cause) throws SQLException {
    if (cause == MessageEvent.Cause.EXPIRED) {
      r.expiresAt = now + DeadLetterRules.REFUSED_EXPIRY_RETRY_MILLIS;
      Sql.update(c, "update sb_message set expires_at = ? where serial = ?", r.expiresAt, r.serial);
      return;
    }
    r.leased = false;
    r.visibleAt = 0;
    Sql.update(
        c, "update sb_message set leased = false, visible_at = 0 where serial = ?", r.serial);
  }

  /**
   * Moves a row to {@code target}'s back as a redriven message: receive count reset, no longer
   * marked as dead-lettered.
   */
  void redriveTo(Row r, Q target) throws SQLException {
    Sql.update(
        c,
        "update sb_message set qid = ?, seq = ?, leased = false, visible_at = 0, expires_at = ?,"
            + " lease_epoch = lease_epoch + 1, dl_source = null, receive_count = 0,"
            + " arrival = nextval('sb_seq'), idx = ?, lifo = ? where serial = ?",
        target.id,
        backSeq(target),
        now + target.config.retention().toMillis(),
        tokens(r, target),
        !target.fifo(),
        r.serial);
    events.add(
        () ->
            new MessageEvent.Redriven(q.name, target.name, view(r, null, MessageState.AVAILABLE)));
  }

  /**
   * A sequence number behind everything in {@code target}: the newest in FIFO, the lowest in LIFO.
   */
  long backSeq(Q target) throws SQLException {
    String sql =
        target.config.order() == Order.FIFO || target.grouped
            ? "select nextval('sb_seq')"
            : "update sb_queue set back_seq = back_seq - 1 where id = "
                + target.id
                + " returning back_seq";
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The row's index tokens as {@code target} indexes them. */
  java.sql.@Nullable Array tokens(Row r, Q target) throws SQLException {
    String[] t = Pushdown.tokens(r.attributes(), target.config.indexedAttributes());
    return t == null ? null : c.createArrayOf("text", t);
  }

  /** Keeps a message that left the queue readable by id while the queue keeps history. */
  void remember(Row r, MessageState state) throws SQLException {
    if (q.config.historyRetention().isZero()) {
      return;
    }
    Object[] kept = r.kept();
    Object[] args = new Object[3 + kept.length];
    args[0] = q.id;
    args[1] = state.name();
    args[2] = now + q.config.historyRetention().toMillis();
    System.arraycopy(kept, 0, args, 3, kept.length);
    Sql.update(
        c,
        "insert into sb_history (qid, state, until, "
            + Row.KEPT_COLS
            + ") values (?, ?, ?"
            + ", ?".repeat(kept.length)
            + ") on conflict (qid, serial) do update set state = excluded.state,"
            + " until = excluded.until",
        args);
  }

  // ---- lookups ---------------------------------------------------------------------------

  @Nullable Row find(long serial) throws SQLException {
    if (serial == 0) {
      return null;
    }
    try (PreparedStatement ps =
        Sql.prepare(
            c,
            "select " + Row.COLS + " from sb_message where serial = ? and qid = ? for update",
            serial,
            q.id)) {
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Row.read(rs) : null;
      }
    }
  }

  Row require(long serial, String id) throws SQLException {
    Row r = find(serial);
    if (r == null) {
      throw QueueException.messageNotFound(q.name, id);
    }
    return r;
  }

  /**
   * The leased row a receipt names, still in flight: a message gone or no longer in flight is an
   * error, as is a receipt of an earlier lease.
   */
  Row leased(String receipt) throws SQLException {
    Row r = leasedOrGone(receipt);
    if (r == null) {
      throw MessageRules.leaseGone(q.name);
    }
    if (!r.inFlight(now)) {
      throw MessageRules.notInFlight(idOf(r.serial), state(r));
    }
    return r;
  }

  /**
   * The row a receipt names, whatever its state; null when the message is gone (an ack's "already
   * done"). A receipt of an earlier lease is an error.
   */
  @Nullable Row leasedOrGone(String receipt) throws SQLException {
    return leasedOrGone(receipt, false);
  }

  /** {@link #leasedOrGone(String)}; with {@code anyLease}, a receipt of any lease names the row. */
  @Nullable Row leasedOrGone(String receipt, boolean anyLease) throws SQLException {
    Receipt h = Receipt.decode(receiptKey(), receipt, q.name);
    Row r = find(h.serial());
    if (r == null) {
      return null;
    }
    if (r.leaseEpoch != h.leaseEpoch() && !anyLease) {
      throw MessageRules.staleReceipt(idOf(r.serial));
    }
    return r;
  }

  /** Deletes the message whose current lease {@code receipt} names; null if none is. */
  @Nullable Row deleteLeased(String receipt) throws SQLException {
    Receipt h = Receipt.decode(receiptKey(), receipt, q.name);
    try (PreparedStatement ps =
        Sql.prepare(
            c,
            "delete from sb_message where serial = ? and qid = ? and lease_epoch = ? returning "
                + Row.COLS,
            h.serial(),
            q.id,
            h.leaseEpoch())) {
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Row.read(rs) : null;
      }
    }
  }

  String idOf(long serial) {
    return ids.id(serial);
  }

  MessageState state(Row r) {
    if (r.visibleAt > now) {
      return r.leased ? MessageState.IN_FLIGHT : MessageState.DELAYED;
    }
    return MessageState.AVAILABLE;
  }

  Message view(Row r, @Nullable String receipt) {
    return view(r, receipt, state(r));
  }

  Message view(Row r, @Nullable String receipt, MessageState state) {
    return Messages.view(
        idOf(r.serial),
        r.body,
        r.attributes(),
        r.groupId,
        r.dedupId,
        r.sentAt,
        r.stateRecord(state),
        state,
        receipt);
  }
}
