package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An idle queue costs the heap no message table (docs/decisions.md,
 * "2026-12-02-the-message-table-is-made-by-the-first-message"): the table and every structure in it
 * are made by the queue's first message and given back once the queue stayed empty for a whole
 * housekeeping interval. Reading an idle queue (stats, the overview, an empty receive, a purge, a
 * change of configuration) makes none. Counted by structure, not by heap measure, so the test is
 * exact and quick.
 */
class IdleQueueHoldsNoTableTest extends OneQueueFixture {

  @Override
  String queueName() {
    return "q";
  }

  private boolean hasTable() {
    return queue().hasTable();
  }

  /** One housekeeping tick: a manual clock runs housekeeping on every advance. */
  private void tick() {
    clock.advance(Duration.ofMillis(100));
  }

  @Test
  void aQueueNeverUsed_isReadAndChangedWithoutATable() {
    assertFalse(hasTable(), "a new queue");
    assertEquals(0, engine.stats("q").available());
    engine.overview(10);
    assertEquals(List.of(), engine.receive("q", ReceiveRequest.max(10)));
    engine.purge("q");
    engine.updateQueue("q", c -> c.toBuilder().order(Order.LIFO).build());
    engine.listQueues("");
    tick();
    assertFalse(hasTable(), "reads, a purge and a reconfiguration make no table");
  }

  @Test
  void theFirstMessage_makesTheTable_andAQueueEmptyForAWholeInterval_givesItBack() {
    engine.send("q", NewMessage.of("a"));
    assertTrue(hasTable());
    Message m = engine.receive("q", ReceiveRequest.max(1)).get(0);
    engine.ack("q", m.receipt().orElseThrow());
    assertTrue(hasTable(), "kept until the queue stayed empty for an interval");

    tick(); // empty now: noted
    assertTrue(hasTable());
    tick(); // still empty, no message came in between: given back
    assertFalse(hasTable());

    // the queue works as before on a new table
    engine.send("q", NewMessage.of("b"));
    engine.send("q", NewMessage.of("c"));
    assertEquals(2, engine.stats("q").available());
    assertEquals(
        List.of("b", "c"),
        engine.receive("q", ReceiveRequest.max(10)).stream().map(Message::body).toList());
  }

  @Test
  void aQueueThatRunsDryBetweenMessages_keepsItsTable() {
    for (int i = 0; i < 5; i++) {
      engine.send("q", NewMessage.of("m" + i));
      Message m = engine.receive("q", ReceiveRequest.max(1)).get(0);
      engine.ack("q", m.receipt().orElseThrow());
      tick(); // empty at every tick, but a message came in since the last one
      assertTrue(hasTable(), "tick " + i);
    }
  }

  @Test
  void aQueueWithMessagesInFlightOrDelayed_keepsItsTable() {
    engine.send("q", NewMessage.builder("later").delay(Duration.ofSeconds(5)).build());
    tick();
    tick();
    assertTrue(hasTable(), "a delayed message");
    clock.advance(Duration.ofSeconds(5));
    Message m = engine.receive("q", ReceiveRequest.max(1)).get(0);
    assertEquals("later", m.body());
    tick();
    tick();
    assertTrue(hasTable(), "a message in flight");
    engine.ack("q", m.receipt().orElseThrow());
    tick();
    tick();
    assertFalse(hasTable());
  }
}
