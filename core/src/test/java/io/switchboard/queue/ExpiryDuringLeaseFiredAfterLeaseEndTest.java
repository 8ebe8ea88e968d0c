package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression: due timers fired all lease ends first, then all expiries. A message whose time to
 * live ran out during its lease was, when both timers were fired late together, first released
 * (counted as released and, at its last allowed receive, dead-lettered) instead of expiring, so the
 * outcome depended on how soon something touched the queue.
 */
class ExpiryDuringLeaseFiredAfterLeaseEndTest {

  private final ManualClock clock = ManualClock.create();
  private final QueueEngine engine = QueueEngine.builder().clock(clock).build();

  @Test
  void leasedMessageExpires_bothTimersDueTogether_expiresWithoutRelease() {
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue("q", QueueConfig.builder().deadLetter("dlq", 1).build());
    engine.send("q", NewMessage.builder("x").timeToLive(Duration.ofSeconds(5)).build());
    engine.receive("q", ReceiveRequest.builder().visibilityTimeout(Duration.ofSeconds(10)).build());

    clock.advanceSeconds(20);

    QueueStats.Counters counters = engine.stats("q").counters();
    assertEquals(1, counters.expired());
    assertEquals(0, counters.released());
    assertEquals(0, counters.deadLettered());
    assertEquals(0, engine.stats("dlq").depth());
  }
}
