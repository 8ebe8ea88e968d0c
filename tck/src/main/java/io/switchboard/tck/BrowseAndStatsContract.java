package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.SelectorFilter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Looking without leasing (browse), emptying (purge) and counting (stats). */
public abstract class BrowseAndStatsContract extends EngineContract {

  // ---- browse ------------------------------------------------------------------------------

  @Test
  void browse_queue_inDeliveryOrderWithoutLeasing() {
    create("q");
    send("q", "b0", 0);
    send("q", "a5", 5);
    send("q", "c0", 0);
    QueueSnapshot before = snapshot("q");
    Page page = engine.browse("q", BrowseRequest.first(10));
    assertEquals(List.of("a5", "b0", "c0"), bodies(page.items()));
    assertTrue(page.nextCursor().isEmpty());
    assertTrue(page.items().stream().allMatch(m -> m.receipt().isEmpty()));
    assertEquals(before, snapshot("q"));
    assertEquals(List.of("a5", "b0", "c0"), receiveBodies("q"));
  }

  @Test
  void browse_lifoQueue_newestFirst() {
    create("q", config().order(Order.LIFO));
    sendAll("q", "a", "b", "c");
    assertEquals(
        List.of("c", "b", "a"), bodies(engine.browse("q", BrowseRequest.first(10)).items()));
  }

  @Test
  void browse_cursorPages_coverQueueExactlyOnceInOrder() {
    create("q");
    List<String> expected = new ArrayList<>();
    for (int p = 2; p >= 0; p--) {
      for (int i = 0; i < 7; i++) {
        expected.add("p" + p + "-" + i);
      }
    }
    // Interleave the sends so that delivery order differs from send order.
    for (int i = 0; i < 7; i++) {
      for (int p = 0; p <= 2; p++) {
        send("q", "p" + p + "-" + i, p);
      }
    }
    List<String> seen = new ArrayList<>();
    BrowseRequest request = BrowseRequest.first(4);
    int pages = 0;
    while (true) {
      Page page = engine.browse("q", request);
      pages++;
      assertTrue(page.items().size() <= 4);
      seen.addAll(bodies(page.items()));
      if (page.nextCursor().isEmpty()) {
        break;
      }
      request = request.after(page.nextCursor().get());
    }
    assertEquals(expected, seen);
    assertEquals(6, pages);
  }

  @Test
  void browse_messageAtCursorRemoved_nextPageContinuesAfterIt() {
    create("q");
    List<String> ids = sendAll("q", "a", "b", "c", "d");
    Page first = engine.browse("q", BrowseRequest.first(2));
    assertEquals(List.of("a", "b"), bodies(first.items()));
    engine.remove("q", ids.get(1));
    Page second =
        engine.browse("q", BrowseRequest.first(2).after(first.nextCursor().orElseThrow()));
    assertEquals(List.of("c", "d"), bodies(second.items()));
  }

  @Test
  void browse_filter_onlyAcceptedMessages() {
    create("q");
    for (int i = 0; i < 6; i++) {
      engine.send(
          "q", NewMessage.builder("m" + i).attribute("even", i % 2 == 0 ? "yes" : "no").build());
    }
    BrowseRequest evens = BrowseRequest.first(2).filter(SelectorFilter.parse("even = 'yes'"));
    Page first = engine.browse("q", evens);
    assertEquals(List.of("m0", "m2"), bodies(first.items()));
    Page second = engine.browse("q", evens.after(first.nextCursor().orElseThrow()));
    assertEquals(List.of("m4"), bodies(second.items()));
    assertEquals(Optional.empty(), second.nextCursor());
  }

  @Test
  void browse_includeInvisible_listsDelayedAndInFlightInOrder() {
    create("q");
    sendAll("q", "a", "b");
    engine.send("q", NewMessage.builder("c").delay(seconds(30)).build());
    send("q", "d");
    receiveOne("q");
    assertEquals(List.of("b", "d"), bodies(engine.browse("q", BrowseRequest.first(10)).items()));
    assertEquals(
        List.of("a", "b", "c", "d"),
        bodies(engine.browse("q", BrowseRequest.first(10).includeInvisible(true)).items()));
  }

