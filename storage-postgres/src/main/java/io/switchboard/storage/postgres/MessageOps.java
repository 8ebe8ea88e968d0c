package io.switchboard.storage.postgres;

import io.switchboard.queue.Message;
import io.switchboard.queue.MessageEvent;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.spi.BatchAcks;
import io.switchboard.queue.spi.DeadLetterRules;
import io.switchboard.queue.spi.MessageRules;
import io.switchboard.queue.spi.QueueRules;
import io.switchboard.queue.spi.Receipt;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The operations on one message: by receipt (ack, release, extend, fail, dead-letter) and by id
 * (update, touch, remove, get). Each is one transaction in the engine's frame; the rules and error
 * messages are the core engine's.
 */
final class MessageOps {

  private final PostgresQueueEngine engine;

  MessageOps(PostgresQueueEngine engine) {
    this.engine = engine;
  }

  // ---- lease operations ------------------------------------------------------------------

  void ack(String queue, String receipt) {
    if (!ackInFlight(queue, receipt)) {
      engine.act(
          queue,
          "acknowledging in '" + queue + "'",
          op -> {
            if (op.q.grouped()) {
              Row current = op.leasedOrGone(receipt); // gone (fine) or stale (refused)
              if (current != null && !current.inFlight(op.now)) {
                // the lease ended, its group reopened: as in SQS FIFO, it no longer deletes
                throw MessageRules.notInFlight(op.idOf(current.serial), op.state(current));
              }
            }
            Row r = op.deleteLeased(receipt);
            if (r == null) {
              r = op.leasedOrGone(receipt); // gone (fine) or stale (refused)
              if (r != null) {
                Sql.update(op.c, "delete from sb_message where serial = ?", r.serial);
              }
            }
            if (r != null) {
              op.counters.add(Counters.ACKED, 1);
              op.remember(r, io.switchboard.queue.MessageState.COMPLETED);
            }
          });
    }
    freed(queue);
  }

  /**
   * A message left flight: in a grouped queue its group may be free now, and under a limit per key
   * its group may be under its limit: blocked receives look again.
   */
  private void freed(String queue) {
    boolean limited;
    try {
      limited = engine.cache().get(queue).config().keyLimit().isPresent();
    } catch (QueueException gone) {
      return; // deleted meanwhile: what was done is done, and nobody waits on it
    }
    if (QueueRules.isGrouped(queue) || limited) {
      engine.changed(queue);
    }
  }

  /**
   * Acks a batch: the receipts whose lease is current and running in a queue that keeps no history
   * in one call of {@code sb_ack} ({@link #ACK_FUNCTION}), the rest one by one through {@link
   * #ack}, which tells a stale receipt from a gone message. One result per receipt, in order.
   */
  List<Optional<QueueException>> ackAll(String queue, List<String> receipts) {
    Op.Q q = engine.cache().get(queue);
    boolean[] acked = new boolean[receipts.size()];
    if (q.config().historyRetention().isZero() && receipts.size() > 1) {
      ackAllInFlight(queue, q, receipts, acked);
    }
    List<Optional<QueueException>> results =
        BatchAcks.oneByOne(
            receipts,
            (receipt, i) -> {
              if (!acked[i]) {
                ack(queue, receipt);
              }
            });
    freed(queue);
    return results;
  }

  /**
   * The function {@code sb_ack} (schema version 33): deletes the messages of {@code p_qid} whose
   * serial and lease epoch are given, whose lease is running and which have not expired, and their
   * lease rows; returns the serials deleted, or null (nothing changed) when the queue's id and
   * revision no longer match. A function, as {@link Claim}, only to keep one plan per connection
   * and pin it to index lookups: as a plain statement PostgreSQL planned it afresh on every call,
   * and for a lease table its statistics called small it deleted the lease rows through a
   * sequential scan and a hash join, reading every dead row left since the last vacuum (33 buffers
   * per message acked in the benchmark, against 3 for the baseline's delete).
   */
  static final String ACK_FUNCTION_V33 =
      "create or replace function sb_ack(p_qid bigint, p_revision bigint, p_serials bigint[],"
          + " p_epochs int[], p_now bigint) returns bigint[] language plpgsql"
          + " set plan_cache_mode = force_generic_plan set enable_seqscan = off"
          + " set enable_bitmapscan = off set enable_hashjoin = off set enable_mergejoin = off"
          + " set enable_sort = off as $$ declare v_acked bigint[]; begin"
          + " perform 1 from sb_queue where id = p_qid and revision = p_revision;"
          + " if not found then return null; end if;"
          + " with d as (delete from sb_message m using unnest(p_serials, p_epochs) r(serial, epoch)"
          + " where m.serial = r.serial and m.qid = p_qid and m.lease_epoch = r.epoch and m.leased"
          + " and m.visible_at > p_now and m.expires_at > p_now returning m.serial, m.visible_at),"
          + " l as (delete from sb_lease s using d where s.qid = p_qid and s.until = d.visible_at"
          + " and s.serial = d.serial)"
          + " select array(select serial from d) into v_acked;"
          + " return v_acked; end $$";

