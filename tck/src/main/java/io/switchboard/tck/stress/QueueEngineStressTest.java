package io.switchboard.tck.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Concurrency stress test: real producer and consumer threads on the real clock, bounded by a
 * message count, never by time, and without sleeping. Consumers mix long polls and non-blocking
 * receives, filtered and unfiltered. Each test asserts its guarantee per message and then that the
 * queue is empty and its counters add up; every thread must finish ({@code Future.get} with a
 * generous timeout is only a safety net against a hang, not a timing assertion).
 *
 * <p>Subclass it once per engine; {@link #newEngine()} gives a fresh engine on the system clock.
 */
public abstract class QueueEngineStressTest {

  private static final int PRODUCERS = 4;
  private static final int CONSUMERS = 4;
  private static final long SAFETY_NET_SECONDS = 120;
  private static final Duration LONG_LEASE = Duration.ofMinutes(10);
  private static final MessageFilter RED = m -> isRed(m.attributeOrNull("color"));

  private QueueEngine engine;
  private ExecutorService threads;

  /** A fresh, empty engine on the system clock; closed by the test. */
  protected abstract QueueEngine newEngine();

  /** Messages per test of the standard queue; subclasses of slow engines may lower it. */
  protected int standardMessages() {
    return 20_000;
  }

  @BeforeEach
  void start() {
    engine = newEngine();
    threads = Executors.newFixedThreadPool(PRODUCERS + CONSUMERS);
  }

  @AfterEach
  void stop() {
    threads.shutdownNow();
    engine.close();
  }

  // ---- standard queue: exactly once, one holder at a time --------------------------------

  @Test
  void standardQueue_concurrentProducersAndConsumers_eachMessageReceivedAndAckedOnce()
      throws Exception {
    engine.createQueue("std", QueueConfig.builder().visibilityTimeout(LONG_LEASE).build());
    int total = standardMessages();
    Set<String> sent = ConcurrentHashMap.newKeySet();
    Set<String> received = ConcurrentHashMap.newKeySet();
    Map<String, Integer> holders = new ConcurrentHashMap<>();
    AtomicInteger acked = new AtomicInteger();
    List<Callable<Void>> work = new ArrayList<>();
    for (int p = 0; p < PRODUCERS; p++) {
      work.add(producer("std", p, total / PRODUCERS, sent, this::plainMessage));
    }
    for (int c = 0; c < CONSUMERS; c++) {
      int me = c;
      MessageFilter filter = c == 3 ? RED : null;
      Duration wait = c == 2 ? Duration.ZERO : Duration.ofMillis(100 + 100 * c);
      work.add(
          () -> {
            SplittableRandom random = new SplittableRandom(me);
            while (acked.get() < total) {
              for (Message m : receive("std", 1 + random.nextInt(10), wait, filter)) {
                if (filter != null && !isRed(m.attributes().get("color"))) {
                  throw new AssertionError("filtered consumer got " + m.body());
                }
                if (!received.add(m.id())) {
                  throw new AssertionError("message " + m.body() + " delivered twice");
                }
                Integer other = holders.putIfAbsent(m.id(), me);
                if (other != null) {
                  throw new AssertionError(
                      m.body() + " leased to " + me + " while " + other + " holds it");
                }
                engine.ack("std", m.receipt().orElseThrow());
                holders.remove(m.id(), me);
                acked.incrementAndGet();
              }
            }
            return null;
          });
    }
    runAll(work);

    assertEquals(total, sent.size(), "distinct ids sent");
    assertEquals(sent, received, "every message sent was received");
    assertEmptyWithCounters("std", total, total);
  }

  // ---- grouped queue: order within each group across consumers ---------------------------

  @Test
  void groupedQueue_concurrentConsumers_keepOrderWithinEachGroupAndAckOnce() throws Exception {
    engine.createQueue("grp.fifo", QueueConfig.builder().visibilityTimeout(LONG_LEASE).build());
    int groups = 400;
    int perGroup = 20;
    int total = groups * perGroup;
    AtomicIntegerArray nextReceived = new AtomicIntegerArray(groups);
    AtomicIntegerArray ackedInGroup = new AtomicIntegerArray(groups);
    Set<String> received = ConcurrentHashMap.newKeySet();
    AtomicInteger acked = new AtomicInteger();
    List<Callable<Void>> work = new ArrayList<>();
    for (int p = 0; p < PRODUCERS; p++) {
      int producer = p;
      work.add(
          () -> {
            // Each producer owns the groups g with g % PRODUCERS == producer and sends each group's
            // messages in order, interleaving groups within its batches.
            SplittableRandom random = new SplittableRandom(100 + producer);
            List<NewMessage> batch = new ArrayList<>();
            int size = 1 + random.nextInt(10);
            for (int k = 0; k < perGroup; k++) {
              for (int g = producer; g < groups; g += PRODUCERS) {
                batch.add(
                    NewMessage.builder(g + ":" + k)
                        .groupId("g" + g)
                        .deduplicationId(g + "-" + k)
                        .attribute("color", k % 3 == 0 ? "red" : "blue")
                        .build());
                if (batch.size() == size) {
                  engine.sendBatch("grp.fifo", batch);
                  batch.clear();
                  size = 1 + random.nextInt(10);
                }
              }
            }
            if (!batch.isEmpty()) {
              engine.sendBatch("grp.fifo", batch);
            }
            return null;
          });
    }
    for (int c = 0; c < CONSUMERS; c++) {
      int me = c;
      MessageFilter filter = c == 3 ? RED : null;
      Duration wait = c == 2 ? Duration.ZERO : Duration.ofMillis(100 + 100 * c);
      work.add(
          () -> {
            SplittableRandom random = new SplittableRandom(200 + me);
            while (acked.get() < total) {
              List<Message> batch = receive("grp.fifo", 1 + random.nextInt(10), wait, filter);
              Set<Integer> firstOfGroup = new java.util.HashSet<>();
              for (Message m : batch) {
                int g = Integer.parseInt(m.body().substring(0, m.body().indexOf(':')));
                int k = Integer.parseInt(m.body().substring(m.body().indexOf(':') + 1));
                if (!received.add(m.id())) {
                  throw new AssertionError("message " + m.body() + " delivered twice");
                }
                int expected = nextReceived.getAndIncrement(g);
                if (k != expected) {
                  throw new AssertionError(
                      "group " + g + " out of order: got " + k + ", expected " + expected);
                }
                if (firstOfGroup.add(g) && ackedInGroup.get(g) != k) {
                  throw new AssertionError(
                      "group "
                          + g
                          + " message "
                          + k
                          + " delivered while "
                          + (k - ackedInGroup.get(g))
                          + " earlier ones are in flight");
                }
              }
              for (Message m : batch) {
                int g = Integer.parseInt(m.body().substring(0, m.body().indexOf(':')));
                // Count before the ack, so that a consumer served right after it never sees a
                // stale count; the check above then only misses a violation inside this window.
                ackedInGroup.incrementAndGet(g);
                engine.ack("grp.fifo", m.receipt().orElseThrow());
                acked.incrementAndGet();
              }
            }
            return null;
          });
    }
    runAll(work);

    assertEquals(total, received.size(), "distinct messages received");
    for (int g = 0; g < groups; g++) {
      assertEquals(perGroup, nextReceived.get(g), "messages received of group " + g);
    }
    assertEmptyWithCounters("grp.fifo", total, total);
  }

  // ---- short leases: at least once, stale receipts refused -------------------------------

  @Test
  void shortVisibility_consumersDropMessages_everyMessageAckedAndStaleReceiptsRefused()
      throws Exception {
    Duration lease = Duration.ofMillis(50);
    engine.createQueue("short", QueueConfig.builder().visibilityTimeout(lease).build());
    int total = 3_000;
    Set<String> sent = ConcurrentHashMap.newKeySet();
    Set<String> done = ConcurrentHashMap.newKeySet();
    Map<String, String> dropped = new ConcurrentHashMap<>();
    AtomicLong staleRefused = new AtomicLong();
    AtomicLong redelivered = new AtomicLong();
    List<Callable<Void>> work = new ArrayList<>();
    for (int p = 0; p < PRODUCERS; p++) {
      work.add(producer("short", p, total / PRODUCERS, sent, this::plainMessage));
    }
    for (int c = 0; c < CONSUMERS; c++) {
      int me = c;
      MessageFilter filter = c == 3 ? RED : null;
      Duration wait = c == 2 ? Duration.ZERO : Duration.ofMillis(100);
      work.add(
          () -> {
            SplittableRandom random = new SplittableRandom(300 + me);
            while (done.size() < total) {
              for (Message m : receive("short", 1 + random.nextInt(5), wait, filter)) {
                String receipt = m.receipt().orElseThrow();
                String old = m.receiveCount() > 1 ? dropped.get(m.id()) : null;
                if (old != null && !old.equals(receipt)) {
                  redelivered.incrementAndGet();
                  if (hold("short", receipt)) {
                    checkStaleReceiptRefused("short", m, old);
                    staleRefused.incrementAndGet();
                    engine.ack("short", receipt);
                    done.add(m.id());
                    continue;
                  }
                }
                if (random.nextInt(5) == 0) {
                  dropped.put(m.id(), receipt);
                  continue;
                }
                try {
                  engine.ack("short", receipt);
                  done.add(m.id());
                } catch (QueueException e) {
                  // Too slow: the lease ran out and someone received the message again.
                  assertEquals(ErrorCode.RECEIPT_STALE, e.code(), e.getMessage());
                }
              }
            }
            return null;
          });
    }
    runAll(work);

    assertEquals(sent, done, "every message was acked at least once");
    assertTrue(redelivered.get() > 0, "dropped messages came back");
    assertTrue(staleRefused.get() > 0, "stale receipts were tried");
    QueueStats stats = engine.stats("short");
    assertEquals(0, stats.depth(), "queue drained");
    assertEquals(total, stats.counters().acked(), "each message deleted by exactly one ack");
    assertEquals(0, stats.counters().expired() + stats.counters().removed());
  }

  /** Makes the short lease long, so nobody else can take the message; false if it ran out. */
  private boolean hold(String queue, String receipt) {
    try {
      engine.extend(queue, receipt, Duration.ofMinutes(1));
      return true;
    } catch (QueueException e) {
      return false;
    }
  }

  /**
   * The message was received again since {@code old} was issued and is held by this thread: acking
   * with {@code old} must be refused and must leave the message leased.
   */
  private void checkStaleReceiptRefused(String queue, Message m, String old) {
    try {
      engine.ack(queue, old);
      throw new AssertionError("stale receipt of " + m.body() + " accepted");
    } catch (QueueException e) {
      assertEquals(ErrorCode.RECEIPT_STALE, e.code(), e.getMessage());
    }
    try {
      assertEquals(MessageState.IN_FLIGHT, engine.get(queue, m.id()).state(), m.body());
    } catch (QueueException e) {
      throw new AssertionError("a refused stale ack deleted " + m.body(), e);
    }
  }

  // ---- helpers ---------------------------------------------------------------------------

  private Callable<Void> producer(
      String queue, int producer, int count, Set<String> sent, MessageMaker make) {
    return () -> {
      SplittableRandom random = new SplittableRandom(producer);
      int i = 0;
      while (i < count) {
        if (random.nextBoolean()) {
          sent.add(engine.send(queue, make.message(producer, i++)).id());
          continue;
        }
        List<NewMessage> batch = new ArrayList<>();
        for (int n = 1 + random.nextInt(10); n > 0 && i < count; n--) {
          batch.add(make.message(producer, i++));
        }
        engine.sendBatch(queue, batch).forEach(r -> sent.add(r.id()));
      }
      return null;
    };
  }

  /** Builds message {@code i} of a producer. */
  @FunctionalInterface
  private interface MessageMaker {
    NewMessage message(int producer, int i);
  }

  private NewMessage plainMessage(int producer, int i) {
    return NewMessage.builder("p" + producer + "-" + i)
        .attribute("color", i % 3 == 0 ? "red" : "blue")
        .priority(i % 7 == 0 ? 1 : 0)
        .build();
  }

  private List<Message> receive(
      String queue, int max, Duration wait, @Nullable MessageFilter filter) {
    ReceiveRequest.Builder b = ReceiveRequest.builder().maxMessages(max).waitTime(wait);
    if (filter != null) {
      b.filter(filter);
    }
    List<Message> got = engine.receive(queue, b.build());
    if (got.isEmpty() && wait.isZero()) {
      Thread.yield();
    }
    return got;
  }

  private static boolean isRed(@Nullable AttributeValue v) {
    return v instanceof AttributeValue.StringValue s && s.value().equals("red");
  }

  /** Runs every task on its own thread and waits for all; the first failure fails the test. */
  private void runAll(List<Callable<Void>> work) throws Exception {
    List<Future<Void>> futures = new ArrayList<>();
    for (Callable<Void> w : work) {
      futures.add(threads.submit(w));
    }
    Map<Integer, Throwable> failures = new LinkedHashMap<>();
    for (int i = 0; i < futures.size(); i++) {
      try {
        futures.get(i).get(SAFETY_NET_SECONDS, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        failures.put(i, e.getCause());
        futures.forEach(f -> f.cancel(true));
      } catch (java.util.concurrent.CancellationException e) {
        // cancelled after another thread failed; that failure is reported
      } catch (java.util.concurrent.TimeoutException e) {
        throw new AssertionError(
            "thread " + i + " still running after " + SAFETY_NET_SECONDS + " s (stuck waiter?)");
      }
    }
    if (!failures.isEmpty()) {
      Throwable first = failures.values().iterator().next();
      throw new AssertionError("thread failed: " + first, first);
    }
  }

  private void assertEmptyWithCounters(String queue, long sent, long acked) {
    QueueStats stats = engine.stats(queue);
    assertEquals(0, stats.depth(), "queue drained");
    assertEquals(0, stats.waitingReceivers(), "no receiver left waiting");
    assertEquals(sent, stats.counters().sent(), "sent counter");
    assertEquals(acked, stats.counters().received(), "received counter: no redelivery");
    assertEquals(acked, stats.counters().acked(), "acked counter");
  }
}
