package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Regression: stats reported the age of the first message to arrive in the queue, not of the oldest
 * one. A message moved in (dead-lettered, restored, redriven) keeps its send time, so a dead-letter
 * queue fed by two sources, or a queue that got an old message back, showed an oldest age that was
 * too young.
 */
class OldestAgeIgnoredMovedMessagesTest {

  private final ManualClock clock = ManualClock.create();
  private final QueueEngine engine = QueueEngine.builder().clock(clock).build();

  @Test
  void stats_deadLetterQueueFedOutOfSendOrder_reportsOldestSendTime() {
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue("a", QueueConfig.builder().deadLetter("dlq", 5).build());
    engine.createQueue("b", QueueConfig.builder().deadLetter("dlq", 5).build());
    String old = engine.send("a", NewMessage.of("old")).id();
    clock.advanceSeconds(10);
    engine.deadLetterById("b", engine.send("b", NewMessage.of("young")).id());
    engine.deadLetterById("a", old);
    clock.advanceSeconds(1);

    assertEquals(Optional.of(Duration.ofSeconds(11)), engine.stats("dlq").oldestAge());
  }

  @Test
  void stats_oldMessageRestored_reportsItsAge() {
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue("a", QueueConfig.builder().deadLetter("dlq", 5).build());
    String old = engine.send("a", NewMessage.of("old")).id();
    engine.deadLetterById("a", old);
    clock.advanceSeconds(10);
    engine.send("a", NewMessage.of("young"));

    engine.restore("dlq", old);

    assertEquals(Optional.of(Duration.ofSeconds(10)), engine.stats("a").oldestAge());
  }
}
