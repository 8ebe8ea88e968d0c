package io.switchboard.storage.rocksdb;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.Snapshot;
import io.switchboard.queue.spi.SystemRecords;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A journal whose writes can be made to fail, behaving as {@link GroupCommitWriter} does on a
 * failed write: a durable append fails with {@code UNAVAILABLE} and stores nothing of what it was
 * given; plain appends are held, in order, and written once the fault clears.
 */
final class FaultyJournal implements Journal {

  private final Journal delegate;
  private final List<List<JournalEntry>> held = new ArrayList<>();
  private boolean failing;

  FaultyJournal(Journal delegate) {
    this.delegate = delegate;
  }

  synchronized void failing(boolean failing) {
    this.failing = failing;
    if (!failing) {
      held.forEach(delegate::append);
      held.clear();
    }
  }

  @Override
  public Snapshot load() {
    return delegate.load();
  }

  @Override
  public synchronized void append(List<JournalEntry> entries) {
    if (failing) {
      held.add(entries);
    } else {
      delegate.append(entries);
    }
  }

  @Override
  public synchronized Ticket appendDurable(List<JournalEntry> entries) {
    if (failing) {
      return () -> {
        throw new QueueException(
            ErrorCode.UNAVAILABLE, "storage write failed (send): injected I/O error");
      };
    }
    return delegate.appendDurable(entries);
  }

  /** {@code "store cannot write"} while failing, as {@link GroupCommitWriter#problem} says. */
  @Override
  public synchronized Optional<String> problem() {
    return failing ? Optional.of("store cannot write") : delegate.problem();
  }

  @Override
  public SystemRecords systemRecords() {
    return delegate.systemRecords();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
