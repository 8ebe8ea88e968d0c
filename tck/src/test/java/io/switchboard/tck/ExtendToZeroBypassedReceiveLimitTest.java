package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression: {@code extend(receipt, 0)} made a message available again even when its receive count
 * had reached {@code maxReceiveCount}, so a consumer could keep a poison message out of the
 * dead-letter queue forever. docs/design.md: such a message "goes to the DLQ instead of becoming
 * visible again", whether the lease ends by timeout, release or extend to zero.
 */
class ExtendToZeroBypassedReceiveLimitTest {

  private final QueueEngine engine = QueueEngine.builder().clock(ManualClock.create()).build();

  @AfterEach
  void close() {
    engine.close();
  }

  @Test
  void extendToZero_atMaxReceiveCount_deadLettersInsteadOfReturning() {
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue("q", QueueConfig.builder().deadLetter("dlq", 1).build());
    String id = engine.send("q", NewMessage.of("poison")).id();
    Message m = engine.receive("q", ReceiveRequest.one()).get(0);

    Message after = engine.extend("q", m.receipt().orElseThrow(), Duration.ZERO);

    assertEquals(MessageState.DEAD_LETTERED, after.state());
    assertEquals(List.of(), engine.receive("q", ReceiveRequest.one()));
    assertEquals(id, engine.receive("dlq", ReceiveRequest.one()).get(0).id());
    assertEquals(1, engine.stats("q").counters().deadLettered());
  }
}
