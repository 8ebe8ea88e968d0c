package io.switchboard.storage.postgres;

import io.switchboard.queue.Message;
import io.switchboard.queue.ReceiveRequest;
import java.sql.SQLException;
import java.util.List;

/**
 * Receives on one server: a receive that finds something returns at once; one that finds nothing
 * and may wait joins its queue's line ({@link WaitLines}) and is served in turn when something
 * changes — on this server (a send, a release: {@link #changed}, before that call returns), or on
 * another (a notification, or the poll interval). Each take is one call of {@link Claim} when it
 * can be (a standard queue, no filter, a current cached queue row), else one transaction of {@link
 * Taker}.
 */
final class Receiver {

  private final PostgresQueueEngine engine;
  private final WaitLines lines = new WaitLines();

  Receiver(PostgresQueueEngine engine) {
    this.engine = engine;
  }

  List<Message> receive(String queue, ReceiveRequest request) {
    Wakeups wakeups = engine.wakeups();
    long seen = wakeups.generation();
    engine.open();
    engine.use().checkInFlight(engine.cache().get(queue), engine.clock().millis());
    List<Message> got = takeNow(queue, request);
    long waitMillis =
        request.waitTime().orElse(engine.cache().get(queue).config().receiveWait()).toMillis();
    if (!got.isEmpty() || waitMillis == 0) {
      return got;
    }
    long deadline = engine.clock().millis() + waitMillis;
    WaitLines.Waiter w = new WaitLines.Waiter(request);
    lines.add(queue, w);
    while (true) {
      if (w.done()) {
        return w.result();
      }
      long park = engine.clock().parkNanosUntil(deadline);
      if (park == 0 || engine.isClosed() || Thread.currentThread().isInterrupted()) {
        return lines.abandon(queue, w) ? List.of() : w.result();
      }
      try {
        wakeups.await(seen, Math.min(engine.pollMillis(), Math.max(1, park / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        continue;
      }
      seen = wakeups.generation();
      if (!engine.isClosed() && !w.done()) {
        lines.serve(queue, this::takeNow);
      }
    }
  }

  /**
   * A receive that does not wait (also a waiter's turn); takes at most the room left under the
   * queue's in-flight limit, reserved until it has taken ({@link QueueUse}), so nothing at the
   * limit.
   */
  private List<Message> takeNow(String queue, ReceiveRequest request) {
    engine.open();
    Op.Q q = engine.cache().get(queue);
    QueueUse.Reservation room =
        engine
            .use()
            .reserveInFlight(
                q,
                engine.limits().receiveMax(request.maxMessages(), q.config()),
                engine.clock().millis());
    if (room.inFlight() == 0) {
      return List.of();
    }
    try {
      List<Message> got = takeUpTo(queue, request, q, room.inFlight());
      room.keep(got.size());
      return got;
    } catch (RuntimeException e) {
      room.release();
      throw e;
    }
  }

  /** Takes at most {@code max} messages now. */
  private List<Message> takeUpTo(String queue, ReceiveRequest request, Op.Q q, int max) {
    if (!q.grouped()
        && request.filter().isEmpty()
        && !engine.fair(queue)
        && q.config().keyLimit().isEmpty()) {
      long now = engine.clock().millis();
      long visibility =
          request.visibilityTimeout().orElse(q.config().visibilityTimeout()).toMillis();
      List<Row> rows =
          engine
              .sql()
              .statementOrNull(
                  "receiving from", queue, c -> Claim.claim(c, q, now, max, visibility));
      if (rows != null) {
        if (rows.stream().anyMatch(r -> r.groupId != null)) {
          engine.markFair(queue); // another server sent group ids: fair from the next receive on
        }
        engine.counters().add(q.id(), Counters.RECEIVED, rows.size());
        return Taker.messages(Op.viewOnly(now, q, engine.ids(), engine.receiptKeys()), rows);
      }
      engine.cache().forget(queue); // reconfigured or gone: the transaction reads it afresh
    }
    return engine.run(queue, "receiving from '" + queue + "'", op -> take(op, request, max));
  }

  private List<Message> take(Op op, ReceiveRequest request, int max) throws SQLException {
    long visibility =
        request.visibilityTimeout().orElse(op.q.config().visibilityTimeout()).toMillis();
    return Taker.take(op, max, request.filter().orElse(null), visibility);
  }

  /** Serves this server's waiters on {@code queue} now, and tells the other servers. */
  void changed(String queue) {
    if (lines.size(queue) > 0) {
      try {
        lines.serve(queue, this::takeNow);
      } catch (RuntimeException e) {
        // the change itself is committed; waiters look again on their own
      }
    }
    engine.wakeups().changed(queue);
  }

  /** This server's blocked receives on {@code queue}. */
  int waiting(String queue) {
    return lines.size(queue);
  }

  /** Ends every wait with nothing (engine closing). */
  void releaseAll() {
    lines.releaseAll();
  }
}
