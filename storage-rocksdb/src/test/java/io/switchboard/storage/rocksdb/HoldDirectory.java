package io.switchboard.storage.rocksdb;

import java.nio.file.Path;

/**
 * Child-JVM side of {@link FailureHandlingTest}: opens the store in the directory given, prints
 * {@code HELD}, and keeps it open until killed (or for a minute, should its parent die).
 */
final class HoldDirectory {

  private HoldDirectory() {}

  public static void main(String[] args) throws Exception {
    try (RocksJournal journal = RocksJournal.open(Path.of(args[0]), Durability.sync())) {
      System.out.println("HELD");
      System.out.flush();
      Thread.sleep(60_000);
    }
  }
}
