package io.switchboard.server.dispatch;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.time.Clock;
import io.switchboard.time.Scheduler;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;

/**
 * The server's push deliveries over one engine: it opens {@link Subscription}s, each on a virtual
 * thread of its own that waits in the engine's long poll, and runs one timer for all of them that
 * hands back the credit of leases that ran out unsettled (the engine makes those messages available
 * again itself). On manual time that timer runs after every advance.
 */
public final class Dispatcher implements AutoCloseable {

  private final QueueEngine engine;
  private final Clock clock;
  private final ThreadFactory threads =
      Thread.ofVirtual().name("switchboard-dispatch-", 0).factory();
  private final Set<Subscription> open = ConcurrentHashMap.newKeySet();
  private final Scheduler.Repeating leases;

  public Dispatcher(QueueEngine engine) {
    this.engine = engine;
    this.clock = engine.clock();
    this.leases = clock.timers("switchboard-dispatch-leases", this::expireLeases);
  }

  /**
   * Opens a subscription to {@code queue}: from now on it hands {@code sink} the queue's messages
   * as they become available, up to its credit.
   *
   * @throws io.switchboard.queue.QueueException {@code QUEUE_NOT_FOUND} when there is no such
   *     queue; nothing is opened then
   */
  public Subscription subscribe(String queue, ConsumeOptions options, Sink sink) {
    engine.queue(queue); // refuses a queue that does not exist before anything starts
    Subscription s = new Subscription(this, engine, queue, options, sink);
    open.add(s);
    s.start(threads);
    return s;
  }

  /** How many subscriptions are open. */
  public int open() {
    return open.size();
  }

  /** The engine's clock, which leases are kept on. */
  Clock clock() {
    return clock;
  }

  /** A lease that runs out at {@code endMillis} was handed out: the timer must look then. */
  void leased(long endMillis) {
    leases.wakeBy(endMillis);
  }

  void ended(Subscription s) {
    open.remove(s);
  }

  private long expireLeases() {
    long now = clock.millis();
    long next = Long.MAX_VALUE;
    for (Subscription s : open) {
      next = Math.min(next, s.expireLeases(now));
    }
    return next;
  }

  /**
   * Closes every subscription (their leases are released, their sinks told {@code UNAVAILABLE}: the
   * server is stopping) and stops the timer.
   */
  @Override
  public void close() {
    QueueException stopping =
        new QueueException(
            ErrorCode.UNAVAILABLE, "the server is stopping: consume from another server, or retry");
    for (Subscription s : open) {
      s.close();
      s.sink().failed(stopping);
    }
    leases.close();
  }
}
