package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression: receipts carried the receive count, which a restore or redrive resets to 0, so the
 * first receive after a trip through the dead-letter queue issued the very same handle as the first
 * receive before it, and a consumer holding the old handle could ack the new lease.
 */
class ReceiptReusedAfterRestoreTest {

  private final ManualClock clock = ManualClock.create();
  private final QueueEngine engine = QueueEngine.builder().clock(clock).build();

  @Test
  void receiveAfterRestore_oldReceipt_isStaleAndDeletesNothing() {
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue(
        "q",
        QueueConfig.builder()
            .visibilityTimeout(Duration.ofSeconds(1))
            .deadLetter("dlq", 1)
            .build());
    String id = engine.send("q", NewMessage.of("x")).id();
    String before = engine.receive("q", ReceiveRequest.one()).get(0).receipt().orElseThrow();
    clock.advanceSeconds(1);
    engine.restore("dlq", id);

    String after = engine.receive("q", ReceiveRequest.one()).get(0).receipt().orElseThrow();

    assertNotEquals(before, after);
    QueueException stale = assertThrows(QueueException.class, () -> engine.ack("q", before));
    assertEquals(ErrorCode.RECEIPT_STALE, stale.code());
    assertEquals(1, engine.stats("q").inFlight());
    engine.ack("q", after);
    assertEquals(0, engine.stats("q").depth());
  }
}
