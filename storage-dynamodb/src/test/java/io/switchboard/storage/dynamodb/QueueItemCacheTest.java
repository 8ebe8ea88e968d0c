package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * This server's copies of queue items, on a table stood in for by a map: how long a copy answers,
 * what forgets it, and that a read overtaken by a forget does not bring an old copy back.
 */
class QueueItemCacheTest {

  private static final Duration BOUND = Duration.ofSeconds(1);

  private final ManualClock clock = ManualClock.create();
  private final Map<String, Map<String, AttributeValue>> table = new HashMap<>();
  private int reads;
  private @Nullable Runnable duringRead;
  private final QueueItemCache cache = new QueueItemCache(clock, BOUND, this::read);

  private @Nullable Map<String, AttributeValue> read(String name) {
    reads++;
    Map<String, AttributeValue> item = table.get(name);
    Runnable meanwhile = duringRead;
    duringRead = null;
    if (meanwhile != null) {
      meanwhile.run();
    }
    return item;
  }

  private static Map<String, AttributeValue> item(String cfg) {
    return Map.of("cfg", AttributeValue.fromS(cfg));
  }

  @Test
  void get_withinTheBound_answersTheCopy_thenReadsAgain() {
    table.put("q", item("v1"));
    assertEquals(item("v1"), cache.get("q"));
    table.put("q", item("v2")); // changed by another server

    clock.advance(BOUND.minusMillis(1));
    assertEquals(item("v1"), cache.get("q"));
    assertEquals(1, reads);

    clock.advanceMillis(1);
    assertEquals(item("v2"), cache.get("q"));
    assertEquals(2, reads);
  }

  @Test
  void get_aQueueThatIsNotThere_isReadEveryTime() {
    assertNull(cache.get("q"));
    table.put("q", item("made elsewhere"));
    assertEquals(item("made elsewhere"), cache.get("q"));
    assertEquals(2, reads);
  }

  @Test
  void forget_afterThisServerWrote_theNextGetReads() {
    table.put("q", item("v1"));
    cache.get("q");
    table.put("q", item("v2"));
    cache.forget("q");
    assertEquals(item("v2"), cache.get("q"));
  }

  @Test
  void read_overtakenByAForget_leavesNoCopy() {
    table.put("q", item("v1"));
    // the read has its answer; before it keeps it, this server writes v2 and forgets
    duringRead =
        () -> {
          table.put("q", item("v2"));
          cache.forget("q");
        };
    assertEquals(item("v1"), cache.read("q"));
    assertEquals(item("v2"), cache.get("q"), "the old read is not kept over the forget");
  }

  @Test
  void read_ofAQueueDeletedMeanwhile_dropsTheCopy() {
    table.put("q", item("v1"));
    cache.get("q");
    table.remove("q");
    assertNull(cache.read("q"));
    assertNull(cache.get("q"));
  }

  @Test
  void zeroBound_readsEveryTime() {
    QueueItemCache none = new QueueItemCache(clock, Duration.ZERO, this::read);
    table.put("q", item("v1"));
    none.get("q");
    none.get("q");
    assertEquals(2, reads);
  }

  @Test
  void prune_dropsOnlyCopiesOlderThanTheBound() {
    table.put("q", item("v1"));
    cache.get("q");
    cache.prune();
    cache.get("q");
    assertEquals(1, reads, "a young copy survives");
    clock.advance(BOUND);
    cache.prune();
    cache.get("q");
    assertEquals(2, reads);
  }

  @Test
  void bound_outside0To60Seconds_isRefusedNamingIt() {
    for (Duration bad : List.of(Duration.ofMillis(-1), Duration.ofSeconds(61))) {
      QueueException e =
          assertThrows(QueueException.class, () -> new QueueItemCache(clock, bad, this::read));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().contains("queueCacheTime must be 0..60 seconds"), e.getMessage());
      assertTrue(e.getMessage().contains("got " + bad.toMillis() + " ms"), e.getMessage());
    }
  }
}
