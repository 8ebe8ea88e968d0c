package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Regression (found by an operator; docs/operations.md, "Bounded work per request"): 20 messages
 * with a 200 KB attribute and two receives filtered by {@code s LIKE '%' + 4,000 × '_' + 'X%'} made
 * a plain send to the same queue wait 3 s (38 s with 1 MB attributes). The LIKE matcher cost text ×
 * pattern length, and a filtered receive tested every message in one hold of the queue's lock.
 *
 * <p>Now the pattern is one pass over the text, a filtered scan spends a bounded budget per hold
 * and then lets the queued threads in, and the engine counts the entries each hold examines and
 * measures its longest hold. The count is the exact bound, the same on any machine; the wall-clock
 * bound is generous (the machine running the tests is shared and noisy); a hold is typically a few
 * milliseconds, the defect's were seconds.
 */
class PathologicalSelectorHeldQueueLockTest {

  /**
   * Far below the defect's seconds per hold and far above a hold's real cost; a GC pause inside a
   * hold on a machine at load 15 measured 1.4 s. The exact bound is the work count below.
   */
  private static final Duration GENEROUS_HOLD = Duration.ofSeconds(5);

  /** The scan's tests per hold, plus a batch taken twice over (as BigQueueLockHoldTest). */
  private static final long WORK_BUDGET =
      Scan.Limits.DEFAULT.messages() + 2L * ReceiveRequest.MAX_MESSAGES;

  private static final String FROZE_THE_QUEUE = "s LIKE '%" + "_".repeat(4000) + "X%'";

  @Test
  void pathologicalSelectors_underLoad_holdTheLockBriefly_andStillFindTheirMatches()
      throws Exception {
    try (QueueEngine engine = QueueEngine.inMemory()) {
      MemoryQueueEngine memory = (MemoryQueueEngine) engine;
      engine.createQueue("q", QueueConfig.builder().indexedAttributes("k").build());
      String big = "y".repeat(1_000_000);
      for (int i = 0; i < 20; i++) {
        engine.send("q", NewMessage.builder("big" + i).attribute("s", big).build());
      }
      engine.send("q", NewMessage.builder("match").attribute("s", big + "X").build());
      for (int k = 0; k < 2000; k++) {
        engine.send("q", NewMessage.builder("part" + k).attribute("k", "v" + k).build());
      }
      String hugeIn =
          "k IN ("
              + IntStream.range(0, 400)
                  .mapToObj(i -> "'w" + i + "'")
                  .collect(Collectors.joining(","))
              + ")";
      String deepOr =
          "(".repeat(30) + "s = 'a'" + ") OR s LIKE '%a%a%a%a%b'".repeat(30) + " OR k = 'none'";
      memory.lockHolds().resetLongest();

      ExecutorService pool = Executors.newFixedThreadPool(6);
      try {
        List<Future<?>> producers = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
          int producer = p;
          producers.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < 200; i++) {
                      engine.send(
                          "q",
                          NewMessage.builder("plain-" + producer + "-" + i).priority(1).build());
                    }
                  }));
        }
        Future<List<Message>> froze =
            pool.submit(
                () ->
                    engine.receive(
                        "q", ReceiveRequest.builder().selector(FROZE_THE_QUEUE).build()));
        Future<List<Message>> in =
            pool.submit(
                () -> engine.receive("q", ReceiveRequest.builder().selector(hugeIn).build()));
        Future<List<Message>> or =
            pool.submit(
                () -> engine.receive("q", ReceiveRequest.builder().selector(deepOr).build()));
        Future<Integer> consumer =
            pool.submit(
                () -> {
                  int got = 0;
                  while (got < 400) { // every message the producers sent
                    got +=
                        engine
                            .receive(
                                "q",
                                ReceiveRequest.builder()
                                    .maxMessages(10)
                                    .selector("sys.priority = 1")
                                    .build())
                            .size();
                  }
                  return got;
                });

        for (Future<?> producer : producers) {
          producer.get(5, TimeUnit.MINUTES); // a failsafe, not a measurement
        }
        List<Message> matched = froze.get(5, TimeUnit.MINUTES);
        assertEquals(List.of("match"), matched.stream().map(Message::body).toList());
        assertEquals(List.of(), in.get(5, TimeUnit.MINUTES));
        assertEquals(List.of(), or.get(5, TimeUnit.MINUTES));
        assertEquals(400, consumer.get(5, TimeUnit.MINUTES));
      } finally {
        pool.shutdownNow();
      }

      long examined = engine.mostExaminedInOneLockHold();
      assertTrue(
          examined <= WORK_BUDGET,
          "one hold of the queue's lock examined " + examined + " entries");
      Duration longest = engine.longestLockHold();
      assertTrue(
          longest.compareTo(GENEROUS_HOLD) < 0,
          "the longest lock hold was " + longest.toMillis() + " ms");
    }
  }
}
