package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.DedupScope;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.SendResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Sending: ids, sequence, attributes, sizes, batches, delay, TTL, order, depth and dedup. */
public abstract class SendContract extends EngineContract {

  private static final Duration DEDUP_WINDOW = Duration.ofMinutes(5);

  @Test
  void send_manyMessages_uniqueIdsAndIncreasingSequence() {
    create("q");
    create("other");
    Set<String> ids = new HashSet<>();
    long last = Long.MIN_VALUE;
    for (int i = 0; i < 100; i++) {
      SendResult r = send("q", "m" + i);
      assertFalse(r.duplicate());
      assertTrue(ids.add(r.id()), "duplicate id " + r.id());
      assertTrue(r.sequence() > last, "sequence must increase");
      last = r.sequence();
      assertTrue(ids.add(send("other", "m" + i).id()), "ids must be unique across queues");
    }
  }

  @Test
  void send_newMessage_hasSystemFacts() {
    create("q", config().retention(seconds(600)));
    SendResult r = send("q", "x");
    Message m = engine.get("q", r.id());
    assertEquals(r.id(), m.id());
    assertEquals(r.sequence(), m.sequence());
    assertEquals(MessageState.AVAILABLE, m.state());
    assertEquals(clock.instant(), m.sentAt());
    assertEquals(0, m.receiveCount());
    assertTrue(m.firstReceivedAt().isEmpty());
    assertTrue(m.visibleAt().isEmpty());
    assertEquals(clock.instant().plusSeconds(600), m.expiresAt());
    assertTrue(m.receipt().isEmpty());
    assertTrue(m.deadLetterSource().isEmpty());
    assertEquals(0, m.priority());
  }

  @Test
  void sendBatch_results_inRequestOrderWithIncreasingSequence() {
    create("q");
    List<SendResult> results =
        engine.sendBatch("q", List.of(NewMessage.of("a"), NewMessage.of("b"), NewMessage.of("c")));
    assertEquals(3, results.size());
    assertTrue(results.get(0).sequence() < results.get(1).sequence());
    assertTrue(results.get(1).sequence() < results.get(2).sequence());
    List<Message> got = receive("q", 10);
    assertEquals(List.of("a", "b", "c"), bodies(got));
    assertEquals(results.stream().map(SendResult::id).toList(), ids(got));
  }

  @Test
  void send_typedAttributes_roundTripExactly() {
    create("q");
    Map<String, AttributeValue> attributes = new LinkedHashMap<>();
    attributes.put("lang", AttributeValue.string("es"));
    attributes.put("doc", new AttributeValue.StringValue("String.json", "{\"a\":1}"));
    attributes.put("count", new AttributeValue.NumberValue("Number.int", "42"));
    attributes.put("price", AttributeValue.number("-1.50e3"));
    attributes.put("blob", AttributeValue.binary(new byte[] {0, 1, (byte) 0xff}));
    attributes.put("skills", AttributeValue.stringList("billing", "espa\u00f1ol"));
    attributes.put("empty", AttributeValue.stringList(List.of()));
    String id = engine.send("q", NewMessage.builder("x").attributes(attributes).build()).id();
    assertEquals(attributes, engine.get("q", id).attributes());
    assertEquals(attributes, browseAll("q").get(0).attributes());
    Message got = receiveOne("q");
    assertEquals(attributes, got.attributes());
    assertEquals("Number.int", Objects.requireNonNull(got.attributes().get("count")).dataType());
    assertEquals("42", ((AttributeValue.NumberValue) got.attributes().get("count")).value());
  }

  @Test
  void send_unicodeBody_roundTrips() {
    create("q");
    String body = "na\u00efve \u4e2d\u6587 \ud83d\ude80 \u0000 end";
    send("q", body);
    assertEquals(body, receiveOne("q").body());
  }

  @Test
  void send_unpairedSurrogate_refusedNamingBody() {
    create("q");
    assertRefusedUnchanged(
        "q", ErrorCode.INVALID_ARGUMENT, () -> send("q", "ok\ud83dx"), "body", "surrogate", "2");
    assertRefusedUnchanged(
        "q", ErrorCode.INVALID_ARGUMENT, () -> send("q", "\ude80"), "body", "surrogate");
  }

  @Test
  void send_bodyAtMaxSize_acceptedAndOneByteMore_tooLarge() {
    create("q", config().maxMessageSize(1024));
    send("q", "x".repeat(1024));
    assertRefusedUnchanged(
        "q", ErrorCode.MESSAGE_TOO_LARGE, () -> send("q", "x".repeat(1025)), "1025", "1024", "'q'");
  }

