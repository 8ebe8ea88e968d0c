package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.SendResult;
import io.switchboard.time.Clock;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Storage faults, a second process on the directory, and what the engine does about them. */
class FailureHandlingTest {

  @TempDir Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private record Durable(QueueEngine engine, FaultyJournal journal) {}

  private Durable openFaulty(Clock clock) {
    FaultyJournal journal = new FaultyJournal(RocksJournal.open(dir, Durability.sync()));
    QueueEngine engine = QueueEngine.builder().clock(clock).journal(journal).build();
    open.add(engine);
    return new Durable(engine, journal);
  }

  private Durable restart(Durable d, Clock clock) {
    d.engine().close();
    open.remove(d.engine());
    return openFaulty(clock);
  }

  @Test
  void send_whileTheJournalFails_failsUnavailableAndLeavesNothing() {
    ManualClock clock = ManualClock.create();
    Durable d = openFaulty(clock);
    QueueEngine engine = d.engine();
    engine.createQueue("q", QueueConfig.defaults());
    engine.send("q", NewMessage.of("kept"));

    d.journal().failing(true);
    NewMessage lost = NewMessage.builder("lost").deduplicationId("dedup-1").build();
    QueueException e = assertThrows(QueueException.class, () -> engine.send("q", lost));
    assertEquals(ErrorCode.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains("storage write failed"), e.getMessage());
    QueueException batch =
        assertThrows(
            QueueException.class,
            () -> engine.sendBatch("q", List.of(NewMessage.of("a"), NewMessage.of("b"))));
    assertEquals(ErrorCode.UNAVAILABLE, batch.code());
    assertEquals(1, engine.stats("q").depth());
    assertEquals(1, engine.stats("q").counters().sent());
    assertEquals(List.of("kept"), bodies(engine));
    List<Message> received = engine.receive("q", ReceiveRequest.max(10));
    assertEquals(List.of("kept"), received.stream().map(Message::body).toList());
    QueueException release =
        assertThrows(
            QueueException.class,
            () -> engine.release("q", received.get(0).receipt().orElseThrow()));
    assertEquals(ErrorCode.UNAVAILABLE, release.code());

    d.journal().failing(false);
    SendResult retried = engine.send("q", lost);
    assertFalse(retried.duplicate(), "the failed send's deduplication id was remembered");
    assertEquals(List.of("kept", "lost"), bodies(engine));

    d = restart(d, clock);
    assertEquals(List.of("kept", "lost"), bodies(d.engine()));
    assertEquals(1, d.engine().get("q", received.get(0).id()).receiveCount());
  }

  /**
   * While the store cannot write, an ack (or a release, a delete, a purge...) is refused before it
   * changes anything: the store would only hold it in memory, and a crash before the store writes
   * again would lose what the caller was told had happened. It used to be acknowledged.
   */
  @Test
  void changes_whileTheJournalCannotWrite_areRefusedBeforeTheyChangeAnything() {
    ManualClock clock = ManualClock.create();
    Durable d = openFaulty(clock);
    QueueEngine engine = d.engine();
    engine.createQueue("q", QueueConfig.defaults());
    String id = engine.send("q", NewMessage.of("m")).id();
    engine.send("q", NewMessage.of("other"));
    Message m = engine.receive("q", ReceiveRequest.one()).get(0);
    String receipt = m.receipt().orElseThrow();

    d.journal().failing(true);
    List<org.junit.jupiter.api.function.Executable> changes =
        List.of(
            () -> engine.ack("q", receipt),
            () -> engine.ackAll("q", List.of(receipt)),
            () -> engine.release("q", receipt, Duration.ZERO, false),
            () -> engine.extend("q", receipt, Duration.ofMinutes(5)),
            () -> engine.remove("q", id),
            () -> engine.purge("q"),
            () -> engine.deleteQueue("q"));
    for (var change : changes) {
      QueueException e = assertThrows(QueueException.class, change);
      assertEquals(ErrorCode.UNAVAILABLE, e.code());
      assertTrue(e.getMessage().contains("nothing was changed"), e.getMessage());
    }
    assertEquals(2, engine.stats("q").depth());
    assertEquals(1, engine.get("q", id).receiveCount());

    d.journal().failing(false);
    engine.ack("q", receipt);
    d = restart(d, clock);
    assertEquals(List.of("other"), bodies(d.engine()));
  }

  /**
   * A failed send's journal write also carried what its operation changed before the send (here a
   * lease running out, which dead-letters the message): that part happened and must be stored. It
   * was dropped with the send, so after an ack in the dead-letter queue and a restart the message
   * was dead-lettered a second time.
   */
  @Test
  void send_whileTheJournalFails_stillStoresTheTimersItFired() {
    LazyClock clock = new LazyClock();
    Durable d = openFaulty(clock);
    QueueEngine engine = d.engine();
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue(
        "q",
        QueueConfig.builder()
            .visibilityTimeout(Duration.ofSeconds(1))
            .deadLetter("dlq", 1)
            .build());
    engine.send("q", NewMessage.of("poison"));
    assertEquals(1, engine.receive("q", ReceiveRequest.one()).size());
    clock.advanceMillis(2_000);

    d.journal().failing(true);
    QueueException e =
        assertThrows(QueueException.class, () -> engine.send("q", NewMessage.of("y")));
    assertEquals(ErrorCode.UNAVAILABLE, e.code());
    d.journal().failing(false);
    Message dead = engine.receive("dlq", ReceiveRequest.one()).get(0);
    assertEquals("poison", dead.body());
    engine.ack("dlq", dead.receipt().orElseThrow());

    d = restart(d, clock);
    assertEquals(0, d.engine().stats("q").depth());
    assertEquals(0, d.engine().stats("dlq").depth());
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void open_directoryHeldByAnotherProcess_isRefusedClearly_untilThatProcessDies() throws Exception {
    try (ChildJvm child = ChildJvm.start(HoldDirectory.class, dir.toString())) {
      child.awaitLine("HELD", 30);
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class, () -> RocksJournal.open(dir, Durability.sync()));
      assertTrue(e.getMessage().contains("in use by another Switchboard process"), e.getMessage());
      assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
      child.kill();
    }
    // The lock dies with its holder, even by SIGKILL: no stale lock file to clean up by hand.
    RocksJournal.open(dir, Durability.sync()).close();
  }

  private static List<String> bodies(QueueEngine engine) {
    return engine.browse("q", BrowseRequest.first(100).includeInvisible(true)).items().stream()
        .map(Message::body)
        .toList();
  }

  /**
   * A clock that only moves when told and runs no housekeeping, so due timers fire in the next
   * operation on the queue, as they may on the system clock between housekeeping ticks.
   */
  private static final class LazyClock implements Clock {
    private final AtomicLong millis = new AtomicLong(1_900_000_000_000L);

    void advanceMillis(long step) {
      millis.addAndGet(step);
    }

    @Override
    public long millis() {
      return millis.get();
    }

    @Override
    public long parkNanosUntil(long deadlineMillis) {
      return deadlineMillis <= millis.get() ? 0 : Long.MAX_VALUE;
    }

    @Override
    public boolean manual() {
      return true;
    }

    @Override
    public Repeating every(String threadName, Duration interval, Runnable task) {
      return NOTHING;
    }

    @Override
    public Repeating timers(String threadName, LongSupplier fireDue) {
      return NOTHING;
    }

    private static final Repeating NOTHING =
        new Repeating() {
          @Override
          public void wakeBy(long dueMillis) {}

          @Override
          public void close() {}
        };
  }
}
