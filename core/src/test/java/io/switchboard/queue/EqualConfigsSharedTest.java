package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Queues made or changed to equal configurations hold one configuration object between them, not
 * one each (a million queues made through the API each arrive with their own): the heap an idle
 * queue costs does not include its configuration.
 */
class EqualConfigsSharedTest {

  private static QueueConfig thirtySeconds() {
    return QueueConfig.builder().visibilityTimeout(Duration.ofSeconds(30)).build(); // a new object
  }

  @Test
  void equalConfigurations_areHeldOnce_andAChangeGetsItsOwnOrTheSharedOne() {
    try (MemoryQueueEngine engine =
        (MemoryQueueEngine) QueueEngine.builder().clock(ManualClock.create()).build()) {
      engine.createQueue("a", thirtySeconds());
      engine.createQueue("b", thirtySeconds());
      assertSame(engine.require("a").config(), engine.require("b").config());

      engine.updateQueue("b", c -> c.toBuilder().order(Order.LIFO).build());
      assertNotSame(engine.require("a").config(), engine.require("b").config());
      assertEquals(Order.LIFO, engine.require("b").config().order());
      assertEquals(Order.FIFO, engine.require("a").config().order());

      engine.updateQueue("b", c -> c.toBuilder().order(Order.FIFO).build());
      assertSame(engine.require("a").config(), engine.require("b").config(), "equal again");
    }
  }
}
