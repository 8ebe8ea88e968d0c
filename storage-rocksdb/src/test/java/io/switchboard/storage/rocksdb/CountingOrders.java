package io.switchboard.storage.rocksdb;

import io.switchboard.queue.Order;
import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.MessageRecord;
import io.switchboard.queue.spi.Orders;
import io.switchboard.queue.spi.Snapshot;
import io.switchboard.queue.spi.SystemRecords;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A store's orders, counting the pages of keys, the records read one by one and in batched reads
 * (the hot window tests: a read bounded by pages, not the backlog). It keeps no delayed messages'
 * delivery order, so an engine over it keeps every delayed message in the heap.
 */
final class CountingOrders implements Orders {
  final Orders store;
  final AtomicInteger keyPages = new AtomicInteger();
  final AtomicInteger reads = new AtomicInteger();
  final AtomicInteger batches = new AtomicInteger();
  final AtomicInteger batched = new AtomicInteger();

  CountingOrders(Orders store) {
    this.store = store;
  }

  void reset() {
    keyPages.set(0);
    reads.set(0);
    batches.set(0);
    batched.set(0);
  }

  int recordsRead() {
    return reads.get() + batched.get();
  }

  @Override
  public List<Long> available(String queue, Order order, @Nullable After after, int limit) {
    keyPages.incrementAndGet();
    return store.available(queue, order, after, limit);
  }

  @Override
  public boolean keepsPartitions() {
    return store.keepsPartitions();
  }

  @Override
  public List<Long> partition(
      String queue, Order order, String partition, @Nullable After after, int limit) {
    keyPages.incrementAndGet();
    return store.partition(queue, order, partition, after, limit);
  }

  @Override
  public Map<String, Long> partitions(String queue) {
    return store.partitions(queue);
  }

  @Override
  public boolean keepsTenants() {
    return store.keepsTenants();
  }

  @Override
  public List<Long> tenant(
      String queue, Order order, String groupId, @Nullable After after, int limit) {
    keyPages.incrementAndGet();
    return store.tenant(queue, order, groupId, after, limit);
  }

  @Override
  public Map<String, Long> tenants(String queue) {
    return store.tenants(queue);
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
    keyPages.incrementAndGet();
    return store.byExpiry(queue, after, limit);
  }

  @Override
  public List<Long> byArrival(String queue, @Nullable After after, int limit) {
    keyPages.incrementAndGet();
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

  /** A RocksDB journal whose order reads are counted. */
  record OverJournal(RocksJournal journal, CountingOrders counting) implements Journal {
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
}
