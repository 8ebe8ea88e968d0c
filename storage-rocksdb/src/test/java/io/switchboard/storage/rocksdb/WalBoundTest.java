package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-ahead logs stay bounded while a backlog grows (docs/storage.md, "Storage growth"). A
 * log is deleted only once every family with writes in it has flushed them; the bodies' family
 * flushes every memtable, but a queue's states (a hundred bytes a message) fill one seldom, so
 * every log since their last flush was kept: a store just filled held about as many bytes of log as
 * of messages, until RocksDB's own bound of four times all the families' memtables.
 */
class WalBoundTest {

  @TempDir Path dir;

  @Test
  void aGrowingBacklog_keepsTheLogsToFourMemtables() throws IOException {
    long memtable = DiskSpace.of(dir).memtable();
    long limit = DiskSpace.of(dir).walLimit();
    // bodies of 900 KB: twice the logs' bound in a few hundred sends
    int size = 900 * 1024;
    int sends = (int) (2 * limit / size) + 1;
    String body = letters(size);
    long most = 0;
    try (QueueEngine engine =
        QueueEngine.builder()
            .journal(RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED))
            .hotWindow(4)
            .build()) {
      engine.createQueue("q", QueueConfig.defaults());
      for (int i = 0; i < sends; i++) {
        engine.send("q", NewMessage.builder(body).build());
        if (i % 16 == 0) {
          most = Math.max(most, logBytes());
        }
      }
      most = Math.max(most, logBytes());
      assertEquals(sends, engine.stats("q").available());
    }
    assertTrue(
        most <= limit + 2 * memtable,
        "the logs reached "
            + most / DiskSpace.MIB
            + " MiB after "
            + (long) sends * size / DiskSpace.MIB
            + " MiB of bodies; their bound is "
            + limit / DiskSpace.MIB
            + " MiB and a memtable "
            + memtable / DiskSpace.MIB
            + " MiB");
  }

  private long logBytes() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(p -> p.getFileName().toString().endsWith(".log"))
          .mapToLong(p -> p.toFile().length())
          .sum();
    }
  }

  private static String letters(int n) {
    Random r = new Random(1);
    char[] c = new char[n];
    for (int i = 0; i < n; i++) {
      c[i] = (char) ('a' + r.nextInt(26));
    }
    return new String(c);
  }
}
