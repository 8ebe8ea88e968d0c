package io.switchboard.storage.rocksdb;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.spi.Journal;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
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
 * <p>On a failed write (disk full, I/O error: a {@link RocksDBException}) the sends in the batch
 * fail with {@code UNAVAILABLE} and leave no trace (the engine queues a send only after its write);
 * the fire-and-forget entries (receives, acks) are kept, in order, and retried until the store
 * accepts them again. Until then {@link #problem} says that the store cannot write, and the cause
 * (which names the file) is logged here, never shown to a client.
 *
 * <p>While the disk holding the store is full (less than {@link DiskSpace#floor} free, read before
 * each write) the writer writes nothing: waiting appends fail with {@code UNAVAILABLE} and the
 * others are held as after a failed write, since a log write that fails for want of space may leave
 * RocksDB unable to write until a restart.
 *
 * <p>Anything else that goes wrong (an entry that cannot be encoded, an {@link Error}) is not
 * retried: the writer fails every send waiting on it, stops, and refuses every later append at once
 * with {@code UNAVAILABLE} ("the store has failed"), so nothing hangs and nothing is acknowledged
 * that is not stored. A waiting send gives up after {@code awaitTimeout}.
 */
final class GroupCommitWriter<E> {

  private static final System.Logger LOG = System.getLogger(GroupCommitWriter.class.getName());

  /** Adds one entry to a write batch. */
  @FunctionalInterface
  interface Applier<E> {
    void apply(WriteBatch batch, E entry) throws RocksDBException;
  }

  /** Writes a batch to the store ({@link RocksDB#write}; tests inject failures here). */
  @FunctionalInterface
  interface Sink {
    void write(WriteOptions options, WriteBatch batch) throws RocksDBException;
  }

  /**
   * Appended entries; {@code done} completes when they are written (a send's, {@code durable}: then
   * synced as the mode says), or when a barrier's turn comes ({@code durable} false, no entries).
   */
  private record Pending<E>(
      List<E> entries, @Nullable CompletableFuture<Void> done, boolean durable) {}

  /** How long a send waits for its write by default before it fails. */
  static final Duration AWAIT_TIMEOUT = Duration.ofSeconds(30);

  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final String name;
  private final RocksDB db;
  private final Sink sink;
  private final Durability durability;
  private final Applier<E> applier;
  private final Duration awaitTimeout;
  private final BooleanSupplier diskFull;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition work = lock.newCondition();
  private final ArrayDeque<Pending<E>> queue = new ArrayDeque<>();
  private final WriteOptions syncWrite = new WriteOptions().setSync(true);
  private final WriteOptions plainWrite = new WriteOptions().setSync(false);
  private final Thread thread;
  private boolean closing;

  /** The writer has taken a group and not finished writing it. Guarded by lock. */
  private boolean writing;

  private boolean unsynced;
  private long lastSync = System.nanoTime();

  /** Why writes fail right now (cleared by the next good write); null while they succeed. */
  private volatile @Nullable String writeFailure;

  /** Why the writer stopped for good; null while it runs. Guarded by lock for writes. */
  private volatile @Nullable String failed;

  GroupCommitWriter(
      String name,
      RocksDB db,
      Sink sink,
      Durability durability,
      Applier<E> applier,
      Duration awaitTimeout,
      BooleanSupplier diskFull) {
    this.name = name;
    this.diskFull = diskFull;
    this.db = db;
    this.sink = sink;
    this.durability = durability;
    this.applier = applier;
    this.awaitTimeout = awaitTimeout;
    this.thread =
        Thread.ofPlatform()
            .daemon()
            .name("switchboard-" + name)
            .uncaughtExceptionHandler((t, e) -> stopFor(e, List.of()))
            .start(this::run);
  }

  /**
   * What keeps the store from writing, if anything: {@code "store cannot write"} while writes fail
   * (disk full, I/O error), or {@code "store failed"} once the writer has stopped.
   */
  Optional<String> problem() {
    if (failed != null) {
      return Optional.of("store failed");
    }
    return writeFailure == null ? Optional.empty() : Optional.of("store cannot write");
  }

  Journal.Ticket append(List<E> entries, boolean durable) {
    CompletableFuture<Void> done = durable ? new CompletableFuture<>() : null;
    lock.lock();
    try {
      if (failed != null) {
        throw storeFailed();
      }
      if (closing) {
        throw new QueueException(ErrorCode.UNAVAILABLE, "the store is closed");
      }
      queue.addLast(new Pending<>(entries, done, durable));
      work.signal();
    } finally {
      lock.unlock();
    }
    return done == null ? Journal.DONE : () -> await(done);
  }

  /**
   * Waits until everything appended before the call is written to RocksDB (visible to its reads),
   * without asking for an fsync: at once when nothing is queued or being written. Throws {@code
   * UNAVAILABLE} as a send would when the writer has stopped or does not write within the timeout.
   */
  void awaitWritten() {
    CompletableFuture<Void> done;
    lock.lock();
    try {
      if (queue.isEmpty() && !writing) {
        return;
      }
      if (failed != null) {
        throw storeFailed();
      }
      done = new CompletableFuture<>();
      queue.addLast(new Pending<>(List.of(), done, false));
      work.signal();
    } finally {
      lock.unlock();
    }
    await(done);
  }

  private void await(CompletableFuture<Void> done) {
    try {
      done.get(awaitTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof QueueException q) {
        throw new QueueException(
            q.code(), Objects.requireNonNull(q.getMessage(), "its message"), q);
      }
      throw new QueueException(ErrorCode.UNAVAILABLE, "the store cannot write; retry later", e);
    } catch (TimeoutException e) {
      throw new QueueException(
          ErrorCode.UNAVAILABLE,
          "the store did not confirm the write within "
              + awaitTimeout.toMillis()
              + " ms; retry later (the write may still be stored)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QueueException(ErrorCode.UNAVAILABLE, "interrupted while waiting for the store");
    }
  }

  private QueueException storeFailed() {
    return new QueueException(
        ErrorCode.UNAVAILABLE,
        "the store has failed and accepts no writes until the server restarts; retry later");
  }

  private void run() {
    List<Pending<E>> group = new ArrayList<>();
    try {
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
          writing = !group.isEmpty();
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
        lock.lock();
        try {
          writing = false;
        } finally {
          lock.unlock();
        }
      }
    } catch (Throwable e) {
      stopFor(e, group);
    }
  }

  /**
   * The writer cannot go on: fails the given group's sends and every queued one, refuses later
   * appends, and logs why. Called on the writer thread (or its uncaught-exception handler).
   */
  private void stopFor(Throwable cause, List<Pending<E>> group) {
    List<Pending<E>> waiting = new ArrayList<>(group);
    lock.lock();
    try {
      if (failed == null) {
        failed = String.valueOf(cause);
      }
      waiting.addAll(queue);
      queue.clear();
    } finally {
      lock.unlock();
    }
    QueueException error = storeFailed();
    int lostPlain = 0;
    for (Pending<E> p : waiting) {
      if (p.done != null) {
        p.done.completeExceptionally(error);
      } else {
        lostPlain += p.entries.size();
      }
    }
    LOG.log(
        System.Logger.Level.ERROR,
        "the "
            + name
            + " writer stopped: no more writes are accepted until the server restarts; "
            + waiting.size()
            + " waiting appends failed ("
            + lostPlain
            + " receive/ack entries not stored: those messages are delivered again after the"
            + " restart)",
        cause);
  }

  private long syncIntervalNanos() {
    return durability.interval().toNanos();
  }

  private void write(List<Pending<E>> group) {
    if (diskFull.getAsBoolean()) {
      hold(
          group,
          new QueueException(
              ErrorCode.UNAVAILABLE,
              "the disk holding the store is full: the store writes nothing until space is freed;"
                  + " retry later"));
      return;
    }
    boolean waitingSends = false;
    try (WriteBatch batch = new WriteBatch()) {
      for (Pending<E> p : group) {
        waitingSends |= p.durable;
        for (E e : p.entries) {
          applier.apply(batch, e);
        }
      }
      boolean sync = waitingSends && durability.mode() == Durability.Mode.SYNC;
      sink.write(sync ? syncWrite : plainWrite, batch);
      if (sync) {
        unsynced = false;
        lastSync = System.nanoTime();
      } else {
        unsynced = true;
      }
      if (writeFailure != null) {
        LOG.log(System.Logger.Level.INFO, "the " + name + " store writes again");
        writeFailure = null;
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
    } catch (RocksDBException e) {
      fail(group, e);
    }
  }

  /**
   * Fails the sends of a failed group and requeues its other entries, in order, for a retry. The
   * first failure of a run of them is logged with RocksDB's message (which names the file).
   */
  private void fail(List<Pending<E>> group, RocksDBException cause) {
    if (writeFailure == null) {
      LOG.log(
          System.Logger.Level.ERROR,
          "the "
              + name
              + " store cannot write; sends are refused and other changes retried until it"
              + " can: "
              + cause.getMessage(),
          cause);
    }
    writeFailure = String.valueOf(cause.getMessage());
    hold(group, RocksJournal.unavailable("send", cause));
  }

  /**
   * Fails the waiting appends of a group that was not written with {@code error}, and requeues its
   * other entries, in order, to be tried again in 100 ms.
   */
  private void hold(List<Pending<E>> group, QueueException error) {
    List<Pending<E>> retry = new ArrayList<>();
    for (Pending<E> p : group) {
      if (p.done != null && p.durable) {
        p.done.completeExceptionally(error);
      } else {
        retry.add(p); // a barrier is retried with the entries before it
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
    if (failed == null) {
      syncNow();
    }
    syncWrite.close();
    plainWrite.close();
  }
}
