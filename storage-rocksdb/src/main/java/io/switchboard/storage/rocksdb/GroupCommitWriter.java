package io.switchboard.storage.rocksdb;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.spi.Journal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The one thread that writes to RocksDB. It takes everything appended since its last write, in
 * append order, into one write batch: one fsync then covers every send waiting in it, so with many
 * concurrent producers the cost of a sync is shared (group commit), and the store sees changes in
 * exactly the order the engine made them.
 *
 * <p>On a failed write (disk full, I/O error) the sends in the batch fail with {@code UNAVAILABLE}
 * and leave no trace (the engine queues a send only after its write); the fire-and-forget entries
 * (receives, acks) are kept, in order, and retried until the store accepts them again.
 */
final class GroupCommitWriter<E> {

  /** Adds one entry to a write batch. */
  @FunctionalInterface
  interface Applier<E> {
    void apply(WriteBatch batch, E entry) throws RocksDBException;
  }

  private record Pending<E>(List<E> entries, CompletableFuture<Void> done) {}

  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final RocksDB db;
  private final Durability durability;
  private final Applier<E> applier;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition work = lock.newCondition();
  private final ArrayDeque<Pending<E>> queue = new ArrayDeque<>();
  private final WriteOptions syncWrite = new WriteOptions().setSync(true);
  private final WriteOptions plainWrite = new WriteOptions().setSync(false);
  private final Thread thread;
  private boolean closing;
  private boolean unsynced;
  private long lastSync = System.nanoTime();

  GroupCommitWriter(RocksDB db, Durability durability, Applier<E> applier) {
    this.db = db;
    this.durability = durability;
    this.applier = applier;
    this.thread = Thread.ofPlatform().daemon().name("switchboard-journal").start(this::run);
  }

  Journal.Ticket append(List<E> entries, boolean durable) {
    CompletableFuture<Void> done = durable ? new CompletableFuture<>() : null;
    lock.lock();
    try {
      if (closing) {
        throw new QueueException(ErrorCode.UNAVAILABLE, "the store is closed");
      }
      queue.addLast(new Pending<>(entries, done));
      work.signal();
    } finally {
      lock.unlock();
    }
    return done == null ? Journal.DONE : () -> await(done);
  }

  private static void await(CompletableFuture<Void> done) {
    try {
      done.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof QueueException q) {
        throw new QueueException(q.code(), q.getMessage(), q);
      }
      throw new QueueException(ErrorCode.UNAVAILABLE, "storage write failed: " + e.getCause(), e);
    }
  }

  private void run() {
    List<Pending<E>> group = new ArrayList<>();
    while (true) {
      boolean stop;
      lock.lock();
      try {
        while (queue.isEmpty() && !closing) {
          if (!unsynced || durability.mode() == Durability.Mode.NONE) {
            work.awaitUninterruptibly();
          } else {
            long wait = syncIntervalNanos() - (System.nanoTime() - lastSync);
            if (wait <= 0) {
              break;
            }
            try {
              work.awaitNanos(wait);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        }
        group.addAll(queue);
        queue.clear();
        stop = closing && group.isEmpty();
      } finally {
        lock.unlock();
      }
      if (stop) {
        return;
      }
      if (group.isEmpty()) {
        syncNow();
        continue;
      }
      write(group);
      group.clear();
    }
  }

  private long syncIntervalNanos() {
    return durability.interval().toNanos();
  }

  private void write(List<Pending<E>> group) {
    boolean waitingSends = false;
    try (WriteBatch batch = new WriteBatch()) {
      for (Pending<E> p : group) {
        waitingSends |= p.done != null;
        for (E e : p.entries) {
          applier.apply(batch, e);
        }
      }
      boolean sync = waitingSends && durability.mode() == Durability.Mode.SYNC;
      db.write(sync ? syncWrite : plainWrite, batch);
      if (sync) {
        unsynced = false;
        lastSync = System.nanoTime();
      } else {
        unsynced = true;
      }
      for (Pending<E> p : group) {
        if (p.done != null) {
          p.done.complete(null);
        }
      }
      if (unsynced
          && System.nanoTime() - lastSync >= syncIntervalNanos()
          && durability.mode() != Durability.Mode.NONE) {
        syncNow();
      }
    } catch (RocksDBException | RuntimeException e) {
      fail(group, e);
    }
  }

  /** Fails the sends of a failed group and requeues its other entries, in order, for a retry. */
  private void fail(List<Pending<E>> group, Exception cause) {
    List<Pending<E>> retry = new ArrayList<>();
    for (Pending<E> p : group) {
      if (p.done != null) {
        p.done.completeExceptionally(RocksJournal.unavailable("send", cause));
      } else {
        retry.add(p);
      }
    }
    lock.lock();
    try {
      if (closing) {
        return; // shutting down on a failing store: these entries only cost a redelivery
      }
      for (int i = retry.size() - 1; i >= 0; i--) {
        queue.addFirst(retry.get(i));
      }
      if (!retry.isEmpty()) {
        work.awaitNanos(RETRY_NANOS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
    }
  }

  private void syncNow() {
    if (!unsynced) {
      return;
    }
    try {
      db.syncWal();
      unsynced = false;
      lastSync = System.nanoTime();
    } catch (RocksDBException e) {
      lastSync = System.nanoTime(); // retried at the next interval
    }
  }

  /** Writes what is queued, syncs, and stops the thread. */
  void close() {
    lock.lock();
    try {
      closing = true;
      work.signal();
    } finally {
      lock.unlock();
    }
    try {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    syncNow();
    syncWrite.close();
    plainWrite.close();
  }
}
