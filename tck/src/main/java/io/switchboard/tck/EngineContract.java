package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.SendResult;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.function.Executable;

/**
 * The common base of every contract class: a fresh {@link ManualClock} and engine per test, closed
 * after it, plus the vocabulary the contracts share (send, receive, assert an error, wait for a
 * blocked receiver). An engine under test extends {@link QueueEngineContract}, which runs every
 * feature contract; a single feature contract can also be extended on its own.
 *
 * <p>No contract sleeps: time moves only through {@link ManualClock#advance}. Blocked receives run
 * on a small executor; a test learns that a receiver is blocked by polling {@link
 * QueueStats#waitingReceivers()} with {@link Thread#onSpinWait()} in a bounded loop.
 */
public abstract class EngineContract {

  /** How long a test waits in real time for another thread before it fails. */
  protected static final Duration REAL_TIME_LIMIT = Duration.ofSeconds(5);

  protected ManualClock clock;
  protected QueueEngine engine;

  private final List<QueueEngine> engines = new ArrayList<>();
  private @Nullable ExecutorService executor;

  /** Where this contract's engines come from. */
  protected abstract EngineSource engines();

  /** A fresh, empty engine whose every timer reads {@code clock}. */
  protected final QueueEngine newEngine(ManualClock clock) {
    return engines().newEngine(clock);
  }

  /** Like {@link #newEngine(ManualClock)}, holding at most {@code maxQueues} queues. */
  protected final QueueEngine newEngine(ManualClock clock, int maxQueues) {
    return engines().newEngine(clock, maxQueues);
  }

  /** Closes {@code engine} and opens it again on the same storage (see {@link EngineSource}). */
  protected final QueueEngine restart(QueueEngine engine) {
    return engines().restart(engine);
  }

  @BeforeEach
  final void openEngine() {
    clock = ManualClock.create();
    engine = track(newEngine(clock));
  }

  @AfterEach
  final void closeEngines() throws InterruptedException {
    for (QueueEngine e : engines) {
      e.close();
    }
    engines.clear();
    if (executor != null) {
      executor.shutdownNow();
      assertTrue(
          executor.awaitTermination(REAL_TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS),
          "a receive blocked in another thread did not return after the engine closed");
    }
  }

  /** A second engine on the same storage as {@code engine} (see {@link EngineSource#peer}). */
  protected final QueueEngine peer(QueueEngine engine) {
    return engines().peer(engine);
  }

  /** Closes {@code e} after the test. */
  protected final QueueEngine track(QueueEngine e) {
    engines.add(e);
    return e;
  }

  // ---- queues ------------------------------------------------------------------------------

  protected QueueInfo create(String name) {
    return engine.createQueue(name, QueueConfig.defaults());
  }

  protected QueueInfo create(String name, QueueConfig.Builder config) {
    return engine.createQueue(name, config.build());
  }

  protected static QueueConfig.Builder config() {
    return QueueConfig.builder();
  }

  // ---- sending -----------------------------------------------------------------------------

  protected SendResult send(String queue, String body) {
    return engine.send(queue, NewMessage.of(body));
  }

  protected SendResult send(String queue, String body, int priority) {
    return engine.send(queue, NewMessage.builder(body).priority(priority).build());
  }

  /** Sends each body in turn, returning the ids in the same order. */
  protected List<String> sendAll(String queue, String... bodies) {
    List<String> ids = new ArrayList<>();
    for (String body : bodies) {
      ids.add(send(queue, body).id());
    }
    return ids;
  }

  /** Sends a message of a group, deduplicated by its body. */
  protected SendResult sendGrouped(String queue, String group, String body) {
    return engine.send(
        queue, NewMessage.builder(body).groupId(group).deduplicationId(body).build());
  }

  // ---- receiving ---------------------------------------------------------------------------

  protected List<Message> receive(String queue, int max) {
    return engine.receive(queue, ReceiveRequest.max(max));
  }

  /** Receives exactly one message and fails if there was none. */
  protected Message receiveOne(String queue) {
    List<Message> got = engine.receive(queue, ReceiveRequest.one());
    assertEquals(1, got.size(), () -> "expected one message from '" + queue + "', got " + got);
    return got.get(0);
  }

  protected void assertNothingToReceive(String queue) {
    List<Message> got = engine.receive(queue, ReceiveRequest.max(ReceiveRequest.MAX_MESSAGES));
    assertEquals(List.of(), bodies(got), "expected nothing receivable in '" + queue + "'");
  }

