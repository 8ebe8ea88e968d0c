package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.time.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The engine's limits (DESIGN.md, "Overload and damage"): each refuses with its code and changes
 * nothing, and lets the operation through again once consumers have made room.
 */
class QueueLimitsTest {

  private static final String BODY = "x".repeat(1000);
  private static final long CHARGE = QueueLimits.charge(1000);

  private final ManualClock clock = ManualClock.create();

  private QueueEngine engine(QueueLimits limits) {
    return QueueEngine.builder().clock(clock).limits(limits).build();
  }

  private static QueueLimits limits(
      long server, long queue, long depth, int inFlight, int inFlightFifo, long answer) {
    return new QueueLimits(server, queue, depth, inFlight, inFlightFifo, answer);
  }

  private static QueueLimits serverBytes(long bytes) {
    return limits(bytes, Long.MAX_VALUE, 1_000_000, 1000, 1000, Long.MAX_VALUE);
  }

  @Test
  void serverBytes_refuseSendWithServerFull_changingNothing_untilConsumed() {
    QueueEngine engine = engine(serverBytes(3 * CHARGE));
    engine.createQueue("a", QueueConfig.defaults());
    engine.createQueue("b", QueueConfig.defaults());
    engine.send("a", NewMessage.of(BODY));
    engine.send("b", NewMessage.of(BODY));
    engine.send("b", NewMessage.of(BODY));
    assertEquals(3 * CHARGE, engine.queuedBytes());

    QueueException full =
        assertThrows(QueueException.class, () -> engine.send("a", NewMessage.of(BODY)));
    assertEquals(ErrorCode.SERVER_FULL, full.code());
    assertTrue(full.getMessage().contains("max-queued-bytes"), full.getMessage());
    assertEquals(1, engine.stats("a").depth());
    assertEquals(3 * CHARGE, engine.queuedBytes());

    Message m = engine.receive("b", ReceiveRequest.one()).get(0);
    engine.ack("b", m.receipt().orElseThrow());
    assertEquals(2 * CHARGE, engine.queuedBytes());
    engine.send("a", NewMessage.of(BODY));
    assertEquals(2, engine.stats("a").depth());
  }

  @Test
  void serverBytes_refuseWholeBatch() {
    QueueEngine engine = engine(serverBytes(2 * CHARGE));
    engine.createQueue("q", QueueConfig.defaults());
    engine.send("q", NewMessage.of(BODY));
    QueueException full =
        assertThrows(
            QueueException.class,
            () -> engine.sendBatch("q", List.of(NewMessage.of(BODY), NewMessage.of(BODY))));
    assertEquals(ErrorCode.SERVER_FULL, full.code());
    assertEquals(1, engine.stats("q").depth());
    assertEquals(CHARGE, engine.queuedBytes());
  }

  @Test
  void serverBytes_countAttributesAndFollowPurgeDeleteAndDeadLetters() {
    QueueEngine engine = engine(serverBytes(Long.MAX_VALUE));
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue(
        "q", QueueConfig.builder().deadLetter(new DeadLetterPolicy("dlq", 1)).build());
    engine.send("q", NewMessage.builder(BODY).attribute("lang", "es").build());
    assertEquals(engine.queuedBytes("q"), engine.queuedBytes());
    assertTrue(engine.queuedBytes() >= QueueLimits.charge(1004), "" + engine.queuedBytes());
    Message m = engine.receive("q", ReceiveRequest.one()).get(0);
    engine.deadLetter("q", m.receipt().orElseThrow());
    assertEquals(0, engine.queuedBytes("q"));
    assertEquals(engine.queuedBytes(), engine.queuedBytes("dlq"));

    engine.send("q", NewMessage.of(BODY));
    engine.purge("dlq");
    assertEquals(CHARGE, engine.queuedBytes());
    engine.deleteQueue("q");
    assertEquals(0, engine.queuedBytes());
  }

  @Test
  void queueBytes_refuseWithQueueFull_otherQueuesStillAccept() {
    QueueEngine engine = engine(limits(Long.MAX_VALUE, 2 * CHARGE, 1_000_000, 10, 10, 1 << 20));
    engine.createQueue("a", QueueConfig.defaults());
    engine.createQueue("b", QueueConfig.defaults());
    engine.send("a", NewMessage.of(BODY));
    engine.send("a", NewMessage.of(BODY));
    QueueException full =
        assertThrows(QueueException.class, () -> engine.send("a", NewMessage.of(BODY)));
    assertEquals(ErrorCode.QUEUE_FULL, full.code());
    assertTrue(full.getMessage().contains("max-queue-bytes"), full.getMessage());
    assertEquals(2, engine.stats("a").depth());
    engine.send("b", NewMessage.of(BODY));
    engine.ack("a", engine.receive("a", ReceiveRequest.one()).get(0).receipt().orElseThrow());
    engine.send("a", NewMessage.of(BODY));
    assertEquals(2, engine.stats("a").depth());
  }

