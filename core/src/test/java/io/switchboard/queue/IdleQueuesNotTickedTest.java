package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The housekeeping ticks only the queues a tick has work on (docs/decisions.md,
 * "2026-12-02-housekeeping-ticks-only-queues-with-work"): one with messages or its table, sends
 * waiting for their write, deduplication ids or history records to expire, or blocked receivers. A
 * million idle queues are then not locked and visited ten times a second, and every timer of a
 * queue with work still fires on its tick.
 */
class IdleQueuesNotTickedTest {

  private ManualClock clock;
  private MemoryQueueEngine engine;

  @BeforeEach
  void open() {
    clock = ManualClock.create();
    engine = (MemoryQueueEngine) QueueEngine.builder().clock(clock).build();
    for (int i = 0; i < 100; i++) {
      engine.createQueue("q" + i, QueueConfig.defaults());
    }
  }

  @AfterEach
  void close() {
    engine.close();
  }

  /** One housekeeping tick: a manual clock runs housekeeping on every advance. */
  private void tick() {
    clock.advance(Duration.ofMillis(100));
  }

  @Test
  void idleQueues_areNotTicked_andReadingThemDoesNotMakeThemTicked() {
    assertEquals(0, engine.tickedQueues());
    engine.stats("q1");
    engine.overview(10);
    assertEquals(List.of(), engine.receive("q2", ReceiveRequest.max(10)));
    engine.purge("q3");
    tick();
    assertEquals(0, engine.tickedQueues());
  }

  @Test
  void aQueueWithAMessage_isTicked_untilItGaveBackItsTable() {
    engine.send("q7", NewMessage.of("a"));
    assertEquals(1, engine.tickedQueues());
    Message m = engine.receive("q7", ReceiveRequest.max(1)).get(0);
    engine.ack("q7", m.receipt().orElseThrow());
    tick(); // empty: noted
    assertEquals(1, engine.tickedQueues());
    tick(); // still empty: the table is given back, and nothing is left for a tick
    assertFalse(engine.require("q7").hasTable());
    assertEquals(0, engine.tickedQueues());
  }

  @Test
  void aLeaseRunsOutOnItsTick_withNoCallOnTheQueue() {
    engine.updateQueue("q4", c -> c.toBuilder().visibilityTimeout(Duration.ofSeconds(1)).build());
    engine.send("q4", NewMessage.of("a"));
    engine.receive("q4", ReceiveRequest.max(1));
    assertEquals(1, engine.overview(10).inFlight());
    clock.advance(Duration.ofMillis(1100)); // the lease ends; only the housekeeping sees it
    assertEquals(0, engine.overview(10).inFlight());
    assertEquals(1, engine.overview(10).available());
  }

  @Test
  void aQueueKeepingOnlyDeduplicationIds_isTickedUntilTheyExpire() {
    engine.send("q5", NewMessage.builder("a").deduplicationId("d").build());
    Message m = engine.receive("q5", ReceiveRequest.max(1)).get(0);
    engine.ack("q5", m.receipt().orElseThrow());
    tick();
    tick();
    assertFalse(engine.require("q5").hasTable());
    assertEquals(1, engine.tickedQueues(), "the id has five minutes to run");
    clock.advance(Duration.ofMillis(DedupWindow.WINDOW_MILLIS));
    tick();
    assertEquals(0, engine.tickedQueues());
    // the id expired: the same id is taken as a new message
    engine.send("q5", NewMessage.builder("b").deduplicationId("d").build());
    assertEquals(1, engine.stats("q5").available());
  }

  @Test
  void theOverview_countsIdleQueuesWithoutReadingThem_andNamesTheDeepestFirst() {
    for (int i = 0; i < 3; i++) {
      engine.send("q50", NewMessage.of("m" + i));
    }
    clock.advance(Duration.ofMillis(1)); // q7's message is the younger
    engine.send("q7", NewMessage.builder("later").delay(Duration.ofSeconds(60)).build());
    QueueOverview o = engine.overview(3);
    assertEquals(100, o.queues());
    assertEquals(3, o.available());
    assertEquals(1, o.delayed());
    assertEquals("q50", o.deepest().get(0));
    assertEquals("q7", o.deepest().get(1));
    assertEquals(3, o.deepest().size(), "an idle queue fills the room left");
    assertEquals(List.of("q50", "q7"), o.oldest(), "only queues holding messages have an age");

    engine.deleteQueue("q50");
    QueueOverview after = engine.overview(3);
    assertEquals(99, after.queues());
    assertEquals(0, after.available(), "a deleted queue is not counted, ticked or not");
  }

  @Test
  void aDeletedQueue_leavesTheTicks() {
    engine.send("q6", NewMessage.of("a"));
    assertEquals(1, engine.tickedQueues());
    engine.deleteQueue("q6");
    tick();
    assertEquals(0, engine.tickedQueues());
  }
}
