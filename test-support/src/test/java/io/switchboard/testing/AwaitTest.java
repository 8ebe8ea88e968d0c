package io.switchboard.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AwaitTest {

  @Test
  void conditionAlreadyTrue_returnsAfterOneLook() {
    AtomicInteger looks = new AtomicInteger();
    Await.until(() -> looks.incrementAndGet() > 0, "anything");
    assertEquals(1, looks.get());
  }

  @Test
  void conditionAnotherThreadMakesTrue_isSeen() throws InterruptedException {
    AtomicBoolean done = new AtomicBoolean();
    Thread other = Thread.ofPlatform().start(() -> done.set(true));
    Await.until(done::get, "the other thread");
    other.join();
  }

  @Test
  void value_isTheFirstOneFound() {
    AtomicInteger looks = new AtomicInteger();
    int found =
        Await.value(
            () -> looks.incrementAndGet() == 3 ? Optional.of(42) : Optional.empty(),
            () -> "the third look",
            Await.LIMIT);
    assertEquals(42, found);
    assertEquals(3, looks.get());
  }

  @Test
  void limitRunsOut_failsNamingWhatItWaitedFor_andTheLimit() {
    AtomicLong now = new AtomicLong();
    AtomicInteger looks = new AtomicInteger();
    AssertionError e =
        assertThrows(
            AssertionError.class,
            () ->
                Await.value(
                    () -> {
                      looks.incrementAndGet();
                      return Optional.empty();
                    },
                    () -> "the queue to drain",
                    Duration.ofSeconds(3),
                    () -> now.getAndAdd(Duration.ofSeconds(1).toNanos())));
    assertEquals("timed out after 3000 ms waiting for the queue to drain", e.getMessage());
    assertTrue(looks.get() >= 3, "looked until the limit: " + looks.get());
  }

  @Test
  void interrupted_failsAndKeepsTheInterrupt() {
    Thread.currentThread().interrupt();
    try {
      AssertionError e =
          assertThrows(AssertionError.class, () -> Await.until(() -> false, "nothing"));
      assertEquals("interrupted while waiting for nothing", e.getMessage());
      assertTrue(Thread.currentThread().isInterrupted());
    } finally {
      Thread.interrupted();
    }
  }
}
