package io.switchboard.storage.postgres;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Long-poll wakeups across servers. Local waiters park on {@link #await}; a send, release or
 * anything that can make a message eligible calls {@link #changed}. Changes are also published to
 * other servers with {@code NOTIFY}, batched: one publisher thread sends one notification per
 * changed queue per round, outside the writers' transactions, so writers never contend on the
 * notification queue's commit lock. A listener thread holds one connection with {@code LISTEN} and
 * wakes local waiters. When notifications cannot flow (the listener is down, or a transaction-mode
 * pooler is in the way) waiters still poll at {@code pollMillis}.
 */
final class Wakeups implements AutoCloseable {

  static final String CHANNEL = "switchboard_queue";

  /** One notification per queue named in the array, in one statement. */
  static final String NOTIFY = "select pg_notify(?, q) from unnest(?::text[]) q";

  private final Object monitor = new Object();
  private final AtomicLong generation = new AtomicLong();
  private final Set<String> dirty = ConcurrentHashMap.newKeySet();
  private final Supplier<Connection> connections;
  private final boolean notify;
  private volatile boolean closed;
  private @Nullable Thread listener;
  private @Nullable Thread publisher;

  Wakeups(Supplier<Connection> connections, boolean notify) {
    this.connections = connections;
    this.notify = notify;
    if (notify) {
      listener = Thread.ofPlatform().daemon().name("switchboard-pg-listen").start(this::listen);
      publisher = Thread.ofPlatform().daemon().name("switchboard-pg-notify").start(this::publish);
    }
  }

  /** The current generation; pass it to {@link #await} to not miss a change made after it. */
  long generation() {
    return generation.get();
  }

  /** Something changed in {@code queue}: wake local waiters, tell the other servers. */
  void changed(String queue) {
    wakeLocal();
    if (notify) {
      dirty.add(queue);
      synchronized (dirty) {
        dirty.notifyAll();
      }
    }
  }

  void wakeLocal() {
    generation.incrementAndGet();
    synchronized (monitor) {
      monitor.notifyAll();
    }
  }

  /** Parks up to {@code millis} or until a change after generation {@code seen}. */
  void await(long seen, long millis) throws InterruptedException {
    if (millis <= 0) {
      return;
    }
    synchronized (monitor) {
      if (generation.get() == seen && !closed) {
        monitor.wait(millis);
      }
    }
  }

  private void listen() {
    while (!closed) {
      try (Connection c = connections.get();
          Statement s = c.createStatement()) {
        c.setAutoCommit(true);
        s.execute("listen " + CHANNEL);
        PGConnection pg = c.unwrap(PGConnection.class);
        wakeLocal(); // changes made while we were not listening
        while (!closed) {
          PGNotification[] got = pg.getNotifications(500);
          if (got != null && got.length > 0) {
            wakeLocal();
          }
        }
      } catch (Exception e) {
        if (!closed) {
          sleepQuietly(1000); // database away: waiters poll meanwhile; retry listening
        }
      }
    }
  }

  private void publish() {
    while (!closed) {
      try {
        synchronized (dirty) {
          if (dirty.isEmpty()) {
            dirty.wait(500);
          }
        }
        if (dirty.isEmpty() || closed) {
          continue;
        }
        List<String> queues = new ArrayList<>(dirty);
        dirty.removeAll(queues);
        try (Connection c = connections.get();
            java.sql.PreparedStatement ps = c.prepareStatement(NOTIFY)) {
          // one autocommit statement, so one transaction: the round's notifications go out
          // together, in one round trip (it was BEGIN, a statement per queue, COMMIT)
          c.setAutoCommit(true);
          ps.setString(1, CHANNEL);
          ps.setObject(2, queues.toArray(new String[0]));
          ps.execute();
        }
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        dirty.clear(); // the database is away: receivers fall back to polling
        sleepQuietly(1000);
      }
    }
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    closed = true;
    wakeLocal();
    synchronized (dirty) {
      dirty.notifyAll();
    }
    for (Thread t : new Thread[] {listener, publisher}) {
      if (t != null) {
        t.interrupt();
        try {
          t.join(2000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
