package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueCreation;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Concurrent changes of one queue's configuration and metadata: {@link
 * QueueEngine#updateQueue(String, java.util.function.UnaryOperator)} is a read-modify-write done
 * atomically, so tags, attributes and settings changed at the same time from several threads (and,
 * where the engine can share its storage, through several engines) all land; and of several
 * concurrent creations of one queue exactly one says it created it.
 */
public abstract class ConcurrentUpdateContract extends EngineContract {

  private static final int THREADS = 4;
  private static final int ROUNDS = 30;
  private static final Duration START_VISIBILITY = Duration.ofSeconds(30);

  /**
   * Runs {@code ROUNDS} updates from each of {@code THREADS} threads, thread {@code t} on {@code
   * engines[t % engines.length]}; round {@code r} adds a tag of its own (r % 3 == 0), increments
   * the metadata counter (r % 3 == 1), or lengthens the visibility timeout by one second.
   */
  private void raceUpdates(QueueEngine... engines) throws Exception {
    engine.createQueue("q", config().visibilityTimeout(START_VISIBILITY).build());
    CyclicBarrier start = new CyclicBarrier(THREADS);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<Void>> done = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        QueueEngine e = engines[t % engines.length];
        Callable<Void> work =
            () -> {
              start.await(REAL_TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
              for (int r = 0; r < ROUNDS; r++) {
                String tag = "tag-" + thread + "-" + r;
                switch (r % 3) {
                  case 0 -> e.updateQueue("q", c -> withMetadata(c, tag, "v"));
                  case 1 ->
                      e.updateQueue(
                          "q",
                          c ->
                              withMetadata(
                                  c,
                                  "count",
                                  Integer.toString(
                                      Integer.parseInt(c.metadata().getOrDefault("count", "0"))
                                          + 1)));
                  default ->
                      e.updateQueue(
                          "q",
                          c ->
                              c.toBuilder()
                                  .visibilityTimeout(c.visibilityTimeout().plusSeconds(1))
                                  .build());
                }
              }
              return null;
            };
        done.add(pool.submit(work));
      }
      for (Future<Void> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    QueueConfig end = engine.queue("q").config();
    int perKind = THREADS * ROUNDS / 3;
    for (int t = 0; t < THREADS; t++) {
      for (int r = 0; r < ROUNDS; r += 3) {
        assertEquals("v", end.metadata().get("tag-" + t + "-" + r), "tag lost: tag-" + t + "-" + r);
      }
    }
    assertEquals(Integer.toString(perKind), end.metadata().get("count"), "counter updates lost");
    assertEquals(
        START_VISIBILITY.plusSeconds(perKind), end.visibilityTimeout(), "config updates lost");
    for (QueueEngine e : engines) {
      assertEquals(end, e.queue("q").config(), "every engine sees the last configuration");
    }
  }

  private static QueueConfig withMetadata(QueueConfig c, String key, String value) {
    Map<String, String> m = new HashMap<>(c.metadata());
    m.put(key, value);
    return c.toBuilder().metadata(m).build();
  }

  @Test
  void updateQueue_concurrentTagCounterAndConfigChanges_noneLost() throws Exception {
    raceUpdates(engine);
  }

  @Test
  void updateQueue_concurrentChangesThroughTwoEnginesOnOneStorage_noneLost() throws Exception {
    QueueEngine other = track(peer(engine));
    raceUpdates(engine, other);
  }

  @Test
  void updateQueue_changeThrows_propagatesAndChangesNothing() {
    create("q", config().metadata(Map.of("a", "1")));
    QueueConfig before = engine.queue("q").config();
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                engine.updateQueue(
                    "q",
                    c -> {
                      throw new IllegalStateException("refused by the caller");
                    }));
    assertEquals("refused by the caller", e.getMessage());
    assertEquals(before, engine.queue("q").config());
  }

  @Test
  void updateQueue_changeSeesCurrentConfig_returnsTheNewOne() {
    create("q", config().visibilityTimeout(seconds(10)));
    QueueInfo info =
        engine.updateQueue(
            "q",
            c -> c.toBuilder().visibilityTimeout(c.visibilityTimeout().multipliedBy(3)).build());
    assertEquals(seconds(30), info.config().visibilityTimeout());
    assertEquals(seconds(30), engine.queue("q").config().visibilityTimeout());
  }

  @Test
  void ensureQueue_newThenSameConfig_reportsCreatedOnlyTheFirstTime() {
    QueueCreation first = engine.ensureQueue("q", QueueConfig.defaults());
    QueueCreation second = engine.ensureQueue("q", QueueConfig.defaults());
    assertTrue(first.created());
    assertEquals(false, second.created());
    assertEquals(first.queue(), second.queue());
  }

  @Test
  void ensureQueue_concurrentCallsForOneNewQueue_exactlyOneCreates() throws Exception {
    CyclicBarrier start = new CyclicBarrier(THREADS);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    List<QueueCreation> results = new ArrayList<>();
    try {
      List<Future<QueueCreation>> done = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        done.add(
            pool.submit(
                () -> {
                  start.await(REAL_TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
                  return engine.ensureQueue("q", QueueConfig.defaults());
                }));
      }
      for (Future<QueueCreation> f : done) {
        results.add(f.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(1, results.stream().filter(QueueCreation::created).count(), results.toString());
    for (QueueCreation r : results) {
      assertEquals(results.get(0).queue(), r.queue());
    }
  }
}
