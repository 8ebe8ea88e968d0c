package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.ExpiryAction;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.SelectorFilter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Receiving: batches, leases, exact visibility and expiry, filters and long polling. */
public abstract class ReceiveContract extends EngineContract {

  /** A selector, so that the contract also runs through the wire (the client sends its text). */
  private static final MessageFilter SPANISH = SelectorFilter.parse("lang = 'es'");

  private String sendLang(String queue, String body, String lang) {
    return engine.send(queue, NewMessage.builder(body).attribute("lang", lang).build()).id();
  }

  @Test
  void receive_emptyQueue_returnsEmptyAtOnce() {
    create("q");
    assertEquals(List.of(), engine.receive("q", ReceiveRequest.max(10)));
    assertEquals(0, engine.stats("q").counters().received());
  }

  @Test
  void receive_max_takesAtMostMaxInOrder() {
    create("q");
    sendAll("q", "a", "b", "c", "d", "e");
    assertEquals(List.of("a", "b", "c"), bodies(receive("q", 3)));
    assertEquals(List.of("d", "e"), bodies(receive("q", 10)));
    assertNothingToReceive("q");
  }

  @Test
  void receive_invalidRequest_refusedNamingField() {
    assertError(ErrorCode.INVALID_ARGUMENT, () -> ReceiveRequest.max(0), "maxMessages", "0");
    assertError(ErrorCode.INVALID_ARGUMENT, () -> ReceiveRequest.max(1001), "maxMessages", "1001");
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> ReceiveRequest.builder().waitTime(seconds(21)).build(),
        "waitTime",
        "21");
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> ReceiveRequest.builder().visibilityTimeout(Duration.ofHours(13)).build(),
        "visibilityTimeout");
  }

  @Test
  void receive_message_isLeasedWithReceiptCountAndVisibility() {
    create("q", config().visibilityTimeout(seconds(30)));
    String id = send("q", "x").id();
    clock.advanceSeconds(3);
    Message m = receiveOne("q");
    assertEquals(id, m.id());
    assertTrue(m.receipt().isPresent());
    assertEquals(MessageState.IN_FLIGHT, m.state());
    assertEquals(1, m.receiveCount());
    assertEquals(clock.instant(), m.firstReceivedAt().orElseThrow());
    assertEquals(clock.instant().plusSeconds(30), m.visibleAt().orElseThrow());
    assertEquals(clock.instant().minusSeconds(3), m.sentAt());
    Message stored = engine.get("q", id);
    assertEquals(MessageState.IN_FLIGHT, stored.state());
    assertTrue(stored.receipt().isEmpty(), "get never shows a receipt");
    assertEquals(1, engine.stats("q").inFlight());
    assertEquals(1, engine.stats("q").counters().received());
  }

  @Test
  void receive_inFlightMessage_notDeliveredAgainBeforeTimeout() {
    create("q");
    send("q", "x");
    receiveOne("q");
    assertNothingToReceive("q");
  }

  @Test
  void receive_visibilityTimeout_visibleAgainExactlyAtDeadlineInItsPlace() {
    create("q", config().visibilityTimeout(seconds(30)));
    sendAll("q", "a", "b");
    Message a = receiveOne("q");
    clock.advanceMillis(29_999);
    assertEquals(List.of("b"), bodies(receive("q", 10)));
    assertNothingToReceive("q");
    clock.advanceMillis(1);
    Message again = receiveOne("q");
    assertEquals(a.id(), again.id());
    assertEquals(2, again.receiveCount());
    assertEquals(a.firstReceivedAt(), again.firstReceivedAt());
    assertNotEquals(a.receipt(), again.receipt());
  }

  @Test
  void receive_expiredLease_returnsAheadOfLaterMessages() {
    create("q", config().visibilityTimeout(seconds(10)));
    sendAll("q", "a", "b", "c");
    receiveOne("q");
    clock.advanceSeconds(10);
    assertEquals(List.of("a", "b", "c"), receiveBodies("q"));
  }

  @Test
  void receive_requestVisibility_overridesQueueDefault() {
    create("q", config().visibilityTimeout(seconds(30)));
    send("q", "x");
    Message m =
        engine.receive("q", ReceiveRequest.builder().visibilityTimeout(seconds(2)).build()).get(0);
    assertEquals(clock.instant().plusSeconds(2), m.visibleAt().orElseThrow());
    clock.advanceSeconds(2);
    assertEquals(m.id(), receiveOne("q").id());
  }

  @Test
  void receive_zeroVisibility_availableAgainAtOnce() {
    create("q", config().visibilityTimeout(Duration.ZERO));
    send("q", "x");
    Message first = receiveOne("q");
    Message second = receiveOne("q");
    assertEquals(first.id(), second.id());
    assertEquals(2, second.receiveCount());
  }

  @Test
  void receive_filter_takesOnlyAcceptedMessagesInOrder() {
    create("q");
    sendLang("q", "en-1", "en");
    sendLang("q", "es-1", "es");
    sendLang("q", "en-2", "en");
    sendLang("q", "es-2", "es");
    List<Message> got =
        engine.receive("q", ReceiveRequest.builder().maxMessages(10).filter(SPANISH).build());
    assertEquals(List.of("es-1", "es-2"), bodies(got));
    assertEquals(List.of("en-1", "en-2"), receiveBodies("q"));
  }

  @Test
  void receive_filterOnPriority_seesSystemFacts() {
    create("q");
    send("q", "low", 0);
    send("q", "high", 9);
    List<Message> got =
        engine.receive(
            "q", ReceiveRequest.builder().maxMessages(10).filter(m -> m.priority() < 5).build());
    assertEquals(List.of("low"), bodies(got));
  }

  @Test
  void receive_filterMatchingNothing_returnsEmptyAndLeavesQueue() {
    create("q");
    sendLang("q", "en", "en");
    QueueSnapshot before = snapshot("q");
    assertEquals(List.of(), engine.receive("q", ReceiveRequest.builder().filter(SPANISH).build()));
    assertEquals(before, snapshot("q"));
  }

  @Test
  void receive_atExpiry_neverDelivered() {
    create("q");
    String id = engine.send("q", NewMessage.builder("x").timeToLive(seconds(10)).build()).id();
    clock.advanceSeconds(10);
    assertNothingToReceive("q");
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.get("q", id), id);
    assertEquals(1, engine.stats("q").counters().expired());
    assertEquals(0, engine.stats("q").depth());
  }

  @Test
  void receive_justBeforeExpiry_delivered() {
    create("q");
    engine.send("q", NewMessage.builder("x").timeToLive(seconds(10)).build());
    clock.advanceMillis(9_999);
    assertEquals("x", receiveOne("q").body());
  }

  @Test
  void receive_retentionRunsOut_messageExpiresExactly() {
    create("q", config().retention(seconds(60)));
    send("q", "old");
    clock.advanceSeconds(30);
    send("q", "young");
    clock.advanceSeconds(30);
    assertEquals(List.of("young"), receiveBodies("q"));
    assertEquals(1, engine.stats("q").counters().expired());
  }

  @Test
  void receive_leaseOutlivesExpiry_messageGoneWhenLeaseEnds() {
    create("q", config().visibilityTimeout(seconds(30)));
    String id = engine.send("q", NewMessage.builder("x").timeToLive(seconds(5)).build()).id();
    receiveOne("q");
    clock.advanceSeconds(30);
    assertNothingToReceive("q");
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.get("q", id));
  }

  @Test
  void receive_delayLongerThanTimeToLive_neverDelivered() {
    create("q");
    engine.send("q", NewMessage.builder("x").delay(seconds(10)).timeToLive(seconds(5)).build());
    clock.advanceSeconds(10);
    assertNothingToReceive("q");
    assertEquals(1, engine.stats("q").counters().expired());
  }

  @Test
  void receive_onExpireDeadLetter_movesExpiredMessageToDeadLetterQueue() {
    create("dlq");
    create(
        "q",
        config().deadLetter("dlq", 5).onExpire(ExpiryAction.DEAD_LETTER).retention(seconds(60)));
    String id = send("q", "x").id();
    clock.advanceSeconds(60);
    assertNothingToReceive("q");
    Message dead = receiveOne("dlq");
    assertEquals(id, dead.id());
    assertEquals("q", dead.deadLetterSource().orElseThrow());
    assertEquals(1, engine.stats("q").counters().expired());
    assertEquals(1, engine.stats("q").counters().deadLettered());
  }

  // ---- long polling ------------------------------------------------------------------------

  @Test
  void receiveWait_nothingArrives_returnsEmptyExactlyAtDeadline() throws Exception {
    create("q");
    Future<List<Message>> f = blockedReceive("q", waiting(seconds(5)));
    clock.advanceMillis(4_999);
    assertFalse(f.isDone(), "returned before its deadline");
    assertEquals(1, engine.stats("q").waitingReceivers());
    clock.advanceMillis(1);
    assertEquals(List.of(), result(f));
    assertEquals(0, engine.stats("q").waitingReceivers());
  }

  @Test
  void receiveWait_queueDefaultWait_appliesWhenRequestNamesNone() throws Exception {
    create("q", config().receiveWait(seconds(20)));
    Future<List<Message>> f = blockedReceive("q", ReceiveRequest.one());
    send("q", "x");
    assertEquals(List.of("x"), bodies(result(f)));
  }

  @Test
  void receiveWait_messageAvailable_returnsAtOnce() {
    create("q");
    send("q", "x");
    assertEquals(List.of("x"), bodies(engine.receive("q", waiting(seconds(20)))));
    assertEquals(0, engine.stats("q").waitingReceivers());
  }

  @Test
  void receiveWait_send_wakesWaiterWithLeasedMessage() throws Exception {
    create("q", config().visibilityTimeout(seconds(30)));
    Future<List<Message>> f = blockedReceive("q", waiting(seconds(20)));
    String id = send("q", "x").id();
    Message got = result(f).get(0);
    assertEquals(id, got.id());
    assertEquals(1, got.receiveCount());
    assertTrue(got.receipt().isPresent());
    assertEquals(MessageState.IN_FLIGHT, engine.get("q", id).state());
    assertNothingToReceive("q");
    engine.ack("q", receipt(got));
  }

  @Test
  void receiveWait_leaseExpires_wakesWaiter() throws Exception {
    create("q", config().visibilityTimeout(seconds(10)));
    send("q", "x");
    Message first = receiveOne("q");
    Future<List<Message>> f = blockedReceive("q", waiting(seconds(20)));
    clock.advanceSeconds(10);
    Message again = result(f).get(0);
    assertEquals(first.id(), again.id());
    assertEquals(2, again.receiveCount());
  }

  @Test
  void receiveWait_delayComesDue_wakesWaiter() throws Exception {
    create("q");
    engine.send("q", NewMessage.builder("later").delay(seconds(3)).build());
    Future<List<Message>> f = blockedReceive("q", waiting(seconds(20)));
    clock.advanceSeconds(2);
    assertFalse(f.isDone());
    assertEquals(1, engine.stats("q").waitingReceivers());
    clock.advanceSeconds(1);
    assertEquals(List.of("later"), bodies(result(f)));
  }

  @Test
  void receiveWait_release_wakesWaiter() throws Exception {
    create("q");
    send("q", "x");
    Message m = receiveOne("q");
    Future<List<Message>> f = blockedReceive("q", waiting(seconds(20)));
    engine.release("q", receipt(m));
    assertEquals(List.of(m.id()), ids(result(f)));
  }

  @Test
  void receiveWait_extendToZero_wakesWaiter() throws Exception {
    create("q");
    send("q", "x");
    Message m = receiveOne("q");
    Future<List<Message>> f = blockedReceive("q", waiting(seconds(20)));
    engine.extend("q", receipt(m), Duration.ZERO);
    assertEquals(List.of(m.id()), ids(result(f)));
  }

  @Test
  void receiveWait_severalWaiters_servedFirstComeFirstServed() throws Exception {
    create("q");
    Future<List<Message>> first = blockedReceive("q", waiting(seconds(20)));
    Future<List<Message>> second = blockedReceive("q", waiting(seconds(20)));
    send("q", "one");
    assertEquals(List.of("one"), bodies(result(first)));
    assertEquals(1, engine.stats("q").waitingReceivers());
    assertFalse(second.isDone());
    send("q", "two");
    assertEquals(List.of("two"), bodies(result(second)));
  }

  @Test
  void receiveWait_filteredWaiter_notWokenByNonMatchingAndDoesNotBlockLaterWaiter()
      throws Exception {
    create("q");
    Future<List<Message>> spanish =
        blockedReceive("q", ReceiveRequest.builder().waitTime(seconds(20)).filter(SPANISH).build());
    Future<List<Message>> anyone = blockedReceive("q", waiting(seconds(20)));
    sendLang("q", "hello", "en");
    assertEquals(List.of("hello"), bodies(result(anyone)));
    assertFalse(spanish.isDone(), "a filtered waiter was woken by a message it does not accept");
    assertEquals(1, engine.stats("q").waitingReceivers());
    sendLang("q", "hola", "es");
    assertEquals(List.of("hola"), bodies(result(spanish)));
  }

  @Test
  void receiveWait_waiterTakesUpToItsMax() throws Exception {
    create("q");
    Future<List<Message>> f =
        blockedReceive("q", ReceiveRequest.builder().maxMessages(5).waitTime(seconds(20)).build());
    engine.sendBatch("q", List.of(NewMessage.of("a"), NewMessage.of("b"), NewMessage.of("c")));
    assertEquals(List.of("a", "b", "c"), bodies(result(f)));
  }

  @Test
  void receiveWait_waiterBeatsLaterNonBlockingReceive() throws Exception {
    create("q");
    Future<List<Message>> f = blockedReceive("q", waiting(seconds(20)));
    send("q", "x");
    assertNothingToReceive("q");
    assertEquals(List.of("x"), bodies(result(f)));
  }

  @Test
  void receiveWait_expiredMessage_doesNotWakeWaiter() throws Exception {
    create("q");
    engine.send("q", NewMessage.builder("x").delay(seconds(5)).timeToLive(seconds(5)).build());
    Future<List<Message>> f = blockedReceive("q", waiting(seconds(10)));
    clock.advanceSeconds(5);
    assertEquals(1, engine.stats("q").waitingReceivers());
    assertFalse(f.isDone());
    clock.advanceSeconds(5);
    assertEquals(List.of(), result(f));
  }
}
