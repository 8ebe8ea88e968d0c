package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.Orders;
import io.switchboard.queue.spi.Snapshot;
import io.switchboard.queue.spi.SystemRecords;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
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

  /** The store's orders, counting single reads and batched reads. */
  private static final class Counting implements Orders {
    final Orders store;
    final AtomicInteger reads = new AtomicInteger();
    final AtomicInteger batches = new AtomicInteger();
    final AtomicInteger batched = new AtomicInteger();

    Counting(Orders store) {
      this.store = store;
    }

    @Override
    public List<Long> available(String queue, Order order, @Nullable After after, int limit) {
      return store.available(queue, order, after, limit);
    }

    @Override
    public List<Long> delayed(String queue, @Nullable After after, int limit) {
      return store.delayed(queue, after, limit);
    }

    @Override
    public List<Long> inFlight(String queue, @Nullable After after, int limit) {
      return store.inFlight(queue, after, limit);
    }

    @Override
    public List<Long> byExpiry(String queue, @Nullable After after, int limit) {
      return store.byExpiry(queue, after, limit);
    }

    @Override
    public List<Long> byArrival(String queue, @Nullable After after, int limit) {
      return store.byArrival(queue, after, limit);
    }

    @Override
    public List<Long> group(String queue, String groupId, @Nullable After after, int limit) {
      return store.group(queue, groupId, after, limit);
    }

    @Override
    public Optional<MessageRecord> read(String queue, long serial) {
      reads.incrementAndGet();
      return store.read(queue, serial);
    }

    @Override
    public List<Optional<MessageRecord>> readAll(String queue, List<Long> serials) {
      batches.incrementAndGet();
      batched.addAndGet(serials.size());
      return store.readAll(queue, serials);
    }

    @Override
    public Counts counts(String queue) {
      return store.counts(queue);
    }
  }

  private record CountingJournal(RocksJournal journal, Counting counting) implements Journal {
    @Override
    public Snapshot load() {
      return journal.load();
    }

    @Override
    public void append(List<JournalEntry> entries) {
      journal.append(entries);
    }

    @Override
    public Ticket appendDurable(List<JournalEntry> entries) {
      return journal.appendDurable(entries);
    }

    @Override
    public SystemRecords systemRecords() {
      return journal.systemRecords();
    }

    @Override
    public boolean maintainsOrders() {
      return true;
    }

    @Override
    public Optional<Orders> orders() {
      return Optional.of(counting);
    }

    @Override
    public void close() {
      journal.close();
    }
  }

  @Test
  void aRefillReadsItsPageInOneBatch_andTheBacklogComesBackInOrder() {
    RocksJournal store = RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED);
    Counting orders = new Counting(store.orders().orElseThrow());
    QueueEngine engine =
        QueueEngine.builder().journal(new CountingJournal(store, orders)).hotWindow(WINDOW).build();
    try {
      engine.createQueue("q", QueueConfig.builder().build());
      for (int i = 0; i < 100; i++) {
        engine.send("q", NewMessage.of("m" + i));
      }
      orders.reads.set(0);
      orders.batches.set(0);
      orders.batched.set(0);
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
