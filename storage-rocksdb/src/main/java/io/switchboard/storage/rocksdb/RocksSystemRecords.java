package io.switchboard.storage.rocksdb;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.spi.SystemRecords;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * {@link SystemRecords} in the journal's default column family, each under {@code record/} and its
 * key. Writes go straight to RocksDB with {@code sync}, whatever the journal's durability mode:
 * they are rare (key management, a first start) and a caller is told "stored" only once they are on
 * disk. They do not go through the journal's writer, so they are not ordered with queue changes,
 * which they never refer to.
 *
 * <p>Every call holds the journal's records lock and checks that it is open; {@link
 * RocksJournal#close} takes the same lock before closing the database, so no call reaches a closed
 * database (which would crash the process, not throw).
 */
final class RocksSystemRecords implements SystemRecords {

  private static final byte[] PREFIX = "record/".getBytes(StandardCharsets.UTF_8);

  private final RocksDB db;
  private final Object lock;
  private final BooleanSupplier closed;
  private final WriteOptions sync = new WriteOptions().setSync(true);
  private final ReadOptions verified = new ReadOptions().setVerifyChecksums(true);

  RocksSystemRecords(RocksDB db, Object lock, BooleanSupplier closed) {
    this.db = db;
    this.lock = lock;
    this.closed = closed;
  }

  @Override
  public Optional<byte[]> get(String key) {
    byte[] k = key(SystemRecords.checkKey(key));
    synchronized (lock) {
      open();
      try {
        return Optional.ofNullable(db.get(verified, k));
      } catch (RocksDBException e) {
        throw new QueueException(ErrorCode.UNAVAILABLE, "cannot read system record " + key, e);
      }
    }
  }

  @Override
  public void put(String key, byte[] value) {
    byte[] k = key(SystemRecords.checkKey(key));
    byte[] v = SystemRecords.checkValue(value).clone();
    synchronized (lock) {
      open();
      try {
        db.put(sync, k, v);
      } catch (RocksDBException e) {
        throw RocksJournal.unavailable("system record", e);
      }
    }
  }

  @Override
  public byte[] putIfAbsent(String key, byte[] value) {
    byte[] k = key(SystemRecords.checkKey(key));
    byte[] v = SystemRecords.checkValue(value).clone();
    synchronized (lock) { // one process holds the store: the lock makes this atomic
      open();
      try {
        byte[] there = db.get(verified, k);
        if (there != null) {
          return there;
        }
        db.put(sync, k, v);
        return v.clone();
      } catch (RocksDBException e) {
        throw RocksJournal.unavailable("system record", e);
      }
    }
  }

  @Override
  public boolean delete(String key) {
    byte[] k = key(SystemRecords.checkKey(key));
    synchronized (lock) {
      open();
      try {
        if (db.get(verified, k) == null) {
          return false;
        }
        db.delete(sync, k);
        return true;
      } catch (RocksDBException e) {
        throw RocksJournal.unavailable("system record", e);
      }
    }
  }

  @Override
  public SortedMap<String, byte[]> list(String prefix) {
    byte[] start = key(SystemRecords.checkPrefix(prefix));
    SortedMap<String, byte[]> out = new TreeMap<>();
    synchronized (lock) {
      open();
      try (RocksIterator it = db.newIterator(verified)) {
        for (it.seek(start); it.isValid(); it.next()) {
          byte[] k = it.key();
          if (!startsWith(k, start)) {
            break;
          }
          out.put(
              new String(k, PREFIX.length, k.length - PREFIX.length, StandardCharsets.UTF_8),
              it.value());
        }
        it.status();
      } catch (RocksDBException e) {
        throw new QueueException(ErrorCode.UNAVAILABLE, "cannot read system records", e);
      }
    }
    return out;
  }

  /** Releases the native options; called by the journal under the lock, before the db closes. */
  void close() {
    sync.close();
    verified.close();
  }

  private void open() {
    if (closed.getAsBoolean()) {
      throw new QueueException(ErrorCode.UNAVAILABLE, "the store is closed");
    }
  }

  private static byte[] key(String key) {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    byte[] out = Arrays.copyOf(PREFIX, PREFIX.length + k.length);
    System.arraycopy(k, 0, out, PREFIX.length, k.length);
    return out;
  }

  private static boolean startsWith(byte[] k, byte[] prefix) {
    return k.length >= prefix.length
        && Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length);
  }
}
