package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Regression: a long poll checked "done" only before taking the queue lock to compute its wake-up
 * time. When that lock acquisition parked while a sender handed a message over, the handover's
 * unpark was consumed by the lock's park, and the receiver then parked on a completed wait: forever
 * on a manual clock, until the wait's deadline on the system clock, holding a lease it never
 * returned. It showed within a few dozen handovers on two cores.
 */
class LongPollLostWakeupTest {

  @Test
  void handoverToLongPoll_manyTimes_everyReceiverReturns() throws Exception {
    ExecutorService receivers = Executors.newSingleThreadExecutor();
    try {
      for (int i = 0; i < 500; i++) {
        ManualClock clock = ManualClock.create();
        try (QueueEngine engine = QueueEngine.builder().clock(clock).build()) {
          engine.createQueue("q", QueueConfig.defaults());
          Future<List<Message>> waiting =
              receivers.submit(
                  () ->
                      engine.receive(
                          "q", ReceiveRequest.builder().waitTime(Duration.ofSeconds(20)).build()));
          while (engine.stats("q").waitingReceivers() == 0) {
            Thread.onSpinWait();
          }
          engine.send("q", NewMessage.of("x" + i));
          assertEquals("x" + i, waiting.get(10, TimeUnit.SECONDS).get(0).body());
        }
      }
    } finally {
      receivers.shutdownNow();
    }
  }
}
