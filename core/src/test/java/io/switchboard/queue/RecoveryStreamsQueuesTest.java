package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.Snapshot;
import io.switchboard.testing.Await;
import io.switchboard.time.ManualClock;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Recovery streams the queues (docs/design.md, "Recovery streams the queues"): the engine iterates
 * the snapshot's queues once and keeps nothing of a queue's state once it made the queue, so a
 * store that decodes its queues as they are iterated never has them all decoded at once. Here the
 * journal makes each state when the engine asks for the next, and checks that the state before the
 * last one handed out can be collected by then.
 */
class RecoveryStreamsQueuesTest {

  private static final int QUEUES = 6;

  /** Makes each queue's state as the engine iterates, and watches the earlier ones go. */
  private static final class StreamingJournal implements Journal {
    final List<WeakReference<Snapshot.QueueState>> made = new ArrayList<>();
    int iterations;

    @Override
    public Snapshot load() {
      Iterable<Snapshot.QueueState> states =
          () -> {
            iterations++;
            return new Iterator<>() {
              int next;

              @Override
              public boolean hasNext() {
                return next < QUEUES;
              }

              @Override
              public Snapshot.QueueState next() {
                if (next >= QUEUES) {
                  throw new NoSuchElementException();
                }
                if (next >= 2) {
                  // the one before the last handed out (the caller's loop variable may still hold
                  // the last): the engine made its queue and must not hold it any more
                  WeakReference<Snapshot.QueueState> earlier = made.get(next - 2);
                  Await.until(
                      () -> {
                        System.gc();
                        return earlier.get() == null;
                      },
                      "queue state " + (next - 2) + " let go once its queue was made");
                }
                Snapshot.QueueState s =
                    new Snapshot.QueueState(
                        new JournalEntry.QueuePut(
                            "q" + next, QueueConfig.defaults(), 1_000L * next, next),
                        List.of(),
                        List.of(),
                        List.of());
                made.add(new WeakReference<>(s));
                next++;
                return s;
              }
            };
          };
      return new Snapshot(OptionalLong.of(7), 1, states, QUEUES, List.of());
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

  @Test
  void theEngineIteratesTheQueuesOnce_andLetsEachStateGoOnceItsQueueIsMade() {
    StreamingJournal journal = new StreamingJournal();
    try (QueueEngine engine =
        QueueEngine.builder().clock(ManualClock.create()).journal(journal).build()) {
      assertEquals(1, journal.iterations, "the snapshot's queues are read once");
      assertEquals(QUEUES, journal.made.size());
      assertEquals(QUEUES, engine.overview(10).queues());
      List<String> names = engine.listQueues("").stream().map(QueueInfo::name).toList();
      assertEquals(List.of("q0", "q1", "q2", "q3", "q4", "q5"), names);
      assertEquals(3_000L, engine.queue("q3").createdAt().toEpochMilli());
      engine.send("q5", NewMessage.of("after the restart"));
      assertEquals(1, engine.stats("q5").available());
    }
  }
}
