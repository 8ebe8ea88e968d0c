package io.switchboard.server.dispatch;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One consumer's push delivery from one queue. Its thread waits in the engine's receive (a long
 * poll: a send, a release or a lease running out wakes it, no timer polls), takes at most as many
 * messages as its credit has room for, and hands them to the sink in delivery order. Each message
 * holds a unit of credit until the consumer settles it ({@link #ack}, {@link #release}) or its
 * lease runs out; {@link #credit} changes the credit. Leases are the engine's: a message not
 * settled in time comes back as any leased message does, and is dead-lettered after the queue's
 * receive count.
 *
 * <p>{@link #close} releases every lease it holds at once, so another consumer gets those messages
 * without waiting out their visibility timeout.
 */
public final class Subscription implements AutoCloseable {

  /** How long a close waits for the subscription's thread to leave the engine. */
  private static final Duration STOP_WAIT = Duration.ofSeconds(10);

  private final Dispatcher dispatcher;
  private final QueueEngine engine;
  private final String queue;
  private final ConsumeOptions options;
  private final Sink sink;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition room = lock.newCondition();

  /** Receipts handed out and not settled, with the end of each lease (clock millis). */
  private final Map<String, Long> held = new LinkedHashMap<>();

  private int credit;
  private boolean closed;
  private @Nullable Thread thread;

  Subscription(
      Dispatcher dispatcher, QueueEngine engine, String queue, ConsumeOptions options, Sink sink) {
    this.dispatcher = dispatcher;
    this.engine = engine;
    this.queue = queue;
    this.options = options;
    this.sink = sink;
    this.credit = options.credit();
  }

  void start(ThreadFactory threads) {
    Thread t = threads.newThread(this::run);
    thread = t;
    t.start();
  }

  public String queue() {
    return queue;
  }

  Sink sink() {
    return sink;
  }

  /** The credit now. */
  public int credit() {
    lock.lock();
    try {
      return credit;
    } finally {
      lock.unlock();
    }
  }

  /** How many messages it holds leased and unsettled. */
  public int held() {
    lock.lock();
    try {
      return held.size();
    } finally {
      lock.unlock();
    }
  }

  /** Sets the credit (1 or more); room it makes is filled as messages become available. */
  public void credit(int credit) {
    if (credit < 1) {
      throw new IllegalArgumentException("credit must be 1 or more, got " + credit);
    }
    lock.lock();
    try {
      this.credit = credit;
      room.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Acks (deletes) a message; its credit comes back. As {@link QueueEngine#ack}. */
  public void ack(String receipt) {
    settle(receipt, () -> engine.ack(queue, receipt));
  }

  /**
   * Acks several messages in one engine call ({@link QueueEngine#ackAll}: one durable write), each
   * on its own; the credit of each that is acked, or whose receipt holds no lease any more, comes
   * back. One outcome per receipt, in order.
   */
  public List<java.util.Optional<QueueException>> ackAll(List<String> receipts) {
    List<java.util.Optional<QueueException>> outcomes;
    try {
      outcomes = engine.ackAll(queue, receipts);
    } catch (QueueException e) {
      outcomes = receipts.stream().map(r -> java.util.Optional.of(e)).toList();
    }
    for (int i = 0; i < receipts.size(); i++) {
      var failed = outcomes.get(i);
      if (failed.isEmpty()
          || (failed.get().code() != ErrorCode.UNAVAILABLE
              && failed.get().code() != ErrorCode.SERVER_FULL)) {
        forget(receipts.get(i));
      }
    }
    return outcomes;
  }

  /** Hands a message back; its credit comes back. As {@link QueueEngine#release}. */
  public void release(String receipt, Duration delay, boolean toBack) {
    settle(receipt, () -> engine.release(queue, receipt, delay, toBack));
  }

  /**
   * Sends a message to the queue's dead-letter queue; its credit comes back. As {@link
   * QueueEngine#deadLetter}.
   */
  public void deadLetter(String receipt) {
    settle(receipt, () -> engine.deadLetter(queue, receipt));
  }

  /** Extends a lease; the message keeps its credit. As {@link QueueEngine#extend}. */
  public Message extend(String receipt, Duration visibilityTimeout) {
    Message m = engine.extend(queue, receipt, visibilityTimeout);
    long end = leaseEnd(m);
    lock.lock();
    try {
      if (held.replace(receipt, end) != null) {
        dispatcher.leased(end);
      }
    } finally {
      lock.unlock();
    }
    return m;
  }

  private void settle(String receipt, Runnable action) {
    try {
      action.run();
    } catch (QueueException e) {
      if (e.code() != ErrorCode.UNAVAILABLE && e.code() != ErrorCode.SERVER_FULL) {
        forget(receipt); // the receipt holds no lease any more (stale, or its message is gone)
      }
      throw e;
    }
    forget(receipt);
  }

  private void forget(String receipt) {
    lock.lock();
    try {
      if (held.remove(receipt) != null) {
        room.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Hands back the credit of leases that ran out by {@code now}; returns when the next one runs out
   * ({@code Long.MAX_VALUE} if none).
   */
  long expireLeases(long now) {
    lock.lock();
    try {
      boolean freed = held.values().removeIf(end -> end <= now);
      if (freed) {
        room.signalAll();
      }
      long next = Long.MAX_VALUE;
      for (long end : held.values()) {
        next = Math.min(next, end);
      }
      return next;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops taking messages and releases every lease it holds (a release that fails is left to run
   * out). Idempotent.
   */
  @Override
  public void close() {
    close(true);
  }

  /**
   * Stops taking messages but keeps the leases it holds: the owner settles what it was handed (the
   * settle methods work after a stop), or those leases run out. Idempotent; a later {@link #close}
   * does nothing.
   */
  public void stop() {
    close(false);
  }

  private void close(boolean releaseLeases) {
    List<String> leased;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      leased = releaseLeases ? new ArrayList<>(held.keySet()) : List.of();
      if (releaseLeases) {
        held.clear();
      }
      room.signalAll();
    } finally {
      lock.unlock();
    }
    Thread t = thread;
    if (t != null && t != Thread.currentThread()) {
      // end its wait in the engine's receive first: a release made while it waits would hand the
      // message straight back to it (it releases what it took after the close itself)
      t.interrupt();
      try {
        t.join(STOP_WAIT.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    releaseQuietly(leased);
    dispatcher.ended(this);
  }

  public boolean closed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  private void run() {
    try {
      while (true) {
        int free;
        lock.lock();
        try {
          while (!closed && credit - held.size() <= 0) {
            room.await();
          }
          if (closed) {
            return;
          }
          free = credit - held.size();
        } finally {
          lock.unlock();
        }
        Pace pace = options.pace();
        int granted = pace.permits(Math.min(free, ReceiveRequest.MAX_MESSAGES));
        List<Message> got;
        try {
          got = receiveBatch(granted);
        } catch (QueueException e) {
          pace.taken(granted, 0);
          if (!closed()) {
            close();
            sink.failed(e);
          }
          return;
        }
        pace.taken(granted, got.size());
        if (!take(got)) {
          releaseQuietly(got.stream().flatMap(m -> m.receipt().stream()).toList());
          return;
        }
        if (!got.isEmpty()) {
          sink.deliverBatch(got);
        }
      }
    } catch (InterruptedException e) {
      // closed while waiting for room or for the pace
    } finally {
      dispatcher.ended(this);
    }
  }

  /**
   * One receive of up to {@code max} messages (a long poll), and with a batch window, more receives
   * until {@code max} are taken or the window, counted from the first message, ends. What was taken
   * is released when a later receive fails.
   */
  private List<Message> receiveBatch(int max) {
    List<Message> got = engine.receive(queue, request(max, options.pace().receiveWait()));
    Duration window = options.batchWindow();
    if (got.isEmpty() || window.isZero() || got.size() >= max) {
      return got;
    }
    List<Message> all = new ArrayList<>(got);
    long end = dispatcher.clock().millis() + window.toMillis();
    try {
      while (all.size() < max && !closed()) {
        long left = end - dispatcher.clock().millis();
        if (left <= 0) {
          break;
        }
        Duration wait = Duration.ofMillis(Math.min(left, QueueConfig.MAX_RECEIVE_WAIT.toMillis()));
        all.addAll(engine.receive(queue, request(max - all.size(), wait)));
      }
    } catch (QueueException e) {
      releaseQuietly(all.stream().flatMap(m -> m.receipt().stream()).toList());
      throw e;
    }
    return all;
  }

  /** Records what a receive leased; false when the subscription closed meanwhile. */
  private boolean take(List<Message> got) {
    lock.lock();
    try {
      if (closed) {
        return false;
      }
      long first = Long.MAX_VALUE;
      for (Message m : got) {
        long end = leaseEnd(m);
        held.put(m.receipt().orElseThrow(), end);
        first = Math.min(first, end);
      }
      if (first != Long.MAX_VALUE) {
        dispatcher.leased(first);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  private ReceiveRequest request(int max, Duration wait) {
    ReceiveRequest.Builder b = ReceiveRequest.builder().maxMessages(max).waitTime(wait);
    options.visibilityTimeout().ifPresent(b::visibilityTimeout);
    options.filter().ifPresent(b::filter);
    return b.build();
  }

  private long leaseEnd(Message m) {
    return m.visibleAt().map(t -> t.toEpochMilli()).orElseGet(() -> dispatcher.clock().millis());
  }

  private void releaseQuietly(List<String> receipts) {
    for (String receipt : receipts) {
      try {
        engine.release(queue, receipt);
      } catch (QueueException e) {
        // gone or stale: nothing is held by it any more; else its lease runs out on its own
      }
    }
  }
}
