package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueLimits;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The per-queue limits on PostgreSQL (DESIGN.md, "Overload and damage"): {@code max-queue-bytes},
 * {@code default-max-depth} and the in-flight limits refuse with the in-memory engine's codes and
 * texts and change nothing. Sends and receives are checked against counts housekeeping measures
 * plus this server's own sends and receives since, so room that consumers make counts from the next
 * housekeeping tick (here: the next advance of the manual clock), and what another server sends
 * counts from there too.
 */
class PostgresQueueLimitsTest {

  private static final String BODY = "x".repeat(1000);
  private static final long CHARGE = QueueLimits.charge(1000);

  private final ManualClock clock = ManualClock.create();
  private final List<PostgresQueueEngine> engines = new ArrayList<>();

  @BeforeEach
  void fresh() {
    TestDatabase.fresh();
  }

  @AfterEach
  void close() {
    engines.forEach(PostgresQueueEngine::close);
  }

  private PostgresQueueEngine engine(long queueBytes, long depth, int inFlight, int inFlightFifo) {
    PostgresQueueEngine e =
        PostgresQueueEngine.builder()
            .url(TestDatabase.url(), "postgres", "postgres")
            .poolSize(2)
            .notifications(false)
            .clock(clock)
            .limits(
                new QueueLimits(
                    Long.MAX_VALUE, queueBytes, depth, inFlight, inFlightFifo, Long.MAX_VALUE))
            .build();
    engines.add(e);
    return e;
  }

  /**
   * One housekeeping tick: the queues used since the last one are measured. A minute, so that a
   * queue measured less often because its last measure was slow (10 × its duration) is measured
   * again all the same.
   */
  private void tick() {
    clock.advance(Duration.ofMinutes(1));
  }

  private static QueueException refused(Runnable r) {
    return assertThrows(QueueException.class, r::run);
  }

  @Test
  void queueBytes_refuseWithQueueFull_otherQueuesStillAccept_roomCountsFromTheNextTick() {
    PostgresQueueEngine engine = engine(2 * CHARGE, 1_000_000, 10, 10);
    engine.createQueue("a", QueueConfig.defaults());
    engine.createQueue("b", QueueConfig.defaults());
    engine.send("a", NewMessage.of(BODY));
    engine.send("a", NewMessage.of(BODY));
    QueueException full = refused(() -> engine.send("a", NewMessage.of(BODY)));
    assertEquals(ErrorCode.QUEUE_FULL, full.code());
    assertTrue(full.getMessage().contains("max-queue-bytes"), full.getMessage());
    assertEquals(2, engine.stats("a").depth());
    engine.send("b", NewMessage.of(BODY));

    tick();
    assertEquals(2 * CHARGE, engine.queuedBytes("a"), "measured as the send charged it");
    engine.ack("a", engine.receive("a", ReceiveRequest.one()).get(0).receipt().orElseThrow());
    tick();
    engine.send("a", NewMessage.of(BODY));
    assertEquals(2, engine.stats("a").depth());
  }

  @Test
  void queueBytes_refuseAWholeBatch_andADeduplicatedSendToAGroupedQueue() {
    PostgresQueueEngine engine = engine(3 * CHARGE, 1_000_000, 10, 10);
    engine.createQueue("q", QueueConfig.defaults());
    engine.createQueue("g.fifo", QueueConfig.defaults());
    engine.sendBatch("q", List.of(NewMessage.of(BODY), NewMessage.of(BODY)));
    QueueException full =
        refused(() -> engine.sendBatch("q", List.of(NewMessage.of(BODY), NewMessage.of(BODY))));
    assertEquals(ErrorCode.QUEUE_FULL, full.code());
    assertEquals(2, engine.stats("q").depth());

    for (int i = 0; i < 3; i++) {
      engine.send("g.fifo", NewMessage.builder(BODY).groupId("g").deduplicationId("d" + i).build());
    }
    // a duplicate adds nothing, so it is not refused
    engine.send("g.fifo", NewMessage.builder(BODY).groupId("g").deduplicationId("d0").build());
    QueueException groupedFull =
        refused(
            () ->
                engine.send(
                    "g.fifo", NewMessage.builder(BODY).groupId("g").deduplicationId("d9").build()));
    assertEquals(ErrorCode.QUEUE_FULL, groupedFull.code());
    assertEquals(3, engine.stats("g.fifo").depth());
  }

  @Test
  void defaultMaxDepth_appliesToQueuesThatSetNone() {
    PostgresQueueEngine engine = engine(Long.MAX_VALUE, 2, 10, 10);
    engine.createQueue("plain", QueueConfig.defaults());
    engine.createQueue("deep", QueueConfig.builder().maxDepth(5, Overflow.REJECT).build());
    engine.send("plain", NewMessage.of("1"));
    engine.send("plain", NewMessage.of("2"));
    QueueException full = refused(() -> engine.send("plain", NewMessage.of("3")));
    assertEquals(ErrorCode.QUEUE_FULL, full.code());
    assertEquals(
        "queue 'plain' is full: maxDepth is 2 (the server's default-max-depth), it holds 2, and the"
            + " send adds 1",
        full.getMessage());
    assertEquals(2, engine.stats("plain").depth());
    for (int i = 0; i < 5; i++) {
      engine.send("deep", NewMessage.of("m" + i));
    }
    assertEquals(5, engine.stats("deep").depth());
  }