  @Test
  void defaultMaxDepth_appliesToQueuesThatSetNone() {
    QueueEngine engine = engine(limits(Long.MAX_VALUE, Long.MAX_VALUE, 2, 10, 10, 1 << 20));
    engine.createQueue("plain", QueueConfig.defaults());
    engine.createQueue("deep", QueueConfig.builder().maxDepth(5, Overflow.REJECT).build());
    engine.send("plain", NewMessage.of("1"));
    engine.send("plain", NewMessage.of("2"));
    QueueException full =
        assertThrows(QueueException.class, () -> engine.send("plain", NewMessage.of("3")));
    assertEquals(ErrorCode.QUEUE_FULL, full.code());
    assertEquals(2, engine.stats("plain").depth());
    for (int i = 0; i < 5; i++) {
      engine.send("deep", NewMessage.of("m" + i));
    }
    assertEquals(5, engine.stats("deep").depth());
  }

  @Test
  void inFlight_refusesReceiveWithOverLimit_andCapsABatch_untilAcked() {
    QueueEngine engine = engine(limits(Long.MAX_VALUE, Long.MAX_VALUE, 1_000_000, 3, 1, 1 << 20));
    engine.createQueue("q", QueueConfig.defaults());
    for (int i = 0; i < 5; i++) {
      engine.send("q", NewMessage.of("m" + i));
    }
    assertEquals(2, engine.receive("q", ReceiveRequest.max(2)).size());
    List<Message> capped = engine.receive("q", ReceiveRequest.max(10));
    assertEquals(1, capped.size(), "only one more may be in flight");
    QueueException over =
        assertThrows(QueueException.class, () -> engine.receive("q", ReceiveRequest.max(10)));
    assertEquals(ErrorCode.OVER_LIMIT, over.code());
    assertTrue(over.getMessage().contains("max-in-flight"), over.getMessage());
    assertEquals(3, engine.stats("q").inFlight());
    assertEquals(2, engine.stats("q").available());

    engine.ack("q", capped.get(0).receipt().orElseThrow());
    assertEquals(1, engine.receive("q", ReceiveRequest.max(10)).size());
  }

  @Test
  void inFlight_groupedQueuesHaveTheirOwnLimit() {
    QueueEngine engine = engine(limits(Long.MAX_VALUE, Long.MAX_VALUE, 1_000_000, 3, 1, 1 << 20));
    engine.createQueue("g.fifo", QueueConfig.defaults());
    engine.send("g.fifo", NewMessage.builder("a").groupId("1").deduplicationId("a").build());
    engine.send("g.fifo", NewMessage.builder("b").groupId("2").deduplicationId("b").build());
    assertEquals(1, engine.receive("g.fifo", ReceiveRequest.max(10)).size());
    QueueException over =
        assertThrows(QueueException.class, () -> engine.receive("g.fifo", ReceiveRequest.one()));
    assertEquals(ErrorCode.OVER_LIMIT, over.code());
    assertTrue(over.getMessage().contains("max-in-flight-fifo"), over.getMessage());
  }

  @Test
  void answerBytes_receiveTakesFewer_browsePagesWithACursor() {
    int maxMessageSize = QueueConfig.MIN_MESSAGE_SIZE;
    QueueEngine engine =
        engine(limits(Long.MAX_VALUE, Long.MAX_VALUE, 1_000_000, 1000, 1000, 3L * maxMessageSize));
    engine.createQueue("q", QueueConfig.builder().maxMessageSize(maxMessageSize).build());
    for (int i = 0; i < 10; i++) {
      engine.send("q", NewMessage.of(BODY));
    }
    Page page = engine.browse("q", BrowseRequest.first(100));
    assertEquals(3, page.items().size(), "3 × 1000 bytes fit in 3072, a fourth does not");
    List<String> seen = new ArrayList<>();
    page.items().forEach(m -> seen.add(m.id()));
    Optional<String> cursor = page.nextCursor();
    while (cursor.isPresent()) {
      Page next = engine.browse("q", BrowseRequest.first(100).after(cursor.get()));
      assertTrue(next.items().size() <= 3);
      next.items().forEach(m -> seen.add(m.id()));
      cursor = next.nextCursor();
    }
    assertEquals(10, seen.size());
    assertEquals(10, seen.stream().distinct().count());

    assertEquals(3, engine.receive("q", ReceiveRequest.max(10)).size());
  }

