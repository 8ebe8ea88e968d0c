package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.spi.Journal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;

/**
 * The commit writer fails fast: an entry it cannot write is not retried forever, an {@link Error}
 * does not kill its thread silently, and no send waits on it for ever.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GroupCommitWriterTest {

  static {
    RocksDB.loadLibrary();
  }

  /** What an injected fault throws: an Error, which the writer used to let kill its thread. */
  static final class InjectedError extends Error {
    InjectedError() {
      super("injected fault");
    }
  }

  @TempDir Path dir;
  private Options options;
  private RocksDB db;
  private GroupCommitWriter<String> writer;

  @BeforeEach
  void openDb() throws Exception {
    options = new Options().setCreateIfMissing(true);
    db = RocksDB.open(options, dir.toString());
  }

  @AfterEach
  void closeDb() {
    if (writer != null) {
      writer.close();
    }
    db.close();
    options.close();
  }

  private GroupCommitWriter<String> writer(Duration awaitTimeout, GroupCommitWriter.Sink sink) {
    writer =
        new GroupCommitWriter<>(
            "test-journal",
            db,
            sink,
            Durability.sync(),
            GroupCommitWriterTest::apply,
            awaitTimeout,
            () -> false);
    return writer;
  }

  private static void apply(WriteBatch batch, String entry) throws org.rocksdb.RocksDBException {
    if (entry.equals("poison")) {
      throw new InjectedError();
    }
    batch.put(entry.getBytes(StandardCharsets.UTF_8), new byte[] {1});
  }

  /**
   * The operator's report: a failing entry was retried for ever, and only RuntimeException caught.
   */
  @Test
  void anEntryThatThrowsAnError_failsItsWaiters_andLaterSendsFailFast_insteadOfHanging() {
    GroupCommitWriter<String> w = writer(GroupCommitWriter.AWAIT_TIMEOUT, db::write);
    w.append(List.of("a"), true).await();

    w.append(List.of("poison"), false); // a receive or ack nobody waits for
    // fails at once if the writer has already stopped, else when its wait ends: never hangs
    QueueException failed =
        assertThrows(QueueException.class, () -> w.append(List.of("b"), true).await());
    assertEquals(ErrorCode.UNAVAILABLE, failed.code());
    assertTrue(failed.getMessage().contains("the store has failed"), failed.getMessage());

    QueueException later = assertThrows(QueueException.class, () -> w.append(List.of("c"), true));
    assertEquals(ErrorCode.UNAVAILABLE, later.code());
    assertTrue(later.getMessage().contains("the store has failed"), later.getMessage());
    assertEquals("store failed", w.problem().orElseThrow());
  }

  @Test
  void aDurableEntryThatThrowsAnError_failsItsOwnWait() {
    GroupCommitWriter<String> w = writer(GroupCommitWriter.AWAIT_TIMEOUT, db::write);
    QueueException e =
        assertThrows(QueueException.class, () -> w.append(List.of("poison"), true).await());
    assertEquals(ErrorCode.UNAVAILABLE, e.code());
  }

  @Test
  void aWriteThatThrowsOutOfMemory_stopsTheWriter_withoutWedgingLaterSends() {
    GroupCommitWriter<String> w =
        writer(
            GroupCommitWriter.AWAIT_TIMEOUT,
            (o, b) -> {
              throw new OutOfMemoryError("injected");
            });
    assertThrows(QueueException.class, () -> w.append(List.of("a"), true).await());
    assertThrows(QueueException.class, () -> w.append(List.of("b"), true));
    assertEquals("store failed", w.problem().orElseThrow());
  }

  @Test
  void aSendWaitsForItsWriteNoLongerThanTheTimeout() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    GroupCommitWriter<String> w =
        writer(
            Duration.ofMillis(200),
            (o, b) -> {
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              db.write(o, b);
            });
    Journal.Ticket ticket = w.append(List.of("a"), true);
    QueueException e = assertThrows(QueueException.class, ticket::await);
    assertEquals(ErrorCode.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains("did not confirm the write"), e.getMessage());
    release.countDown();
  }
}