  /**
   * {@code sb_ack} as schema version 34 replaces it ({@link #ACK_FUNCTION_V33}): every row it
   * deletes is found by its key, whatever the statistics said when the connection planned it. In
   * version 33 the generic plan could take a restriction on the queue as its way in (seen with
   * {@code auto_explain} after the lease table was analyzed empty): the message delete walked the
   * queue's every unexpired message through {@code sb_message_expiry} and the lease delete the
   * queue's every lease row, so an ack of ten cost as much as the queue held (33 – 47 buffers and
   * 243 – 262 µs per message acked in two of eight one-engine benchmark runs, against 9 – 12
   * buffers in the others), and a join with the receipts could walk the whole primary key in serial
   * order. Now the message delete is no join: the serials are an array the primary key is probed
   * with ({@code serial = any}), each one's epoch looked up beside it, and the queue and expiry
   * conditions cannot use an index ({@code + 0}); the lease delete joins the deleted rows by all
   * three of its columns, queue included, so it can only probe {@code sb_lease_due} by queue and
   * lease end for each. A serial given twice is checked against its first epoch; a receipt this
   * leaves out is acked one by one by the caller.
   */
  static final String ACK_FUNCTION =
      "create or replace function sb_ack(p_qid bigint, p_revision bigint, p_serials bigint[],"
          + " p_epochs int[], p_now bigint) returns bigint[] language plpgsql"
          + " set plan_cache_mode = force_generic_plan set enable_seqscan = off"
          + " set enable_bitmapscan = off set enable_hashjoin = off set enable_mergejoin = off"
          + " set enable_sort = off set enable_material = off as $$ declare v_acked bigint[];"
          + " begin"
          + " perform 1 from sb_queue where id = p_qid and revision = p_revision;"
          + " if not found then return null; end if;"
          + " with d as (delete from sb_message m where m.serial = any(p_serials)"
          + " and m.qid + 0 = p_qid and m.lease_epoch = p_epochs[array_position(p_serials, m.serial)]"
          + " and m.leased and m.visible_at > p_now and m.expires_at + 0 > p_now"
          + " returning m.qid, m.serial, m.visible_at),"
          + " l as (delete from sb_lease s using d where s.qid = d.qid and s.until = d.visible_at"
          + " and s.serial = d.serial)"
          + " select array(select serial from d) into v_acked;"
          + " return v_acked; end $$";

  private static final String ACK = "select sb_ack(?, ?, ?, ?, ?)";

  /**
   * One call of {@link #ACK_FUNCTION} for the first {@code n} leases of {@code serials} and {@code
   * epochs}: the serials acked, sorted, or null when {@code q} is not current.
   */
  private long @Nullable [] ackLeased(String queue, Op.Q q, long[] serials, int[] epochs, int n) {
    long now = engine.clock().millis();
    long[] s = n == serials.length ? serials : Arrays.copyOf(serials, n);
    int[] e = n == epochs.length ? epochs : Arrays.copyOf(epochs, n);
    return engine
        .sql()
        .statementOrNull(
            "acknowledging in",
            queue,
            c -> {
              try (PreparedStatement ps = c.prepareStatement(ACK)) {
                ps.setLong(1, q.id());
                ps.setLong(2, q.revision());
                // Java arrays, bound in binary by the driver (createArrayOf looked the type up by
                // name and wrote a text form too, on every call)
                ps.setObject(3, s);
                ps.setObject(4, e);
                ps.setLong(5, now);
                try (ResultSet rs = ps.executeQuery()) {
                  rs.next();
                  java.sql.Array a = rs.getArray(1);
                  if (a == null) {
                    return null;
                  }
                  Long[] got = (Long[]) a.getArray();
                  long[] acked = new long[got.length];
                  for (int i = 0; i < got.length; i++) {
                    acked[i] = got[i];
                  }
                  Arrays.sort(acked);
                  return acked;
                }
              }
            });
  }

