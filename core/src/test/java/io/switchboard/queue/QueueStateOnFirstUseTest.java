package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.spi.Journal;
import io.switchboard.queue.spi.JournalEntry;
import io.switchboard.queue.spi.Snapshot;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * A queue makes its deduplication window, history, wait line, outbox, counters and receipt key on
 * their first use, so an idle queue, made or restored, holds none of them (docs/design.md,
 * "Recovery streams the queues"); once used, the queue counts and behaves as it always did. The
 * restart scenarios of the tck run every engine contract on queues whose state is made this way.
 */
class QueueStateOnFirstUseTest extends OneQueueFixture {

  @Override
  String queueName() {
    return "q";
  }

  private boolean hasLazyState() {
    return queue().hasLazyState();
  }

  private static QueueStats.Counters counters(
      long sent, long duplicates, long received, long acked, long released, long removed) {
    return new QueueStats.Counters(
        sent, duplicates, received, acked, released, 0, 0, 0, 0, removed, 0);
  }

  @Test
  void anIdleQueue_readPurgedAndReconfigured_makesNone_andCountsZero() {
    assertFalse(hasLazyState(), "a new queue");
    assertEquals(counters(0, 0, 0, 0, 0, 0), engine.stats("q").counters());
    assertEquals(0, engine.stats("q").waitingReceivers());
    engine.overview(10);
    assertEquals(List.of(), engine.receive("q", ReceiveRequest.max(10)));
    assertEquals(0, engine.purge("q"));
    engine.updateQueue("q", c -> c.toBuilder().order(Order.LIFO).build());
    engine.listQueues("");
    clock.advance(Duration.ofMillis(100)); // a housekeeping tick
    assertFalse(hasLazyState(), "reads, an empty purge and a reconfiguration make none of it");
  }

  @Test
  void eachUse_makesWhatItNeeds_andTheQueueCountsAsBefore() {
    engine.send("q", NewMessage.builder("a").deduplicationId("d1").build());
    assertTrue(hasLazyState(), "a send counts, and remembers its deduplication id");
    engine.send("q", NewMessage.builder("a").deduplicationId("d1").build());
    engine.send("q", NewMessage.of("b"));
    List<Message> got = engine.receive("q", ReceiveRequest.max(2));
    assertEquals(List.of("a", "b"), got.stream().map(Message::body).toList());
    engine.ack("q", got.get(0).receipt().orElseThrow());
    engine.release("q", got.get(1).receipt().orElseThrow());
    assertEquals(1, engine.purge("q"));
    assertEquals(counters(2, 1, 2, 1, 1, 1), engine.stats("q").counters());
  }

  @Test
  void aReceiptFromTheLazilyDerivedKey_isCheckedAsBefore() {
    engine.createQueue("other", QueueConfig.defaults());
    engine.send("q", NewMessage.of("a"));
    String receipt = engine.receive("q", ReceiveRequest.max(1)).get(0).receipt().orElseThrow();
    QueueException wrongQueue =
        org.junit.jupiter.api.Assertions.assertThrows(
            QueueException.class, () -> engine.ack("other", receipt));
    assertEquals(ErrorCode.RECEIPT_INVALID, wrongQueue.code());
    engine.ack("q", receipt);
    assertEquals(0, engine.stats("q").inFlight());
  }

  @Test
  void aRestoredIdleQueue_makesNone() {
    Journal journal =
        new Journal() {
          @Override
          public Snapshot load() {
            return new Snapshot(
                OptionalLong.of(7),
                1,
                List.of(
                    new Snapshot.QueueState(
                        new JournalEntry.QueuePut("r", QueueConfig.defaults(), 0, 42),
                        List.of(),
                        List.of(),
                        List.of())),
                List.of());
          }

          @Override
          public void append(List<JournalEntry> entries) {}

          @Override
          public Ticket appendDurable(List<JournalEntry> entries) {
            return DONE;
          }

          @Override
          public void close() {}
        };
    try (MemoryQueueEngine restored =
        (MemoryQueueEngine) QueueEngine.builder().clock(clock).journal(journal).build()) {
      LocalQueue r = restored.require("r");
      assertFalse(r.hasLazyState(), "restored with nothing in it");
      assertFalse(r.hasTable());
      assertEquals(counters(0, 0, 0, 0, 0, 0), restored.stats("r").counters());
      restored.send("r", NewMessage.of("x"));
      assertEquals(1, restored.stats("r").counters().sent());
    }
  }
}
