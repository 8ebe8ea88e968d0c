package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (found by the TCK's model test on the engine-1m branch before it was merged): with the
 * visibility timers in a FIFO, leases that ended in the same millisecond were dead-lettered in the
 * order their timers were set, not in the order of their messages (the serial), so the dead-letter
 * queue's order depended on the order of the extends. Timers due in the same millisecond fire in
 * serial order, as they did when the timers were a tree by (visibleAt, serial).
 */
class SameMillisecondTimersFiredInSettingOrderTest {

  private final ManualClock clock = ManualClock.create();
  private final QueueEngine engine = QueueEngine.builder().clock(clock).build();

  @Test
  void leasesExtendedInReverseToTheSameMillisecond_deadLetteredInSerialOrder() {
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue("q", QueueConfig.builder().deadLetter("dlq", 1).build());
    String first = engine.send("q", NewMessage.of("1")).id();
    String second = engine.send("q", NewMessage.of("2")).id();
    String third = engine.send("q", NewMessage.of("3")).id();
    List<Message> leased = engine.receive("q", ReceiveRequest.builder().maxMessages(3).build());
    assertEquals(3, leased.size());
    for (int i = 2; i >= 0; i--) { // the last message's timer set first
      engine.extend("q", leased.get(i).receipt().orElseThrow(), Duration.ofSeconds(60));
    }

    clock.advance(Duration.ofSeconds(61));

    List<String> order =
        engine.receive("dlq", ReceiveRequest.builder().maxMessages(3).build()).stream()
            .map(Message::id)
            .toList();
    assertEquals(List.of(first, second, third), order);
  }
}
