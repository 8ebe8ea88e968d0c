package io.switchboard.server.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.testing.Await;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher on its own, with a sink that collects: what any push transport (a gRPC stream, an
 * HTTP endpoint) gets from it. The clock is manual and only advanced where a test says so.
 */
class DispatcherTest {

  private final ManualClock clock = ManualClock.create();
  private final QueueEngine engine = QueueEngine.builder().clock(clock).build();
  private final Dispatcher dispatcher = new Dispatcher(engine);
  private final Collecting sink = new Collecting();

  @AfterEach
  void close() {
    dispatcher.close();
    engine.close();
  }

  private static final class Collecting implements Sink {
    final BlockingQueue<Message> messages = new LinkedBlockingQueue<>();
    final BlockingQueue<QueueException> failures = new LinkedBlockingQueue<>();

    @Override
    public void deliver(Message message) {
      messages.add(message);
    }

    @Override
    public void failed(QueueException error) {
      failures.add(error);
    }

    Message next() throws InterruptedException {
      Message m = messages.poll(10, TimeUnit.SECONDS);
      assertNotNull(m, "a message within 10 s");
      return m;
    }
  }

  @Test
  void aPace_holdsTheSubscriptionBack_untilItGrantsPermits() throws Exception {
    engine.createQueue("q", QueueConfig.defaults());
    for (int i = 0; i < 3; i++) {
      engine.send("q", NewMessage.of("m" + i));
    }
    Semaphore tokens = new Semaphore(0);
    Pace bucket =
        wanted -> {
          tokens.acquire();
          return 1; // one message per token, whatever the credit allows
        };
    Subscription s = dispatcher.subscribe("q", ConsumeOptions.credit(10).pace(bucket), sink);
    assertEquals(3, engine.stats("q").available(), "no token, nothing taken");
    tokens.release();
    assertEquals("m0", sink.next().body());
    Await.until(() -> engine.stats("q").inFlight() == 1, "one leased");
    assertEquals(2, engine.stats("q").available(), "one token, one message");
    tokens.release(2);
    sink.next();
    sink.next();
    assertEquals(3, s.held());
  }

  @Test
  void aLeaseThatRunsOut_givesItsCreditBack() throws Exception {
    engine.createQueue("q", QueueConfig.defaults());
    engine.send("q", NewMessage.of("a"));
    engine.send("q", NewMessage.of("b"));
    Subscription s =
        dispatcher.subscribe(
            "q", ConsumeOptions.credit(1).visibilityTimeout(Duration.ofSeconds(10)), sink);
    sink.next();
    assertEquals(1, s.held());
    assertEquals(1, engine.stats("q").available(), "the credit is spent: b waits");
    clock.advanceSeconds(11);
    sink.next(); // the lease ran out unsettled: its credit came back, and a message with it
    Await.until(() -> s.held() == 1, "one held again");
  }

  @Test
  void closing_releasesWhatItHolds_andTheSinkHearsOfADeletedQueue() throws Exception {
    engine.createQueue("q", QueueConfig.defaults());
    engine.send("q", NewMessage.of("a"));
    Subscription s = dispatcher.subscribe("q", ConsumeOptions.credit(5), sink);
    sink.next();
    s.close();
    assertEquals(1, engine.stats("q").available());
    assertEquals(0, dispatcher.open());

    engine.createQueue("gone", QueueConfig.defaults());
    dispatcher.subscribe("gone", ConsumeOptions.credit(1), sink);
    Await.until(() -> engine.stats("gone").waitingReceivers() == 1, "waiting");
    engine.deleteQueue("gone");
    QueueException e = sink.failures.poll(10, TimeUnit.SECONDS);
    assertNotNull(e, "the sink hears why the subscription ended");
    assertEquals(ErrorCode.QUEUE_NOT_FOUND, e.code(), e.getMessage());
  }

  @Test
  void aQueueThatDoesNotExist_opensNothing() {
    QueueException e =
        assertThrows(
            QueueException.class,
            () -> dispatcher.subscribe("nope", ConsumeOptions.credit(1), sink));
    assertEquals(ErrorCode.QUEUE_NOT_FOUND, e.code());
    assertEquals(0, dispatcher.open());
  }
}
