package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.spi.Orders;
import io.switchboard.queue.spi.Partitions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.PerfContext;
import org.rocksdb.PerfLevel;
import org.rocksdb.RocksDB;

/**
 * A read of one line of the order index stops at the line's end (docs/design.md, "A backlog bigger
 * than memory"). An acked message leaves deletions in the lines after it (its arrival and expiry
 * keys) until compaction drops them; a read that stepped past its own line to the next live key
 * walked all of them, so a filtered receive of the one message of a partition cost as much as the
 * queue's acked history. RocksDB's per-thread counter of deletions skipped says which happened.
 */
class LineBoundsTest {

  private static final int ACKED = 2_000;

  @TempDir Path dir;

  private RocksJournal store;
  private QueueEngine engine;

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  @Test
  void readsOfAPartitionAndOfTheCounts_skipNoDeletionsOfTheLinesAfterThem() {
    store = RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED);
    engine = QueueEngine.builder().journal(store).hotWindow(4).build();
    engine.createQueue(
        "q", QueueConfig.builder().order(Order.FIFO).indexedAttributes(Set.of("tier")).build());
    List<NewMessage> batch = new ArrayList<>();
    for (int i = 0; i < ACKED; i++) {
      batch.add(NewMessage.builder("m" + i).attribute("tier", "basic").build());
      if (batch.size() == 10) {
        engine.sendBatch("q", batch);
        batch.clear();
      }
    }
    int acked = 0;
    while (acked < ACKED) {
      List<Message> got = engine.receive("q", ReceiveRequest.builder().maxMessages(10).build());
      for (Message m : got) {
        engine.ack("q", m.receipt().orElseThrow());
      }
      acked += got.size();
    }
    engine.send("q", NewMessage.builder("v").attribute("tier", "vip").build());
    Orders orders = store.orders().orElseThrow();
    String partition =
        Objects.requireNonNull(
            Partitions.encode(List.of("tier"), a -> AttributeValue.string("vip")));

    RocksDB db = store.db();
    db.setPerfLevel(PerfLevel.ENABLE_COUNT);
    try {
      PerfContext perf = db.getPerfContext();
      perf.reset();
      List<Long> line = orders.partition("q", Order.FIFO, partition, null, 64);
      Orders.Counts counts = orders.counts("q");
      assertEquals(Set.of(partition), orders.partitions("q").keySet());
      long skipped = perf.getInternalDeleteSkippedCount();

      assertEquals(1, line.size(), "the partition's line holds the one vip message");
      assertEquals(1, counts.available());
      assertTrue(
          skipped < 100,
          "the reads skipped "
              + skipped
              + " deletions; the lines after the ones read hold the deletions of "
              + ACKED
              + " acked messages, which a bounded read never reaches");
    } finally {
      db.setPerfLevel(PerfLevel.DISABLE);
    }
    List<Message> got =
        engine.receive("q", ReceiveRequest.builder().selector("tier = 'vip'").build());
    assertEquals(List.of("v"), got.stream().map(Message::body).toList());
  }
}
