package io.switchboard.routing;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The event sequence: ids from 1, the latest {@code capacity} events kept in a ring, and listeners
 * called in id order outside the router's lock.
 *
 * <p>{@link #append} runs under the router's lock, so ids follow the order of changes. Delivery to
 * listeners happens in {@link #deliver}, called after the lock is released: events wait in a
 * lock-free queue, and whichever thread finds no other delivering drains it, so each listener sees
 * every event once, in order, and a slow listener never holds the router's lock.
 */
final class EventLog {

  private static final System.Logger LOG = System.getLogger(EventLog.class.getName());

  private final RoutingEvent[] ring;
  private long lastId;
  private long firstId = 1;
  private final List<Consumer<? super RoutingEvent>> listeners = new CopyOnWriteArrayList<>();
  private final ConcurrentLinkedQueue<RoutingEvent> undelivered = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean delivering = new AtomicBoolean();

  EventLog(int capacity) {
    this.ring = new RoutingEvent[capacity];
  }

  /** Before any event: the first id will be {@code last + 1} (ids before a restart are spent). */
  void continueAfter(long last) {
    lastId = last;
    firstId = last + 1;
  }

  long lastId() {
    return lastId;
  }

  /** Under the router's lock: assigns the next id and keeps the event. */
  RoutingEvent append(long now, EventFactory factory) {
    RoutingEvent event = factory.create(++lastId, Instant.ofEpochMilli(now));
    ring[(int) ((lastId - 1) % ring.length)] = event;
    if (!listeners.isEmpty()) {
      undelivered.add(event);
    }
    return event;
  }

  /** Makes an event from its id and time. */
  @FunctionalInterface
  interface EventFactory {
    RoutingEvent create(long id, Instant at);
  }

  /** Under the router's lock. */
  EventPage page(long afterId, int limit) {
    long oldest = Math.max(firstId, lastId - ring.length + 1);
    long from = Math.max(afterId + 1, oldest);
    boolean missed = afterId + 1 < oldest;
    List<RoutingEvent> events = new ArrayList<>();
    for (long id = from; id <= lastId && events.size() < limit; id++) {
      events.add(ring[(int) ((id - 1) % ring.length)]);
    }
    return new EventPage(events, missed, lastId);
  }

  Router.Subscription subscribe(Consumer<? super RoutingEvent> listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** Outside the router's lock: hands queued events to the listeners. */
  void deliver() {
    while (!undelivered.isEmpty() && delivering.compareAndSet(false, true)) {
      try {
        RoutingEvent event;
        while ((event = undelivered.poll()) != null) {
          for (Consumer<? super RoutingEvent> listener : listeners) {
            try {
              listener.accept(event);
            } catch (RuntimeException e) {
              LOG.log(System.Logger.Level.WARNING, "routing event listener failed", e);
            }
          }
        }
      } finally {
        delivering.set(false);
      }
    }
  }
}
