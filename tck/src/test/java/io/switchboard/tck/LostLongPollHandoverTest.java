package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.switchboard.queue.Message;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression: a blocked receive was handed its message but never returned. The handover unparks the
 * receiver; when the receiver was at that moment waiting for the queue's lock (after a wake-up for
 * any other reason), the lock acquisition swallowed the permit, and the receiver then parked "until
 * woken" without looking again at whether it had already been served. It showed up under load as a
 * long poll hanging after a send (about one in fifty runs on two busy cores).
 *
 * <p>This test forces the interleaving: a filtered waiter's filter holds the queue's lock during
 * the send's handover, while the unfiltered waiter that is about to be served is woken spuriously
 * (legal for any parked thread) and blocks on that lock.
 */
class LostLongPollHandoverTest {

  private final ManualClock clock = ManualClock.create();
  private final QueueEngine engine = QueueEngine.builder().clock(clock).build();
  private final ExecutorService executor = Executors.newFixedThreadPool(3);

  @AfterEach
  void close() {
    engine.close();
    executor.shutdownNow();
  }

  @Test
  void receiveWait_servedWhileWaitingForQueueLock_returnsItsMessage() throws Exception {
    engine.createQueue("q", QueueConfig.defaults());
    AtomicBoolean armed = new AtomicBoolean();
    CountDownLatch filterEntered = new CountDownLatch(1);
    CountDownLatch filterRelease = new CountDownLatch(1);
    MessageFilter holdsTheLock =
        m -> {
          if (armed.getAndSet(false)) {
            filterEntered.countDown();
            awaitQuietly(filterRelease);
          }
          return false;
        };
    executor.submit(
        () ->
            engine.receive(
                "q",
                ReceiveRequest.builder()
                    .waitTime(Duration.ofSeconds(20))
                    .filter(holdsTheLock)
                    .build()));
    spinUntil(() -> engine.stats("q").waitingReceivers() == 1, "filtered waiter blocked");

    AtomicReference<Thread> receiver = new AtomicReference<>();
    Future<List<Message>> served =
        executor.submit(
            () -> {
              receiver.set(Thread.currentThread());
              return engine.receive(
                  "q", ReceiveRequest.builder().waitTime(Duration.ofSeconds(20)).build());
            });
    spinUntil(() -> engine.stats("q").waitingReceivers() == 2, "second waiter blocked");
    Thread t = receiver.get();
    spinUntil(() -> parkedOutsideLock(t), "second waiter parked");

    armed.set(true);
    Future<?> send = executor.submit(() -> engine.send("q", NewMessage.of("x")));
    assertTrue(filterEntered.await(5, TimeUnit.SECONDS), "the send never ran the filter");
    LockSupport.unpark(t);
    spinUntil(
        () -> LockSupport.getBlocker(t) instanceof AbstractQueuedSynchronizer,
        "second waiter blocked on the queue's lock");
    filterRelease.countDown();

    send.get(5, TimeUnit.SECONDS);
    assertEquals("x", served.get(5, TimeUnit.SECONDS).get(0).body());
  }

  private static boolean parkedOutsideLock(Thread t) {
    Object blocker = LockSupport.getBlocker(t);
    return blocker != null && !(blocker instanceof AbstractQueuedSynchronizer);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void spinUntil(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting for: " + what);
      }
      Thread.onSpinWait();
    }
  }
}
