package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.Snapshot;
import io.switchboard.time.ManualClock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Regression: when the journal threw from the flush at the end of a queue operation (a writer that
 * has stopped, "store failed"), the operation frame skipped the unlock, so the queue stayed locked
 * and every later call on it from another thread hung for good.
 */
class FailedFlushLeftQueueLockedTest {

  /**
   * Stores nothing; its plain appends throw while {@link #failing} is set, as a stopped writer
   * does.
   */
  private static final class StoppedWriter implements Journal {
    volatile boolean failing;

    @Override
    public Snapshot load() {
      return Snapshot.empty();
    }

    @Override
    public void append(List<JournalEntry> entries) {
      if (failing) {
        throw new QueueException(ErrorCode.UNAVAILABLE, "store failed: injected");
      }
    }

    @Override
    public Ticket appendDurable(List<JournalEntry> entries) {
      return DONE;
    }

    @Override
    public void close() {}
  }

  @Test
  void aFlushThatThrows_stillUnlocksTheQueue_forCallersOnOtherThreads() throws Exception {
    StoppedWriter journal = new StoppedWriter();
    QueueEngine engine = QueueEngine.builder().clock(ManualClock.create()).journal(journal).build();
    engine.createQueue("q", QueueConfig.defaults());
    engine.send("q", NewMessage.of("a"));

    journal.failing = true;
    assertThrows(QueueException.class, () -> engine.receive("q", ReceiveRequest.one()));
    journal.failing = false;

    // Another thread: a lock left held by this one would make it wait for ever (ReentrantLock
    // lets the holder in again, so the same thread would not notice). The bound only stops a
    // failing run; a passing one answers at once.
    CompletableFuture<QueueStats> stats = CompletableFuture.supplyAsync(() -> engine.stats("q"));
    QueueStats seen = stats.get(30, TimeUnit.SECONDS);
    assertEquals(1, seen.available() + seen.inFlight(), "the message is still in the queue");
    engine.close();
  }
}
