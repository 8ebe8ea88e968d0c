package io.switchboard.storage.rocksdb;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Env;
import org.rocksdb.Options;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileManager;

/**
 * What a store needs of the file system that holds it, sized from that file system
 * (docs/storage.md, "Disk space"):
 *
 * <ul>
 *   <li>the <b>memtable</b> (RocksDB's {@code write_buffer_size}): 1/16 of the file system, at
 *       least 4 MiB and at most 64 MiB (RocksDB's default, kept on every file system of 1 GiB or
 *       more). It is also what RocksDB wants free before it writes again after a failed write (its
 *       {@code SstFileManager} reserves the largest memtable). The write-ahead logs are held to
 *       four memtables in all ({@link #walLimit}). On a file system smaller than 1 GiB all the
 *       memtables together are held to one, the logs to two, and logs are not preallocated.
 *   <li>the <b>reserve</b>: two memtables. Below it sends are refused ({@code UNAVAILABLE}, retried
 *       by clients) before they are written, so the store itself never fills its disk: acks,
 *       deletes, flushes and compactions still have room, and the store does not reach RocksDB's
 *       hard failure on its own. As soon as the reserve is free again, sends are accepted.
 *   <li>the <b>floor</b>: a quarter of a memtable. Below it (another program filled the disk) the
 *       store writes nothing ({@link #fullNow}) and the engine refuses every change up front.
 * </ul>
 *
 * While less than the reserve is free, the engine also waits for each ack, delete and visibility
 * change to be stored before answering ({@link RocksJournal#confirmChanges}); that is read from a
 * reading at most 50 ms old. Whether the disk is full is read anew before each change and each
 * write ({@link #fullNow}).
 */
final class DiskSpace {

  static final long MIB = 1L << 20;

  /** RocksDB's default {@code write_buffer_size}: the memtable on any file system of 1 GiB+. */
  static final long MAX_MEMTABLE = 64 * MIB;

  /** The smallest memtable: smaller ones would flush tiny table files all the time. */
  static final long MIN_MEMTABLE = 4 * MIB;

  private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private static final System.Logger LOG = System.getLogger(DiskSpace.class.getName());

  private final @Nullable FileStore fileStore;
  private final long total;
  private final long memtable;
  private final long reserve;
  private final long floor;

  /** Held while free space is read, so that callers waiting for a reading share one. */
  private final ReentrantLock reading = new ReentrantLock();

  /** When the last reading began ({@link System#nanoTime}); written under {@link #reading}. */
  private volatile long readAt = System.nanoTime() - 2 * RECHECK_NANOS;

  private volatile long free = Long.MAX_VALUE;
  private volatile boolean refusing;

  DiskSpace(@Nullable FileStore fileStore, long total) {
    this.fileStore = fileStore;
    this.total = total;
    this.memtable = memtableFor(total);
    this.reserve = 2 * memtable;
    this.floor = memtable / 4;
  }

