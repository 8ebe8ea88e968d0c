package io.switchboard.queue;

import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.Snapshot;
import java.util.List;

/**
 * The journal of an engine that lives in memory only: starts empty, stores nothing, and every
 * durable append is complete at once. The engine asks {@link #isNone} once, to skip the work that
 * only a real journal needs (recording changed messages, waiting for a send to be stored).
 */
final class NoJournal implements Journal {

  static final NoJournal INSTANCE = new NoJournal();

  private NoJournal() {}

  static boolean isNone(Journal journal) {
    return journal == INSTANCE;
  }

  @Override
  public Snapshot load() {
    return Snapshot.empty();
  }

  @Override
  public void append(List<JournalEntry> entries) {}

  @Override
  public Ticket appendDurable(List<JournalEntry> entries) {
    return DONE;
  }

  @Override
  public void close() {}
}