  @Test
  void send_multibyteBody_sizeCountsUtf8Bytes() {
    create("q", config().maxMessageSize(1024));
    send("q", "\u00e9".repeat(512));
    assertRefusedUnchanged(
        "q", ErrorCode.MESSAGE_TOO_LARGE, () -> send("q", "\u00e9".repeat(513)), "1026");
  }

  @Test
  void send_attributes_countTowardMessageSize() {
    create("q", config().maxMessageSize(1024));
    // name "a" (1) + type "String" (6) + value "xyz" (3) = 10 bytes.
    NewMessage fits = NewMessage.builder("x".repeat(1014)).attribute("a", "xyz").build();
    NewMessage tooBig = NewMessage.builder("x".repeat(1015)).attribute("a", "xyz").build();
    engine.send("q", fits);
    assertRefusedUnchanged(
        "q", ErrorCode.MESSAGE_TOO_LARGE, () -> engine.send("q", tooBig), "1025");
  }

  @Test
  void send_64Attributes_acceptedAnd65_refused() {
    create("q");
    NewMessage.Builder ok = NewMessage.builder("x");
    for (int i = 0; i < 64; i++) {
      ok.attribute("a" + i, "v");
    }
    engine.send("q", ok.build());
    NewMessage.Builder tooMany = NewMessage.builder("x");
    for (int i = 0; i < 65; i++) {
      tooMany.attribute("a" + i, "v");
    }
    assertRefusedUnchanged(
        "q",
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.send("q", tooMany.build()),
        "attributes",
        "64",
        "65");
  }

  @Test
  void send_reservedSysAttributeName_refused() {
    create("q");
    assertRefusedUnchanged(
        "q",
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.send("q", NewMessage.builder("x").attribute("sys.priority", "1").build()),
        "sys.",
        "sys.priority");
  }

  @Test
  void send_malformedAttributeName_refused() {
    create("q");
    assertRefusedUnchanged(
        "q",
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.send("q", NewMessage.builder("x").attribute("has space", "1").build()),
        "has space");
  }

