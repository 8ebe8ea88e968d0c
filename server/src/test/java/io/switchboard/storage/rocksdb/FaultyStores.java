package io.switchboard.storage.rocksdb;

import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import org.rocksdb.RocksDBException;

/**
 * Opens a real {@link RocksJournal} whose writes fail while {@code full} says so, the way RocksDB
 * fails them on a full disk (its message names the log file), for the server's tests.
 */
public final class FaultyStores {

  private FaultyStores() {}

  public static RocksJournal diskFullWhen(Path dir, BooleanSupplier full) {
    return RocksJournal.open(
        dir,
        Durability.sync(),
        db ->
            (options, batch) -> {
              if (full.getAsBoolean()) {
                throw new RocksDBException(
                    "IO error: No space left on device: While appending to file: "
                        + dir.resolve("000012.log"));
              }
              db.write(options, batch);
            });
  }
}
