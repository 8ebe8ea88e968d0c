package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.Orders;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A refill of the hot window reads its page's records in one batched read of the store ({@link
 * Orders#readAll}, a RocksDB {@code multiGet}), not one read (and one wait for the writer) per
 * message.
 */
class RefillBatchTest {

  private static final int WINDOW = 4;

  @TempDir Path dir;

  @Test
  void aRefillReadsItsPageInOneBatch_andTheBacklogComesBackInOrder() {
    RocksJournal store = RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED);
    CountingOrders orders = new CountingOrders(store.orders().orElseThrow());
    QueueEngine engine =
        QueueEngine.builder()
            .journal(new CountingOrders.OverJournal(store, orders))
            .hotWindow(WINDOW)
            .build();
    try {
      engine.createQueue("q", QueueConfig.builder().build());
      for (int i = 0; i < 100; i++) {
        engine.send("q", NewMessage.of("m" + i));
      }
      orders.reset();
      List<String> got = new ArrayList<>();
      while (got.size() < 100) {
        List<Message> page = engine.receive("q", ReceiveRequest.max(3));
        assertTrue(!page.isEmpty(), "ran dry after " + got.size());
        for (Message m : page) {
          got.add(m.body());
          engine.ack("q", m.receipt().orElseThrow());
        }
      }
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        expected.add("m" + i);
      }
      assertEquals(expected, got);
      assertEquals(0, orders.reads.get(), "no message was read on its own");
      // each page is up to W messages read in one call: about 100 / W calls, not 100
      assertTrue(orders.batched.get() >= 90, "messages read back: " + orders.batched.get());
      assertTrue(
          orders.batches.get() <= 100 / WINDOW + 2, "batched reads: " + orders.batches.get());
    } finally {
      engine.close();
    }
  }

  @Test
  void readAll_keepsTheSerialsOrder_andIsEmptyWhereNothingIsStored() {
    RocksJournal store = RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED);
    QueueEngine engine = QueueEngine.builder().journal(store).hotWindow(WINDOW).build();
    try {
      engine.createQueue("q", QueueConfig.builder().build());
      for (int i = 0; i < 10; i++) {
        engine.send("q", NewMessage.of("m" + i));
      }
      Orders orders = store.orders().orElseThrow();
      List<Long> serials = new ArrayList<>(orders.available("q", Order.FIFO, 10));
      assertEquals(10, serials.size());
      List<Long> asked = List.of(serials.get(7), 999_999_999L, serials.get(2));
      List<Optional<MessageRecord>> got = orders.readAll("q", asked);
      assertEquals(3, got.size());
      MessageRecord seventh = got.get(0).orElseThrow();
      assertEquals(serials.get(7).longValue(), seventh.serial());
      assertEquals("m7", new String(seventh.body(), java.nio.charset.StandardCharsets.UTF_8));
      assertTrue(got.get(1).isEmpty());
      assertEquals(serials.get(2).longValue(), got.get(2).orElseThrow().serial());
      assertEquals(List.of(), orders.readAll("q", List.of()));
    } finally {
      engine.close();
    }
  }
}