  @Test
  void send_malformedNumberAttribute_refused() {
    assertError(ErrorCode.INVALID_ARGUMENT, () -> AttributeValue.number("twelve"), "twelve");
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> new AttributeValue.NumberValue("Integer", "1"),
        "Integer");
  }

  @Test
  void sendBatch_oneBadEntry_enqueuesNothing() {
    create("q", config().maxMessageSize(1024));
    List<NewMessage> batch =
        List.of(NewMessage.of("a"), NewMessage.of("b"), NewMessage.of("x".repeat(2000)));
    assertRefusedUnchanged(
        "q", ErrorCode.MESSAGE_TOO_LARGE, () -> engine.sendBatch("q", batch), "messages[2]");
    List<NewMessage> badName =
        List.of(NewMessage.of("a"), NewMessage.builder("b").attribute("sys.x", "1").build());
    assertRefusedUnchanged(
        "q", ErrorCode.INVALID_ARGUMENT, () -> engine.sendBatch("q", badName), "messages[1]");
  }

  @Test
  void sendBatch_sizeLimits_emptyInvalidAndOver1000TooLarge() {
    create("q");
    assertRefusedUnchanged(
        "q", ErrorCode.INVALID_ARGUMENT, () -> engine.sendBatch("q", List.of()), "0");
    List<NewMessage> thousand = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      thousand.add(NewMessage.of("m" + i));
    }
    List<NewMessage> tooMany = new ArrayList<>(thousand);
    tooMany.add(NewMessage.of("one more"));
    assertRefusedUnchanged(
        "q", ErrorCode.BATCH_TOO_LARGE, () -> engine.sendBatch("q", tooMany), "1000", "1001");
    assertEquals(1000, engine.sendBatch("q", thousand).size());
    assertEquals(1000, engine.stats("q").available());
  }

  @Test
  void send_withDelay_delayedUntilExactlyDue() {
    create("q");
    String id = engine.send("q", NewMessage.builder("x").delay(seconds(10)).build()).id();
    Message m = engine.get("q", id);
    assertEquals(MessageState.DELAYED, m.state());
    assertEquals(clock.instant().plusSeconds(10), m.visibleAt().orElseThrow());
    assertEquals(1, engine.stats("q").delayed());
    clock.advanceMillis(9_999);
    assertNothingToReceive("q");
    clock.advanceMillis(1);
    assertEquals(MessageState.AVAILABLE, engine.get("q", id).state());
    assertEquals("x", receiveOne("q").body());
  }

  @Test
  void send_queueDefaultDelay_appliesUnlessMessageOverrides() {
    create("q", config().delay(seconds(30)).visibilityTimeout(Duration.ofHours(1)));
    send("q", "default");
    engine.send("q", NewMessage.builder("now").delay(Duration.ZERO).build());
    assertEquals(List.of("now"), receiveBodies("q"));
    clock.advanceSeconds(30);
    assertEquals(List.of("default"), receiveBodies("q"));
  }

  @Test
  void send_delayOver900Seconds_refused() {
    create("q");
    assertRefusedUnchanged(
        "q",
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.send("q", NewMessage.builder("x").delay(seconds(901)).build()),
        "delay",
        "901");
  }

  @Test
  void send_timeToLive_setsExpiryWithinRetention() {
    create("q", config().retention(seconds(60)));
    String id = engine.send("q", NewMessage.builder("x").timeToLive(seconds(5)).build()).id();
    assertEquals(clock.instant().plusSeconds(5), engine.get("q", id).expiresAt());
    engine.send("q", NewMessage.builder("max").timeToLive(seconds(60)).build());
    assertRefusedUnchanged(
        "q",
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.send("q", NewMessage.builder("y").timeToLive(seconds(61)).build()),
        "timeToLive",
        "61");
    assertRefusedUnchanged(
        "q",
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.send("q", NewMessage.builder("y").timeToLive(Duration.ZERO).build()),
        "timeToLive");
  }

  @Test
  void send_priorities_higherFirstThenFifo() {
    create("q");
    send("q", "low-1", -1);
    send("q", "normal-1", 0);
    send("q", "high-1", 5);
    send("q", "normal-2", 0);
    send("q", "high-2", 5);
    assertEquals(List.of("high-1", "high-2", "normal-1", "normal-2", "low-1"), receiveBodies("q"));
  }

  @Test
  void send_lifoQueue_newestFirstWithinPriority() {
    create("q", config().order(Order.LIFO));
    send("q", "normal-1", 0);
    send("q", "high-1", 5);
    send("q", "normal-2", 0);
    send("q", "high-2", 5);
    assertEquals(List.of("high-2", "high-1", "normal-2", "normal-1"), receiveBodies("q"));
  }

  @Test
  void send_maxDepthReject_queueFullAndNothingEnqueued() {
    create("q", config().maxDepth(3, Overflow.REJECT));
    sendAll("q", "a", "b");
    assertRefusedUnchanged(
        "q",
        ErrorCode.QUEUE_FULL,
        () -> engine.sendBatch("q", List.of(NewMessage.of("c"), NewMessage.of("d"))),
        "'q'",
        "3");
    send("q", "c");
    assertRefusedUnchanged("q", ErrorCode.QUEUE_FULL, () -> send("q", "d"), "3");
    assertEquals(List.of("a", "b", "c"), receiveBodies("q"));
  }

  @Test
  void send_maxDepth_countsDelayedAndInFlightMessages() {
    create("q", config().maxDepth(2, Overflow.REJECT));
    engine.send("q", NewMessage.builder("delayed").delay(seconds(5)).build());
    send("q", "leased");
    receiveOne("q");
    assertRefusedUnchanged("q", ErrorCode.QUEUE_FULL, () -> send("q", "x"));
  }

  @Test
  void send_maxDepthDropOldest_shedsOldestNotInFlight() {
    create("q", config().maxDepth(3, Overflow.DROP_OLDEST));
    sendAll("q", "a", "b", "c");
    Message a = receiveOne("q");
    assertEquals("a", a.body());
    send("q", "d");
    assertEquals(1, engine.stats("q").counters().shed());
    assertEquals(3, engine.stats("q").depth());
    engine.sendBatch("q", List.of(NewMessage.of("e"), NewMessage.of("f")));
    assertEquals(3, engine.stats("q").counters().shed());
    assertEquals(List.of("e", "f"), receiveBodies("q"));
    assertEquals(MessageState.IN_FLIGHT, engine.get("q", a.id()).state());
  }

  @Test
  void send_dropOldestWithEverythingInFlight_queueFull() {
    create("q", config().maxDepth(2, Overflow.DROP_OLDEST));
    sendAll("q", "a", "b");
    receive("q", 2);
    assertRefusedUnchanged("q", ErrorCode.QUEUE_FULL, () -> send("q", "c"));
    assertEquals(0, engine.stats("q").counters().shed());
  }

  @Test
  void send_dropOldest_shedsDelayedMessagesToo() {
    create("q", config().maxDepth(1, Overflow.DROP_OLDEST));
    engine.send("q", NewMessage.builder("delayed").delay(seconds(5)).build());
    send("q", "fresh");
    assertEquals(List.of("fresh"), bodies(browseAll("q")));
  }

  @Test
  void send_duplicateDeduplicationId_returnsOriginalAndEnqueuesNothing() {
    create("q");
    SendResult first = engine.send("q", NewMessage.builder("a").deduplicationId("d-1").build());
    SendResult again = engine.send("q", NewMessage.builder("b").deduplicationId("d-1").build());
    assertFalse(first.duplicate());
    assertTrue(again.duplicate());
    assertEquals(first.id(), again.id());
    assertEquals(first.sequence(), again.sequence());
    assertEquals(List.of("a"), receiveBodies("q"));
    assertEquals(1, engine.stats("q").counters().sent());
    assertEquals(1, engine.stats("q").counters().duplicates());
    assertEquals("d-1", engine.get("q", first.id()).deduplicationId().orElseThrow());
  }

  @Test
  void send_dedupWindow_fiveMinutesOnTheClock() {
    create("q");
    NewMessage m = NewMessage.builder("a").deduplicationId("d").build();
    SendResult first = engine.send("q", m);
    clock.advance(DEDUP_WINDOW.minusMillis(1));
    assertTrue(engine.send("q", m).duplicate());
    clock.advanceMillis(1);
    SendResult later = engine.send("q", m);
    assertFalse(later.duplicate());
    assertNotEquals(first.id(), later.id());
    assertEquals(2, engine.stats("q").depth());
  }

  @Test
  void send_dedupWindow_holdsAfterOriginalWasAcked() {
    create("q");
    NewMessage m = NewMessage.builder("a").deduplicationId("d").build();
    SendResult first = engine.send("q", m);
    engine.ack("q", receipt(receiveOne("q")));
    SendResult again = engine.send("q", m);
    assertTrue(again.duplicate());
    assertEquals(first.id(), again.id());
    assertEquals(0, engine.stats("q").depth());
  }

  @Test
  void send_contentBasedDeduplication_sameBodyDeduplicated() {
    create("q", config().contentBasedDeduplication(true));
    SendResult first = send("q", "same");
    assertTrue(send("q", "same").duplicate());
    assertFalse(send("q", "other").duplicate());
    // An explicit id wins over the body's hash.
    assertFalse(
        engine
            .send("q", NewMessage.builder("same").deduplicationId("explicit").build())
            .duplicate());
    assertEquals(3, engine.stats("q").depth());
    assertEquals(first.id(), send("q", "same").id());
  }

  @Test
  void send_noDeduplicationId_neverDeduplicated() {
    create("q");
    send("q", "same");
    assertFalse(send("q", "same").duplicate());
    assertEquals(2, engine.stats("q").depth());
  }

  @Test
  void sendBatch_duplicatesWithinBatch_enqueuedOnce() {
    create("q");
    List<SendResult> r =
        engine.sendBatch(
            "q",
            List.of(
                NewMessage.builder("a").deduplicationId("d").build(),
                NewMessage.of("b"),
                NewMessage.builder("c").deduplicationId("d").build()));
    assertFalse(r.get(0).duplicate());
    assertTrue(r.get(2).duplicate());
    assertEquals(r.get(0).id(), r.get(2).id());
    assertEquals(List.of("a", "b"), receiveBodies("q"));
  }

  @Test
  void send_duplicateIntoFullQueue_returnsOriginalNotQueueFull() {
    create("q", config().maxDepth(1, Overflow.REJECT));
    SendResult first = engine.send("q", NewMessage.builder("a").deduplicationId("d").build());
    SendResult again = engine.send("q", NewMessage.builder("a").deduplicationId("d").build());
    assertTrue(again.duplicate());
    assertEquals(first.id(), again.id());
  }

  @Test
  void send_dedupScopeQueue_sameIdInTwoGroupsIsDuplicate() {
    create("g.fifo", config().dedupScope(DedupScope.QUEUE));
    Function<String, NewMessage> inGroup =
        g -> NewMessage.builder(g).groupId(g).deduplicationId("d").build();
    SendResult a = engine.send("g.fifo", inGroup.apply("A"));
    SendResult b = engine.send("g.fifo", inGroup.apply("B"));
    assertTrue(b.duplicate());
    assertEquals(a.id(), b.id());
  }

  @Test
  void send_dedupScopeGroup_sameIdInTwoGroupsIsTwoMessages() {
    create("g.fifo", config().dedupScope(DedupScope.GROUP));
    Function<String, NewMessage> inGroup =
        g -> NewMessage.builder(g).groupId(g).deduplicationId("d").build();
    assertFalse(engine.send("g.fifo", inGroup.apply("A")).duplicate());
    assertFalse(engine.send("g.fifo", inGroup.apply("B")).duplicate());
    assertTrue(engine.send("g.fifo", inGroup.apply("A")).duplicate());
    assertEquals(2, engine.stats("g.fifo").depth());
  }

  @Test
  void send_malformedGroupOrDeduplicationId_refused() {
    create("q");
    assertRefusedUnchanged(
        "q",
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.send("q", NewMessage.builder("x").deduplicationId("has space").build()),
        "deduplicationId",
        "has space");
    assertRefusedUnchanged(
        "q",
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.send("q", NewMessage.builder("x").groupId("g".repeat(129)).build()),
        "groupId");
  }
}
