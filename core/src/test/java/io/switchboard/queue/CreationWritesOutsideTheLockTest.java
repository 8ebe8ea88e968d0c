package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.Snapshot;
import io.switchboard.time.ManualClock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A queue's creation waits for its record's write outside the lock that keeps names unique and
 * holds max-queues (docs/decisions.md, "2026-12-02-housekeeping-ticks-only-queues-with-work", its
 * part on creation), so creations from many threads share one group commit; a creation whose write
 * fails leaves no queue behind.
 */
class CreationWritesOutsideTheLockTest {

  /** Records each durable append and completes it only when the test says. */
  private static final class HeldWrites implements Journal {
    final List<String> created = new CopyOnWriteArrayList<>();
    final List<CompletableFuture<Void>> tickets = new CopyOnWriteArrayList<>();
    volatile boolean hold;

    @Override
    public Snapshot load() {
      return Snapshot.empty();
    }

    @Override
    public void append(List<JournalEntry> entries) {}

    @Override
    public Ticket appendDurable(List<JournalEntry> entries) {
      for (JournalEntry e : entries) {
        if (e instanceof JournalEntry.QueuePut p) {
          created.add(p.name());
        }
      }
      if (!hold) {
        return DONE;
      }
      CompletableFuture<Void> done = new CompletableFuture<>();
      tickets.add(done);
      return () -> {
        try {
          done.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
          throw new QueueException(ErrorCode.UNAVAILABLE, "the store cannot write: injected", e);
        }
      };
    }

    @Override
    public void close() {}
  }

  @Test
  void aSecondCreation_isWrittenWhileTheFirstWaitsForItsWrite() throws Exception {
    HeldWrites journal = new HeldWrites();
    try (QueueEngine engine =
        QueueEngine.builder().clock(ManualClock.create()).journal(journal).build()) {
      journal.hold = true;
      CompletableFuture<QueueInfo> a =
          CompletableFuture.supplyAsync(() -> engine.createQueue("a", QueueConfig.defaults()));
      CompletableFuture<QueueInfo> b =
          CompletableFuture.supplyAsync(() -> engine.createQueue("b", QueueConfig.defaults()));
      // both records reach the journal although neither write is done: the second creation did
      // not wait for the first one's write (the bound only stops a failing run)
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (journal.tickets.size() < 2 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertEquals(List.of("a", "b"), journal.created.stream().sorted().toList());
      assertTrue(!a.isDone() && !b.isDone(), "neither creation answers before its write");
      journal.tickets.forEach(t -> t.complete(null));
      assertEquals("a", a.get(30, TimeUnit.SECONDS).name());
      assertEquals("b", b.get(30, TimeUnit.SECONDS).name());
      assertEquals(2, engine.overview(10).queues());
    }
  }

  @Test
  void aCreationWhoseWriteFails_leavesNoQueue_andTheNameCanBeCreatedAgain() throws Exception {
    HeldWrites journal = new HeldWrites();
    try (QueueEngine engine =
        QueueEngine.builder().clock(ManualClock.create()).journal(journal).build()) {
      journal.hold = true;
      CompletableFuture<QueueInfo> a =
          CompletableFuture.supplyAsync(() -> engine.createQueue("a", QueueConfig.defaults()));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (journal.tickets.isEmpty() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      journal.tickets.get(0).completeExceptionally(new IllegalStateException("disk gone"));
      Exception failed =
          assertThrows(Exception.class, () -> a.get(30, TimeUnit.SECONDS), "the creation fails");
      QueueException cause = (QueueException) failed.getCause();
      assertEquals(ErrorCode.UNAVAILABLE, cause.code());
      assertEquals(0, engine.overview(10).queues(), "no queue is left behind");
      assertThrows(QueueException.class, () -> engine.queue("a"));

      journal.hold = false;
      assertEquals("a", engine.createQueue("a", QueueConfig.defaults()).name());
      assertEquals(1, engine.overview(10).queues());
    }
  }
}
