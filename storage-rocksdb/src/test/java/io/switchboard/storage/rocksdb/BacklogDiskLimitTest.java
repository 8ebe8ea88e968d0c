package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store's disk limit ({@link RocksJournal#limitDisk}, the server's {@code max-backlog-disk}):
 * past it a send is refused with {@code QUEUE_FULL} and leaves no trace, while receives and acks go
 * on; under it again, sends are taken. The store's size is set by the test, never by filling a
 * disk.
 */
class BacklogDiskLimitTest {

  private static final long MIB = 1L << 20;

  @TempDir Path dir;

  private final AtomicLong size = new AtomicLong(10 * MIB);
  private RocksJournal journal;
  private QueueEngine engine;

  private void open() {
    journal = RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED);
    journal.storeSizeFrom(size::get);
    journal.limitDisk(100 * MIB);
    engine = QueueEngine.builder().journal(journal).hotWindow(4).build();
    engine.ensureQueue("q", QueueConfig.builder().build());
  }

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  @Test
  void pastTheLimit_aSendIsQueueFull_leavesNoTrace_andAcksGoOn() {
    open();
    for (int i = 0; i < 20; i++) {
      engine.send("q", NewMessage.of("m" + i));
    }
    size.set(100 * MIB);
    QueueException e =
        assertThrows(QueueException.class, () -> engine.send("q", NewMessage.of("refused")));
    assertEquals(ErrorCode.QUEUE_FULL, e.code());
    assertTrue(e.getMessage().contains("100.0 MiB"), e.getMessage());
    assertTrue(e.getMessage().contains("max-backlog-disk"), e.getMessage());
    assertEquals(20, engine.stats("q").available());

    List<Message> got =
        engine.receive(
            "q",
            ReceiveRequest.builder()
                .maxMessages(10)
                .visibilityTimeout(Duration.ofSeconds(30))
                .build());
    assertEquals(10, got.size());
    for (Message m : got) {
      engine.ack("q", m.receipt().orElseThrow());
    }
    assertEquals(10, engine.stats("q").available());

    size.set(100 * MIB - 1); // compaction has brought the store under its limit
    engine.send("q", NewMessage.of("taken"));
    assertEquals(11, engine.stats("q").available());
  }

  @Test
  void theLimitHoldsAfterARestart_andTheRefusedSendIsNotThere() {
    open();
    engine.send("q", NewMessage.of("kept"));
    size.set(200 * MIB);
    assertThrows(QueueException.class, () -> engine.send("q", NewMessage.of("refused")));
    engine.close();
    engine = null;
    size.set(10 * MIB);
    open();
    List<Message> got = engine.receive("q", ReceiveRequest.max(10));
    assertEquals(List.of("kept"), got.stream().map(Message::body).toList());
  }

  @Test
  void aLimitMustBePositive() {
    journal = RocksJournal.open(dir, Durability.none());
    try {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> journal.limitDisk(0));
      assertTrue(e.getMessage().contains("got 0"), e.getMessage());
    } finally {
      journal.close();
    }
  }

  /** Without the injected size, the store reads its own: table files and memtables, above zero. */
  @Test
  void theStoreMeasuresItselfFromRocksDb() {
    journal = RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED);
    engine = QueueEngine.builder().journal(journal).hotWindow(4).build();
    engine.createQueue("q", QueueConfig.builder().build());
    engine.send("q", NewMessage.of("x".repeat(10_000))); // answered once written
    assertTrue(journal.storeBytes() > 10_000, "measured " + journal.storeBytes());
    assertTrue(journal.fileSystemBytes() > 0);
  }
}
