package io.switchboard.storage.rocksdb;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/**
 * A store that is damaged (a checksum that does not match, a table file or log cut short, a damaged
 * MANIFEST): opening it is refused, nothing in it is changed, and the message names the file (when
 * RocksDB names it) and the way out: {@code switchboard store verify} to see the damage, {@code
 * switchboard store salvage} to copy what is readable to a new directory.
 */
public final class StoreDamagedException extends IllegalStateException {

  private final Path dataDir;

  /**
   * @param dataDir the server's data directory (what the commands take)
   * @param store the damaged store's directory (the data directory, or its {@code routing} store)
   * @param detail what RocksDB said (names the file when it knows it)
   */
  StoreDamagedException(
      Path dataDir, Path store, @Nullable String detail, @Nullable Throwable cause) {
    super(message(dataDir, store, detail), cause);
    this.dataDir = dataDir;
  }

  public Path dataDir() {
    return dataDir;
  }

  static String message(Path dataDir, Path store, @Nullable String detail) {
    return "the store in "
        + store
        + " is damaged: "
        + detail
        + ". Switchboard did not start and changed nothing. See the damage with `switchboard store"
        + " verify --data-dir "
        + dataDir
        + "`; copy what is readable to a new directory with `switchboard store salvage --data-dir "
        + dataDir
        + " --to NEW_DIR` (it lists what was lost), then start with --data-dir NEW_DIR (see"
        + " docs/operations.md, \"When the store is damaged\")";
  }

  /** Whether RocksDB's error means damaged data rather than, say, a lock or a permission. */
  static boolean isDamage(RocksDBException e) {
    Status s = e.getStatus();
    if (s != null && s.getCode() == Status.Code.Corruption) {
      return true;
    }
    String m = String.valueOf(e.getMessage());
    return m.startsWith("Corruption") || m.contains("checksum mismatch") || m.contains("truncated");
  }
}