  @Test
  void inFlight_refusesReceiveWithOverLimit_andCapsABatch_untilAcked() {
    PostgresQueueEngine engine = engine(Long.MAX_VALUE, 1_000_000, 3, 1);
    engine.createQueue("q", QueueConfig.builder().visibilityTimeout(Duration.ofHours(1)).build());
    for (int i = 0; i < 5; i++) {
      engine.send("q", NewMessage.of("m" + i));
    }
    assertEquals(2, engine.receive("q", ReceiveRequest.max(2)).size());
    List<Message> capped = engine.receive("q", ReceiveRequest.max(10));
    assertEquals(1, capped.size(), "only one more may be in flight");
    QueueException over = refused(() -> engine.receive("q", ReceiveRequest.max(10)));
    assertEquals(ErrorCode.OVER_LIMIT, over.code());
    assertEquals(
        "queue 'q' has 3 messages in flight, its limit (max-in-flight) is 3; ack, release or let"
            + " some expire, then receive again",
        over.getMessage());
    assertEquals(3, engine.stats("q").inFlight());
    assertEquals(2, engine.stats("q").available());

    engine.ack("q", capped.get(0).receipt().orElseThrow());
    tick();
    assertEquals(1, engine.receive("q", ReceiveRequest.max(10)).size());
  }

  @Test
  void inFlight_groupedQueuesHaveTheirOwnLimit() {
    PostgresQueueEngine engine = engine(Long.MAX_VALUE, 1_000_000, 3, 1);
    engine.createQueue("g.fifo", QueueConfig.defaults());
    engine.send("g.fifo", NewMessage.builder("a").groupId("1").deduplicationId("a").build());
    engine.send("g.fifo", NewMessage.builder("b").groupId("2").deduplicationId("b").build());
    assertEquals(1, engine.receive("g.fifo", ReceiveRequest.max(10)).size());
    QueueException over = refused(() -> engine.receive("g.fifo", ReceiveRequest.one()));
    assertEquals(ErrorCode.OVER_LIMIT, over.code());
    assertTrue(over.getMessage().contains("max-in-flight-fifo"), over.getMessage());
  }

  @Test
  void anotherServersSendsCountOnceHousekeepingHasMeasuredTheQueue() {
    PostgresQueueEngine a = engine(Long.MAX_VALUE, 3, 10, 10);
    PostgresQueueEngine b = engine(Long.MAX_VALUE, 3, 10, 10);
    a.createQueue("q", QueueConfig.defaults());
    a.send("q", NewMessage.of("1"));
    b.send("q", NewMessage.of("2"));
    b.send("q", NewMessage.of("3"));
    tick(); // both servers measure the queue: 3 messages
    assertEquals(ErrorCode.QUEUE_FULL, refused(() -> a.send("q", NewMessage.of("4"))).code());
    assertEquals(ErrorCode.QUEUE_FULL, refused(() -> b.send("q", NewMessage.of("4"))).code());
    assertEquals(3, a.stats("q").depth());
  }

  @Test
  void concurrentSendsOnOneServerNeverPassTheLimitTogether() throws Exception {
    PostgresQueueEngine engine = engine(Long.MAX_VALUE, 50, 10, 10);
    engine.createQueue("q", QueueConfig.defaults());
    AtomicInteger accepted = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 20; i++) {
                    try {
                      engine.send("q", NewMessage.of("m"));
                      accepted.incrementAndGet();
                    } catch (QueueException e) {
                      assertEquals(ErrorCode.QUEUE_FULL, e.code());
                      refused.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    assertEquals(50, accepted.get());
    assertEquals(30, refused.get());
    assertEquals(50, engine.stats("q").depth());
  }

  @Test
  void aSendRefusedAfterItReservedRoomGivesTheRoomBack() {
    PostgresQueueEngine engine = engine(4 * CHARGE, 1_000_000, 10, 10);
    engine.createQueue("q", QueueConfig.builder().maxDepth(2, Overflow.REJECT).build());
    engine.send("q", NewMessage.of(BODY));
    engine.send("q", NewMessage.of(BODY));
    for (int i = 0; i < 3; i++) {
      // refused by maxDepth after max-queue-bytes had reserved its bytes
      assertTrue(
          refused(() -> engine.send("q", NewMessage.of(BODY))).getMessage().contains("maxDepth"));
    }
    engine.updateQueue("q", c -> c.toBuilder().maxDepth(10, Overflow.REJECT).build());
    engine.send("q", NewMessage.of(BODY));
    engine.send("q", NewMessage.of(BODY));
    assertEquals(ErrorCode.QUEUE_FULL, refused(() -> engine.send("q", NewMessage.of(BODY))).code());
    assertEquals(4, engine.stats("q").depth());
  }

  @Test
  void inFlight_aLapsedLeaseFreesItsRoomAtTheNextMeasure() {
    PostgresQueueEngine engine = engine(Long.MAX_VALUE, 1_000_000, 1, 1);
    engine.createQueue(
        "q", QueueConfig.builder().visibilityTimeout(Duration.ofSeconds(30)).build());
    engine.send("q", NewMessage.of("a"));
    engine.send("q", NewMessage.of("b"));
    assertEquals(1, engine.receive("q", ReceiveRequest.max(10)).size());
    assertEquals(
        ErrorCode.OVER_LIMIT, refused(() -> engine.receive("q", ReceiveRequest.one())).code());
    tick(); // the lease lapsed; the measure counts no message in flight
    assertEquals(1, engine.receive("q", ReceiveRequest.max(10)).size());
  }
}
