package io.switchboard.storage.rocksdb;

import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.Orders;
import io.switchboard.queue.spi.Snapshot;
import io.switchboard.queue.spi.SystemRecords;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A journal on a store with the order index, whose index is checked against its messages before it
 * closes ({@link RocksJournal#checkOrders}); differences go to {@code mismatches}, named by the
 * store's directory.
 */
record CheckedJournal(RocksJournal journal, Path dir, List<String> mismatches) implements Journal {

  static CheckedJournal open(Path dir, Durability durability, List<String> mismatches) {
    return new CheckedJournal(
        RocksJournal.open(dir, durability, OrderIndex.MAINTAINED), dir, mismatches);
  }

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
    return journal.maintainsOrders();
  }

  @Override
  public Optional<Orders> orders() {
    return journal.orders();
  }

  @Override
  public void close() {
    try {
      for (String m : journal.checkOrders()) {
        mismatches.add(dir.getFileName() + ": " + m);
      }
    } finally {
      journal.close();
    }
  }
}