  @Test
  void answerBytes_groupedReceiveStopsInsideAGroup_andLeavesAGroupThatDidNotFitReady() {
    QueueEngine engine =
        engine(limits(Long.MAX_VALUE, Long.MAX_VALUE, 1_000_000, 1000, 1000, 2500));
    engine.createQueue("g.fifo", QueueConfig.defaults());
    for (String group : List.of("a", "a", "a", "b")) {
      engine.send(
          "g.fifo",
          NewMessage.builder(BODY).groupId(group).deduplicationId(group + seen++).build());
    }
    List<Message> first = engine.receive("g.fifo", ReceiveRequest.max(10));
    assertEquals(2, first.size(), "two of group a fit in 2500 bytes");
    assertEquals(List.of("a", "a"), first.stream().map(m -> m.groupId().orElseThrow()).toList());
    List<Message> second = engine.receive("g.fifo", ReceiveRequest.max(10));
    assertEquals(
        List.of("b"),
        second.stream().map(m -> m.groupId().orElseThrow()).toList(),
        "group a is in flight; group b was left ready");
    for (Message m : first) {
      engine.ack("g.fifo", m.receipt().orElseThrow());
    }
    assertEquals(1, engine.receive("g.fifo", ReceiveRequest.max(10)).size());
  }

  private int seen;

  @Test
  void answerBytes_filteredReceiveStopsAtTheLimitToo() {
    QueueEngine engine =
        engine(limits(Long.MAX_VALUE, Long.MAX_VALUE, 1_000_000, 1000, 1000, 2500));
    engine.createQueue("q", QueueConfig.defaults());
    for (int i = 0; i < 5; i++) {
      engine.send("q", NewMessage.builder(BODY).attribute("k", "v").build());
    }
    List<Message> got =
        engine.receive("q", ReceiveRequest.builder().maxMessages(10).selector("k = 'v'").build());
    assertEquals(2, got.size());
    assertEquals(3, engine.stats("q").available());
  }

  /** A journal that stores nothing and whose durable writes can fail (as a failing store's do). */
  private static final class FailingJournal implements io.switchboard.queue.spi.Journal {
    volatile boolean failTicket;
    volatile boolean throwAtOnce;

    @Override
    public io.switchboard.queue.spi.Snapshot load() {
      return io.switchboard.queue.spi.Snapshot.empty();
    }

    @Override
    public void append(List<io.switchboard.queue.spi.JournalEntry> entries) {}

    @Override
    public Ticket appendDurable(List<io.switchboard.queue.spi.JournalEntry> entries) {
      if (throwAtOnce) {
        throw new QueueException(ErrorCode.UNAVAILABLE, "the store has failed");
      }
      if (failTicket) {
        return () -> {
          throw new QueueException(ErrorCode.UNAVAILABLE, "storage write failed");
        };
      }
      return DONE;
    }

    @Override
    public void close() {}
  }

  @Test
  void aSendTheStoreRefuses_releasesItsReservedBytes() {
    FailingJournal journal = new FailingJournal();
    QueueEngine engine =
        QueueEngine.builder().clock(clock).journal(journal).limits(serverBytes(2 * CHARGE)).build();
    engine.createQueue("q", QueueConfig.defaults());
    engine.send("q", NewMessage.of(BODY));

    journal.failTicket = true;
    assertEquals(
        ErrorCode.UNAVAILABLE,
        assertThrows(QueueException.class, () -> engine.send("q", NewMessage.of(BODY))).code());
    assertEquals(CHARGE, engine.queuedBytes());
    journal.failTicket = false;
    journal.throwAtOnce = true;
    assertEquals(
        ErrorCode.UNAVAILABLE,
        assertThrows(QueueException.class, () -> engine.send("q", NewMessage.of(BODY))).code());
    assertEquals(CHARGE, engine.queuedBytes());

    journal.throwAtOnce = false;
    engine.send("q", NewMessage.of(BODY)); // the refused sends left the room they had reserved
    assertEquals(2 * CHARGE, engine.queuedBytes());
    assertEquals(2, engine.stats("q").depth());
  }
}