  /** Receives everything receivable now (up to 1000) in delivery order and returns the bodies. */
  protected List<String> receiveBodies(String queue) {
    return bodies(engine.receive(queue, ReceiveRequest.max(ReceiveRequest.MAX_MESSAGES)));
  }

  protected static List<String> bodies(List<Message> messages) {
    return messages.stream().map(Message::body).toList();
  }

  protected static List<String> ids(List<Message> messages) {
    return messages.stream().map(Message::id).toList();
  }

  protected static String receipt(Message m) {
    return m.receipt().orElseThrow(() -> new AssertionError("no receipt on " + m));
  }

  protected void ackAll(String queue, List<Message> messages) {
    for (Message m : messages) {
      engine.ack(queue, receipt(m));
    }
  }

  /** Every message of the queue in delivery order, invisible ones included, without leasing. */
  protected List<Message> browseAll(String queue) {
    return engine
        .browse(queue, BrowseRequest.first(BrowseRequest.MAX_LIMIT).includeInvisible(true))
        .items();
  }

  // ---- blocked receives --------------------------------------------------------------------

  protected static ReceiveRequest waiting(Duration wait) {
    return ReceiveRequest.builder().waitTime(wait).build();
  }

  /** Starts a receive on another thread; it may block. */
  protected Future<List<Message>> receiveAsync(String queue, ReceiveRequest request) {
    if (executor == null) {
      executor = Executors.newFixedThreadPool(4);
    }
    return executor.submit(() -> engine.receive(queue, request));
  }

  /** Starts a blocking receive and returns once it is registered as a waiting receiver. */
  protected Future<List<Message>> blockedReceive(String queue, ReceiveRequest request) {
    int before = engine.stats(queue).waitingReceivers();
    Future<List<Message>> f = receiveAsync(queue, request);
    awaitWaitingReceivers(queue, before + 1);
    return f;
  }

  /** Spins (bounded, never sleeping) until {@code queue} has {@code n} blocked receivers. */
  protected void awaitWaitingReceivers(String queue, int n) {
    long deadline = System.nanoTime() + REAL_TIME_LIMIT.toNanos();
    int seen;
    while ((seen = engine.stats(queue).waitingReceivers()) != n) {
      if (System.nanoTime() > deadline) {
        fail("expected " + n + " blocked receivers on '" + queue + "', saw " + seen);
      }
      Thread.onSpinWait();
    }
  }

  protected static <T> T result(Future<T> f) throws Exception {
    return f.get(REAL_TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  // ---- errors and "nothing changed" --------------------------------------------------------

  /**
   * Asserts that {@code op} fails with {@code code} and that the error message mentions every one
   * of {@code mentions} (the field, the value, the limit), so a caller can tell what was wrong.
   */
  protected static QueueException assertError(ErrorCode code, Executable op, String... mentions) {
    QueueException e = assertThrows(QueueException.class, op);
    assertEquals(code, e.code(), () -> "wrong code; message was: " + e.getMessage());
    for (String mention : mentions) {
      assertTrue(
          e.getMessage() != null && e.getMessage().contains(mention),
          () -> "error message should mention '" + mention + "': " + e.getMessage());
    }
    return e;
  }

  /** What a refused operation must leave as it was: stats (but waiters) and every message. */
  protected record QueueSnapshot(QueueStats stats, List<Message> messages) {}

  protected QueueSnapshot snapshot(String queue) {
    QueueStats s = engine.stats(queue);
    QueueStats withoutWaiters =
        new QueueStats(
            s.available(),
            s.delayed(),
            s.inFlight(),
            s.oldestAge(),
            s.byPriority(),
            0,
            s.counters());
    return new QueueSnapshot(withoutWaiters, browseAll(queue));
  }

  /** Asserts that {@code op} fails with {@code code} and leaves {@code queue} as it was. */
  protected QueueException assertRefusedUnchanged(
      String queue, ErrorCode code, Executable op, String... mentions) {
    QueueSnapshot before = snapshot(queue);
    QueueException e = assertError(code, op, mentions);
    assertEquals(before, snapshot(queue), "a refused operation changed the queue");
    return e;
  }

  protected static Duration seconds(long s) {
    return Duration.ofSeconds(s);
  }

  protected static Duration millis(long ms) {
    return Duration.ofMillis(ms);
  }
}