  /**
   * The receipts of {@code receipts} that decode and whose lease is current and running, acked in
   * one autocommit statement; marks them in {@code acked}. The others are left to the caller. Each
   * receipt is decoded (its MAC checked) once.
   */
  private void ackAllInFlight(String queue, Op.Q q, List<String> receipts, boolean[] acked) {
    var key = engine.receiptKeys().forQueue(queue, q.receiptKey());
    long[] decoded = new long[receipts.size()]; // 0: not decodable (no message has serial 0)
    long[] serials = new long[receipts.size()];
    int[] epochs = new int[receipts.size()];
    int n = 0;
    for (int i = 0; i < receipts.size(); i++) {
      try {
        Receipt h = Receipt.decode(key, receipts.get(i), queue);
        decoded[i] = h.serial();
        serials[n] = h.serial();
        epochs[n] = h.leaseEpoch();
        n++;
      } catch (QueueException e) {
        // malformed, or of another queue: the one-by-one path answers it
      }
    }
    if (n == 0) {
      return;
    }
    long[] deleted = ackLeased(queue, q, serials, epochs, n);
    if (deleted == null) {
      engine.cache().forget(queue);
      return;
    }
    if (deleted.length == 0) {
      return;
    }
    engine.counters().add(q.id(), Counters.ACKED, deleted.length);
    for (int i = 0; i < receipts.size(); i++) {
      acked[i] = decoded[i] != 0 && Arrays.binarySearch(deleted, decoded[i]) >= 0;
    }
  }

  /**
   * The common ack as one autocommit statement: the receipt's lease is current and running, the
   * message not expired, and the queue keeps no history. Deletes the message and its lease row and
   * counts the ack in memory; false when any of that does not hold (nothing changed), and the
   * caller takes the ordinary path, which fires due timers first and tells a stale receipt from a
   * gone message.
   */
  private boolean ackInFlight(String queue, String receipt) {
    Op.Q q = engine.cache().get(queue);
    if (!q.config().historyRetention().isZero()) {
      return false;
    }
    Receipt h;
    try {
      h = Receipt.decode(engine.receiptKeys().forQueue(queue, q.receiptKey()), receipt, queue);
    } catch (QueueException e) {
      engine.cache().forget(queue); // perhaps a receipt of a newer queue of that name
      return false;
    }
    long[] result = ackLeased(queue, q, new long[] {h.serial()}, new int[] {h.leaseEpoch()}, 1);
    if (result == null) {
      engine.cache().forget(queue);
      return false;
    }
    if (result.length == 1) {
      engine.counters().add(q.id(), Counters.ACKED, 1);
      return true;
    }
    return false;
  }

  void release(String queue, String receipt, Duration delay, boolean toBack) {
    Objects.requireNonNull(delay, "delay");
    engine.act(
        queue,
        "releasing in '" + queue + "'",
        op -> {
          MessageRules.checkRelease(queue, op.q.grouped(), delay, toBack);
          Row r = op.leased(receipt);
          op.counters.add(Counters.RELEASED, 1);
          if (op.exhausted(r) && op.deadLetter(r, MessageEvent.Cause.MAX_RECEIVES)) {
            return;
          }
          long seq = toBack ? op.backSeq(op.q) : r.seq;
          Sql.update(
              op.c,
              "update sb_message set leased = false, visible_at = ?, seq = ? where serial = ?",
              delay.isZero() ? 0 : op.now + delay.toMillis(),
              seq,
              r.serial);
        });
    engine.changed(queue);
  }

  /**
   * Extends a lease; with {@code anyLease}, a receipt of an earlier lease acts on the current one
   * ({@code QueueEngine.extendAnyLease}).
   */
  Message extend(String queue, String receipt, Duration visibilityTimeout, boolean anyLease) {
    Objects.requireNonNull(visibilityTimeout, "visibilityTimeout");
    Message m =
        engine.run(
            queue,
            "extending a lease in '" + queue + "'",
            op -> {
              MessageRules.checkExtend(visibilityTimeout);
              Row r = op.leasedOrGone(receipt, anyLease);
              if (r == null) {
                throw MessageRules.leaseGone(queue);
              }
              long until = MessageRules.extendedUntil(visibilityTimeout, r.leasedAt, op.now);
              if (r.leased && r.visibleAt <= op.now && op.exhausted(r)) {
                throw MessageRules.leaseGone(queue); // its lease end takes it to the DLQ
              }
              if (r.visibleAt <= op.now && r.expiresAt > op.now) {
                // The lease ran out and nobody received the message since: the receipt is still
                // the latest, so (as SQS) it may hide the message again; zero leaves it available.
                if (!visibilityTimeout.isZero()) {
                  r.leased = true;
                  r.visibleAt = until;
                  Sql.update(
                      op.c,
                      "update sb_message set leased = true, visible_at = ? where serial = ?",
                      r.visibleAt,
                      r.serial);
                  Sql.update(
                      op.c,
                      "insert into sb_lease (qid, until, serial) values (?, ?, ?)",
                      op.q.id(),
                      r.visibleAt,
                      r.serial);
                }
                return op.view(r, null);
              }
              if (!r.inFlight(op.now)) {
                throw MessageRules.notInFlight(op.idOf(r.serial), op.state(r));
              }
              if (visibilityTimeout.isZero()) {
                op.counters.add(Counters.RELEASED, 1);
                if (op.exhausted(r)) {
                  Message left = op.view(r, null, io.switchboard.queue.MessageState.DEAD_LETTERED);
                  if (op.deadLetter(r, MessageEvent.Cause.MAX_RECEIVES)) {
                    return DeadLetterRules.deadLettersToItself(queue, op.q.config())
                        ? op.view(r, null)
                        : left;
                  }
                  // the move was refused: it stays, released as any other
                }
                r.leased = false;
                r.visibleAt = 0;
              } else {
                r.visibleAt = until;
              }
              Sql.update(
                  op.c,
                  "update sb_message set leased = ?, visible_at = ? where serial = ?",
                  r.leased,
                  r.visibleAt,
                  r.serial);
              if (r.leased) {
                // the new lease end's timer; the old one finds the lease moved and is dropped
                Sql.update(
                    op.c,
                    "insert into sb_lease (qid, until, serial) values (?, ?, ?)",
                    op.q.id(),
                    r.visibleAt,
                    r.serial);
              }
              return op.view(r, null);
            });
    if (visibilityTimeout.isZero()) {
      engine.changed(queue);
    }
    return m;
  }

