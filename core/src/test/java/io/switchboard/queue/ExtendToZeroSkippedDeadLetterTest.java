package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression: extend with a zero visibility timeout made the message available again without the
 * maxReceiveCount check that release and lease expiry make, so a consumer could keep a poison
 * message out of the dead-letter queue forever.
 */
class ExtendToZeroSkippedDeadLetterTest {

  private final ManualClock clock = ManualClock.create();
  private final QueueEngine engine = QueueEngine.builder().clock(clock).build();

  @Test
  void extendToZero_lastAllowedReceive_deadLetters() {
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue("q", QueueConfig.builder().deadLetter("dlq", 1).build());
    String id = engine.send("q", NewMessage.of("poison")).id();
    String receipt = engine.receive("q", ReceiveRequest.one()).get(0).receipt().orElseThrow();

    Message left = engine.extend("q", receipt, Duration.ZERO);

    assertEquals(MessageState.DEAD_LETTERED, left.state());
    assertEquals(0, engine.stats("q").depth());
    assertEquals(MessageState.AVAILABLE, engine.get("dlq", id).state());
  }
}