  @Test
  void browse_invalidLimitOrCursor_refused() {
    create("q");
    sendAll("q", "a", "b");
    assertError(ErrorCode.INVALID_ARGUMENT, () -> BrowseRequest.first(0), "limit", "0");
    assertError(ErrorCode.INVALID_ARGUMENT, () -> BrowseRequest.first(1001), "limit", "1001");
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.browse("q", BrowseRequest.first(1).after("not-a-cursor")),
        "cursor",
        "not-a-cursor");
  }

  @Test
  void browse_emptyQueue_emptyPageWithoutCursor() {
    create("q");
    Page page = engine.browse("q", BrowseRequest.first(10));
    assertEquals(List.of(), page.items());
    assertTrue(page.nextCursor().isEmpty());
  }

  // ---- purge -------------------------------------------------------------------------------

  @Test
  void purge_everyState_removedAndCounted() {
    create("q");
    sendAll("q", "a", "b");
    engine.send("q", NewMessage.builder("c").delay(seconds(5)).build());
    Message leased = receiveOne("q");
    assertEquals(3, engine.purge("q"));
    assertEquals(0, engine.stats("q").depth());
    assertEquals(3, engine.stats("q").counters().removed());
    engine.ack("q", receipt(leased));
    assertEquals(0, engine.stats("q").counters().acked(), "a purged lease is dead");
    clock.advanceSeconds(10);
    assertNothingToReceive("q");
    assertEquals(0, engine.purge("q"));
  }

  @Test
  void purge_queueStaysUsable() {
    create("q");
    send("q", "old");
    engine.purge("q");
    send("q", "new");
    assertEquals(List.of("new"), receiveBodies("q"));
  }

  @Test
  void purge_groupedQueue_forgetsDeduplicationIds() {
    create("q.fifo");
    sendGrouped("q.fifo", "g", "same");
    engine.purge("q.fifo");
    assertEquals(false, sendGrouped("q.fifo", "g", "same").duplicate());
    assertEquals(List.of("same"), receiveBodies("q.fifo"));
  }

  // ---- stats -------------------------------------------------------------------------------

  @Test
  void stats_countsByState() {
    create("q");
    sendAll("q", "a", "b", "c");
    engine.send("q", NewMessage.builder("d").delay(seconds(5)).build());
    receiveOne("q");
    QueueStats s = engine.stats("q");
    assertEquals(2, s.available());
    assertEquals(1, s.delayed());
    assertEquals(1, s.inFlight());
    assertEquals(4, s.depth());
  }

  @Test
  void stats_oldestAge_fromTheClock() {
    create("q");
    assertEquals(Optional.empty(), engine.stats("q").oldestAge());
    String first = send("q", "a").id();
    clock.advanceSeconds(7);
    send("q", "b");
    clock.advanceSeconds(3);
    assertEquals(Optional.of(seconds(10)), engine.stats("q").oldestAge());
    engine.remove("q", first);
    assertEquals(Optional.of(seconds(3)), engine.stats("q").oldestAge());
  }

  @Test
  void stats_oldestAge_countsLeasedAndDelayedMessages() {
    create("q");
    send("q", "leased");
    receiveOne("q");
    clock.advanceSeconds(4);
    assertEquals(Optional.of(seconds(4)), engine.stats("q").oldestAge());
  }

  @Test
  void stats_byPriority_highestFirstAllStates() {
    create("q");
    send("q", "a", 0);
    send("q", "b", 5);
    send("q", "c", -2);
    send("q", "d", 5);
    receiveOne("q");
    QueueStats s = engine.stats("q");
    assertEquals(List.of(5, 0, -2), new ArrayList<>(s.byPriority().keySet()));
    assertEquals(List.of(2L, 1L, 1L), new ArrayList<>(s.byPriority().values()));
  }

  @Test
  void stats_counters_countEveryKindOfEvent() {
    create("dlq");
    create(
        "q",
        config()
            .visibilityTimeout(seconds(10))
            .deadLetter("dlq", 100)
            .maxDepth(6, Overflow.DROP_OLDEST));
    engine.send("q", NewMessage.builder("ttl").timeToLive(seconds(1)).build());
    engine.send("q", NewMessage.builder("dup").deduplicationId("d").build());
    engine.send("q", NewMessage.builder("dup").deduplicationId("d").build());
    clock.advanceSeconds(1); // "ttl" expires
    sendAll("q", "ack", "release", "timeout", "fail", "dead", "remove");
    // depth 6 + 1 shed: "dup" (the oldest not in flight) is dropped
    List<Message> got = receive("q", 5);
    assertEquals(List.of("ack", "release", "timeout", "fail", "dead"), bodies(got));
    engine.ack("q", receipt(got.get(0)));
    engine.release("q", receipt(got.get(1)));
    engine.fail("q", receipt(got.get(3)));
    engine.deadLetter("q", receipt(got.get(4)));
    engine.remove("q", engine.browse("q", BrowseRequest.first(10)).items().get(1).id());
    clock.advanceSeconds(10); // "timeout" returns
    QueueStats.Counters c = engine.stats("q").counters();
    assertEquals(
        new QueueStats.Counters(
            /* sent */ 8,
            /* duplicates */ 1,
            /* received */ 5,
            /* acked */ 1,
            /* released */ 2,
            /* failed */ 1,
            /* expired */ 1,
            /* shed */ 1,
            /* deadLettered */ 1,
            /* removed */ 1,
            /* keyLimited */ 0),
        c);
    assertEquals(List.of("release", "timeout"), receiveBodies("q"));
  }

  @Test
  void stats_waitingReceivers_countsBlockedReceives() throws Exception {
    create("q");
    assertEquals(0, engine.stats("q").waitingReceivers());
    var first = blockedReceive("q", waiting(seconds(20)));
    var second = blockedReceive("q", waiting(seconds(20)));
    assertEquals(2, engine.stats("q").waitingReceivers());
    clock.advance(Duration.ofSeconds(20));
    assertEquals(List.of(), result(first));
    assertEquals(List.of(), result(second));
    assertEquals(0, engine.stats("q").waitingReceivers());
  }
}