  void fail(String queue, String receipt) {
    engine.act(
        queue,
        "failing a message in '" + queue + "'",
        op -> {
          Row r = op.leased(receipt);
          Sql.update(op.c, "delete from sb_message where serial = ?", r.serial);
          op.counters.add(Counters.FAILED, 1);
          op.remember(r, io.switchboard.queue.MessageState.FAILED);
        });
    freed(queue);
  }

  void deadLetter(String queue, String receipt) {
    engine.act(
        queue,
        "dead-lettering in '" + queue + "'",
        op -> {
          op.requireDeadLetterTarget();
          op.deadLetter(op.leased(receipt), MessageEvent.Cause.REQUESTED);
        });
    engine.changed(queue);
  }

  void deadLetterById(String queue, String id) {
    engine.act(
        queue,
        "dead-lettering in '" + queue + "'",
        op -> {
          op.requireDeadLetterTarget();
          op.deadLetter(op.require(engine.serialOf(id), id), MessageEvent.Cause.REQUESTED);
        });
    engine.changed(queue);
  }

  // ---- by id -----------------------------------------------------------------------------

  Message update(String queue, String id, MessageUpdate update) {
    Objects.requireNonNull(update, "update");
    return engine.run(
        queue,
        "updating a message in '" + queue + "'",
        op -> {
          Row r = op.require(engine.serialOf(id), id);
          if (update.attributes().isPresent()) {
            int size =
                r.body.length + MessageRules.attributeBytes(update.attributes().get(), "update");
            MessageRules.checkUpdateSize(size, queue, op.q.config());
            String[] tokens =
                Pushdown.tokens(update.attributes().get(), op.q.config().indexedAttributes());
            Sql.update(
                op.c,
                "update sb_message set attrs = ?, idx = ? where serial = ?",
                Codecs.encodeAttributes(update.attributes().get()),
                tokens == null ? null : op.c.createArrayOf("text", tokens),
                r.serial);
          }
          if (update.priority().isPresent()) {
            Sql.update(
                op.c,
                "update sb_message set priority = ? where serial = ?",
                update.priority().get(),
                r.serial);
          }
          // the row this transaction holds locked and just updated
          return op.view(Objects.requireNonNull(op.find(r.serial), "the updated row"), null);
        });
  }

  Message touch(String queue, String id) {
    return engine.run(
        queue,
        "touching a message in '" + queue + "'",
        op -> {
          MessageRules.checkTouch(queue, op.q.grouped());
          Row r = op.require(engine.serialOf(id), id);
          r.seq = op.backSeq(op.q);
          Sql.update(op.c, "update sb_message set seq = ? where serial = ?", r.seq, r.serial);
          return op.view(r, null);
        });
  }

  void remove(String queue, String id) {
    engine.act(
        queue,
        "removing a message from '" + queue + "'",
        op -> {
          Row r = op.require(engine.serialOf(id), id);
          Sql.update(op.c, "delete from sb_message where serial = ?", r.serial);
          op.counters.add(Counters.REMOVED, 1);
        });
    freed(queue);
  }

  Message get(String queue, String id) {
    return engine.run(
        queue,
        "reading a message in '" + queue + "'",
        op -> {
          long serial = engine.serialOf(id);
          Row r = op.find(serial);
          if (r != null) {
            return op.view(r, null);
          }
          Message h = serial == 0 ? null : Browse.history(op, serial);
          if (h == null) {
            throw QueueException.messageNotFound(queue, id);
          }
          return h;
        });
  }
}