  /**
   * The file system holding {@code dir} (which exists); sized as if unknown if it cannot be read.
   */
  static DiskSpace of(Path dir) {
    try {
      FileStore store = Files.getFileStore(dir);
      return new DiskSpace(store, store.getTotalSpace());
    } catch (IOException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "cannot read the size of the file system holding " + dir + "; sized as a large one",
          e);
      return new DiskSpace(null, 0);
    }
  }

  /** The memtable for a file system of {@code total} bytes (0: unknown, sized as a large one). */
  static long memtableFor(long total) {
    if (total <= 0) {
      return MAX_MEMTABLE;
    }
    return Math.max(MIN_MEMTABLE, Math.min(MAX_MEMTABLE, total / 16));
  }

  long memtable() {
    return memtable;
  }

  /** The size of the file system, in bytes; 0 when it cannot be read. */
  long total() {
    return total;
  }

  /** Free space below which sends are refused. */
  long reserve() {
    return reserve;
  }

  /** Free space below which nothing is written. */
  long floor() {
    return floor;
  }

  /** Whether the memtable is smaller than RocksDB's default (a file system under 1 GiB). */
  private boolean small() {
    return memtable < MAX_MEMTABLE;
  }

  /**
   * Sizes the memtables. On a small file system also bounds the memtables and the logs in total (a
   * log is deleted once its memtables are flushed, and older logs force that flush), turns off
   * preallocating each log (RocksDB reserves 1.1 memtables per log with {@code fallocate}, which on
   * a small disk takes room the store may never use), and postpones a compaction that would not
   * fit: RocksDB's {@code SstFileManager} runs one only while the table files, the compaction's
   * inputs (about what it writes before it deletes them) and the reserve fit in the file system. A
   * compaction that ran out of space anyway took the last free bytes while it wrote, so a log write
   * in that instant failed too, and RocksDB, busy recovering from the compaction's error (which it
   * clears only with room for another try), never wrote again.
   *
   * @return the {@code SstFileManager} to close after the store, if one was made
   */
  @Nullable SstFileManager apply(DBOptions db, ColumnFamilyOptions cf) {
    cf.setWriteBufferSize(memtable);
    db.setMaxTotalWalSize(walLimit());
    if (!small()) {
      return null;
    }
    db.setDbWriteBufferSize(memtable).setAllowFAllocate(false);
    try {
      SstFileManager files = new SstFileManager(Env.getDefault());
      files.setMaxAllowedSpaceUsage(total);
      files.setCompactionBufferSize(reserve);
      db.setSstFileManager(files);
      return files;
    } catch (RocksDBException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "cannot make an SstFileManager; compactions are not held back on this small disk",
          e);
      return null;
    }
  }

  /** As {@link #apply(DBOptions, ColumnFamilyOptions)}, for a store opened with plain options. */
  void apply(Options options) {
    options.setWriteBufferSize(memtable).setMaxTotalWalSize(walLimit());
    if (small()) {
      options.setDbWriteBufferSize(memtable).setAllowFAllocate(false);
    }
  }

  /**
   * The write-ahead logs' total size past which RocksDB flushes the families that keep the oldest
   * log: four memtables (two on a small file system). A log is deleted only once every family with
   * writes in it has flushed them, and a family written little (a queue's states, its
   * configuration) flushes seldom; without a bound RocksDB keeps logs up to four times all the
   * families' memtables (4 GiB here), so a store just filled held as much log as messages and a
   * crash replayed all of it.
   */
  long walLimit() {
    return (small() ? 2 : 4) * memtable;
  }

  /**
   * Refuses a write that makes the store grow (a send) while less than the {@link #reserve} is
   * free: {@code UNAVAILABLE}, which clients retry. The message names sizes, never the path.
   */
  void checkRoomToGrow() {
    if (low()) {
      throw new QueueException(
          ErrorCode.UNAVAILABLE,
          "the disk holding the store is nearly full ("
              + mib(free)
              + " free, sends need "
              + mib(reserve)
              + "): sends are refused until space is freed; retry later");
    }
  }

  /**
   * Whether less than the {@link #reserve} is free, from a reading at most 50 ms old (no lock
   * unless that reading is older: sends ask this, and acks while it is true wait to be stored).
   */
  boolean low() {
    long now = System.nanoTime();
    if (fileStore != null && now - readAt >= RECHECK_NANOS) {
      freeReadSince(now - RECHECK_NANOS);
    }
    return refusing;
  }

  /**
   * Whether less than the {@link #floor} is free, from a reading that began after this call did
   * (one {@code statvfs}, about 3 µs, shared by every caller that was waiting for it). Asked before
   * every change the engine is to make and before every write: a disk that another program filled
   * before a change came in is seen, and the change refused before it is made, rather than answered
   * and then held in memory unwritten. A log write that fails for want of space can also leave
   * RocksDB's log writer failed for good (its recovery from the error does not always start a new
   * log), so the store does not try one it can see would fail.
   */
  boolean fullNow() {
    return freeReadSince(System.nanoTime()) < floor;
  }

  /**
   * Free space from a reading that began at or after {@code since} ({@link System#nanoTime}): the
   * last one if it did, else a new one ({@code Long.MAX_VALUE} when the file system cannot be
   * read). Callers that queue here while one reads share its reading when it began after them, so a
   * burst of callers costs about two readings.
   */
  private long freeReadSince(long since) {
    FileStore store = fileStore;
    if (store == null) {
      return Long.MAX_VALUE;
    }
    reading.lock();
    try {
      if (readAt - since < 0) {
        readAt = System.nanoTime();
        read(store);
      }
      return free;
    } finally {
      reading.unlock();
    }
  }

  private void read(FileStore store) {
    long available;
    try {
      available = store.getUsableSpace();
    } catch (IOException e) {
      available = Long.MAX_VALUE; // cannot tell: let writes try (a full disk then fails them)
    }
    free = available;
    boolean low = available < reserve;
    if (low != refusing) {
      refusing = low;
      LOG.log(
          low ? System.Logger.Level.WARNING : System.Logger.Level.INFO,
          low
              ? "the disk holding the store is nearly full ("
                  + mib(available)
                  + " free of "
                  + mib(total)
                  + "): sends are refused and each change waits to be stored until "
                  + mib(reserve)
                  + " is free"
              : "the disk holding the store has room again ("
                  + mib(available)
                  + " free): sends resume");
    }
  }

  static String mib(long bytes) {
    return String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / (double) MIB);
  }
}
