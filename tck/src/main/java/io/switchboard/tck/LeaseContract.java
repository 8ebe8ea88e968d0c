package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a receipt allows: ack, release, extend and fail, and how stale or foreign ones fail. */
public abstract class LeaseContract extends EngineContract {

  // ---- ack ---------------------------------------------------------------------------------

  @Test
  void ack_leasedMessage_deletesIt() {
    create("q");
    String id = send("q", "x").id();
    engine.ack("q", receipt(receiveOne("q")));
    assertEquals(0, engine.stats("q").depth());
    assertEquals(1, engine.stats("q").counters().acked());
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.get("q", id), id);
  }

  @Test
  void ack_twice_isIdempotent() {
    create("q");
    send("q", "x");
    String receipt = receipt(receiveOne("q"));
    engine.ack("q", receipt);
    engine.ack("q", receipt);
    assertEquals(1, engine.stats("q").counters().acked());
  }

  @Test
  void ack_staleReceipt_receiptStaleAndNewLeaseKept() {
    create("q", config().visibilityTimeout(seconds(10)));
    send("q", "x");
    Message first = receiveOne("q");
    clock.advanceSeconds(10);
    Message second = receiveOne("q");
    assertRefusedUnchanged(
        "q", ErrorCode.RECEIPT_STALE, () -> engine.ack("q", receipt(first)), first.id());
    assertEquals(MessageState.IN_FLIGHT, engine.get("q", first.id()).state());
    engine.ack("q", receipt(second));
    assertEquals(0, engine.stats("q").depth());
  }

  @Test
  void ack_garbageReceipt_receiptInvalid() {
    create("q");
    send("q", "x");
    receiveOne("q");
    for (String garbage : List.of("", "nonsense", "A".repeat(27), "x".repeat(200))) {
      assertRefusedUnchanged("q", ErrorCode.RECEIPT_INVALID, () -> engine.ack("q", garbage), "'q'");
    }
  }

  @Test
  void ack_currentReceiptWithOneCharacterChanged_receiptInvalidAndLeaseKept() {
    create("q");
    send("q", "x");
    Message m = receiveOne("q");
    String issued = receipt(m);
    for (int at : new int[] {0, issued.length() / 2, issued.length() - 1}) {
      char[] chars = issued.toCharArray();
      chars[at] = chars[at] == 'A' ? 'B' : 'A';
      String altered = new String(chars);
      assertRefusedUnchanged("q", ErrorCode.RECEIPT_INVALID, () -> engine.ack("q", altered), "'q'");
      assertEquals(MessageState.IN_FLIGHT, engine.get("q", m.id()).state());
    }
    engine.ack("q", issued);
    assertEquals(0, engine.stats("q").depth());
  }

  @Test
  void ack_receiptOfAnotherQueue_receiptInvalid() {
    create("a");
    create("b");
    send("a", "x");
    send("b", "y");
    Message fromA = receiveOne("a");
    assertRefusedUnchanged(
        "b", ErrorCode.RECEIPT_INVALID, () -> engine.ack("b", receipt(fromA)), "'b'");
    assertEquals(MessageState.IN_FLIGHT, engine.get("a", fromA.id()).state());
  }

  @Test
  void ack_afterLeaseExpiredButNotReceivedAgain_stillDeletes() {
    create("q", config().visibilityTimeout(seconds(10)));
    send("q", "x");
    Message m = receiveOne("q");
    clock.advanceSeconds(11);
    assertEquals(MessageState.AVAILABLE, engine.get("q", m.id()).state());
    engine.ack("q", receipt(m));
    assertEquals(0, engine.stats("q").depth());
    assertNothingToReceive("q");
  }

  // ---- ack of a batch ----------------------------------------------------------------------

  @Test
  void ackAll_eachReceiptOnItsOwn_resultsInOrder_refusalsChangeNothing() {
    create("q", config().visibilityTimeout(seconds(10)));
    create("other");
    sendAll("q", "a", "b", "c", "d");
    send("other", "o");
    List<Message> got = receive("q", 3);
    Message d = receiveOne("q");
    Message foreign = receiveOne("other");
    engine.ack("q", receipt(got.get(2))); // gone before the batch: acked again, idempotently
    clock.advanceSeconds(10);
    List<Message> again = receive("q", 10);
    assertEquals(3, again.size(), "a, b and d, whose leases ran out");
    Message fresh = again.stream().filter(m -> m.id().equals(d.id())).findFirst().orElseThrow();
    // "a" was received again: its first receipt is stale
    List<String> receipts =
        List.of(
            receipt(fresh), receipt(got.get(0)), "nonsense", receipt(got.get(2)), receipt(foreign));
    List<Optional<QueueException>> results = engine.ackAll("q", receipts);
    assertEquals(5, results.size());
    assertTrue(results.get(0).isEmpty(), "the current receipt acks");
    assertEquals(ErrorCode.RECEIPT_STALE, results.get(1).orElseThrow().code());
    assertEquals(ErrorCode.RECEIPT_INVALID, results.get(2).orElseThrow().code());
    assertTrue(results.get(3).isEmpty(), "a message already gone counts as acked");
    assertEquals(ErrorCode.RECEIPT_INVALID, results.get(4).orElseThrow().code());
    assertEquals(MessageState.IN_FLIGHT, engine.get("other", foreign.id()).state());
    assertEquals(2, engine.stats("q").inFlight(), "a and b still leased: only d's receipt acked");
    assertEquals(2, engine.stats("q").counters().acked());
  }

  @Test
  void ackAll_aWholeReceive_deletesEveryMessage() {
    create("q");
    sendAll("q", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10");
    List<Message> got = receive("q", 10);
    assertEquals(10, got.size());
    List<Optional<QueueException>> results =
        engine.ackAll("q", got.stream().map(EngineContract::receipt).toList());
    assertTrue(results.stream().allMatch(Optional::isEmpty), results.toString());
    assertEquals(0, engine.stats("q").depth());
    assertEquals(10, engine.stats("q").counters().acked());
  }

  @Test
  void ackAll_unknownQueue_queueNotFound() {
    create("q");
    send("q", "x");
    Message m = receiveOne("q");
    QueueException e =
        assertThrows(QueueException.class, () -> engine.ackAll("ghost", List.of(receipt(m))));
    assertEquals(ErrorCode.QUEUE_NOT_FOUND, e.code());
    assertEquals(MessageState.IN_FLIGHT, engine.get("q", m.id()).state());
  }

  // ---- release -----------------------------------------------------------------------------

  @Test
  void release_leasedMessage_returnsToItsPlace() {
    create("q");
    sendAll("q", "a", "b", "c");
    Message a = receiveOne("q");
    engine.release("q", receipt(a));
    assertEquals(MessageState.AVAILABLE, engine.get("q", a.id()).state());
    assertEquals(List.of("a", "b", "c"), receiveBodies("q"));
    assertEquals(1, engine.stats("q").counters().released());
  }

  @Test
  void release_toBack_deliveredAfterOthers() {
    create("q");
    sendAll("q", "a", "b", "c");
    Message a = receiveOne("q");
    engine.release("q", receipt(a), Duration.ZERO, true);
    assertEquals(List.of("b", "c", "a"), receiveBodies("q"));
  }

  @Test
  void release_toBackInLifoQueue_deliveredLast() {
    create("q", config().order(Order.LIFO));
    sendAll("q", "a", "b", "c");
    Message c = receiveOne("q");
    assertEquals("c", c.body());
    engine.release("q", receipt(c), Duration.ZERO, true);
    assertEquals(List.of("b", "a", "c"), receiveBodies("q"));
  }

  @Test
  void release_toBack_keepsPriority() {
    create("q");
    send("q", "high", 5);
    send("q", "low", 0);
    Message high = receiveOne("q");
    engine.release("q", receipt(high), Duration.ZERO, true);
    assertEquals(List.of("high", "low"), receiveBodies("q"));
  }

  @Test
  void release_withDelay_delayedUntilExactlyDue() {
    create("q");
    send("q", "x");
    Message m = receiveOne("q");
    engine.release("q", receipt(m), seconds(5), false);
    Message delayed = engine.get("q", m.id());
    assertEquals(MessageState.DELAYED, delayed.state());
    assertEquals(clock.instant().plusSeconds(5), delayed.visibleAt().orElseThrow());
    clock.advanceMillis(4_999);
    assertNothingToReceive("q");
    clock.advanceMillis(1);
    assertEquals(2, receiveOne("q").receiveCount());
  }

  @Test
  void release_delayOver900Seconds_refusedAndStillLeased() {
    create("q");
    send("q", "x");
    Message m = receiveOne("q");
    assertRefusedUnchanged(
        "q",
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.release("q", receipt(m), seconds(901), false),
        "delay",
        "901");
    assertEquals(MessageState.IN_FLIGHT, engine.get("q", m.id()).state());
  }

  @Test
  void release_toBackOnGroupedQueue_conflict() {
    create("g.fifo");
    sendGrouped("g.fifo", "A", "a1");
    Message m = receiveOne("g.fifo");
    assertRefusedUnchanged(
        "g.fifo",
        ErrorCode.CONFLICT,
        () -> engine.release("g.fifo", receipt(m), Duration.ZERO, true),
        "g.fifo");
  }

  @Test
  void release_staleReceipt_receiptStale() {
    create("q", config().visibilityTimeout(seconds(1)));
    send("q", "x");
    Message first = receiveOne("q");
    clock.advanceSeconds(1);
    receiveOne("q");
    assertRefusedUnchanged("q", ErrorCode.RECEIPT_STALE, () -> engine.release("q", receipt(first)));
  }

  @Test
  void release_afterLeaseExpired_messageNotInFlight() {
    create("q", config().visibilityTimeout(seconds(1)));
    send("q", "x");
    Message m = receiveOne("q");
    clock.advanceSeconds(1);
    assertRefusedUnchanged(
        "q", ErrorCode.MESSAGE_NOT_IN_FLIGHT, () -> engine.release("q", receipt(m)), m.id());
  }

  @Test
  void release_afterAck_messageNotFound() {
    create("q");
    send("q", "x");
    Message m = receiveOne("q");
    engine.ack("q", receipt(m));
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.release("q", receipt(m)));
  }

  // ---- extend ------------------------------------------------------------------------------

  @Test
  void extend_leasedMessage_leaseEndsExactlyThatLongFromNow() {
    create("q", config().visibilityTimeout(seconds(10)));
    send("q", "x");
    Message m = receiveOne("q");
    clock.advanceSeconds(5);
    Message extended = engine.extend("q", receipt(m), seconds(60));
    assertEquals(clock.instant().plusSeconds(60), extended.visibleAt().orElseThrow());
    assertEquals(MessageState.IN_FLIGHT, extended.state());
    clock.advanceMillis(59_999);
    assertNothingToReceive("q");
    clock.advanceMillis(1);
    assertEquals(m.id(), receiveOne("q").id());
  }

  @Test
  void extend_shorterThanBefore_endsLeaseEarlier() {
    create("q", config().visibilityTimeout(seconds(60)));
    send("q", "x");
    Message m = receiveOne("q");
    engine.extend("q", receipt(m), seconds(1));
    clock.advanceSeconds(1);
    assertEquals(m.id(), receiveOne("q").id());
  }

  @Test
  void extend_upTo12HoursAfterReceive_allowedAndBeyond_refused() {
    create("q", config().visibilityTimeout(Duration.ofMinutes(2)));
    send("q", "x");
    Message m = receiveOne("q");
    clock.advance(Duration.ofMinutes(1));
    engine.extend("q", receipt(m), Duration.ofHours(12).minusMinutes(1));
    clock.advance(Duration.ofHours(1));
    assertRefusedUnchanged(
        "q",
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.extend("q", receipt(m), Duration.ofHours(11).minusMinutes(1).plusMillis(1)),
        "visibilityTimeout",
        "43200");
    engine.extend("q", receipt(m), Duration.ofHours(11).minusMinutes(1));
    assertEquals(
        m.firstReceivedAt().orElseThrow().plus(Duration.ofHours(12)),
        engine.get("q", m.id()).visibleAt().orElseThrow());
  }

  @Test
  void extend_overTwelveHours_refusedByRange() {
    create("q");
    send("q", "x");
    Message m = receiveOne("q");
    assertRefusedUnchanged(
        "q",
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.extend("q", receipt(m), Duration.ofHours(13)),
        "visibilityTimeout");
  }

  @Test
  void extend_zero_makesMessageAvailableNow() {
    create("q");
    sendAll("q", "a", "b");
    Message a = receiveOne("q");
    Message released = engine.extend("q", receipt(a), Duration.ZERO);
    assertEquals(MessageState.AVAILABLE, released.state());
    assertEquals(List.of("a", "b"), receiveBodies("q"));
  }

  @Test
  void extend_afterLeaseExpiredButNotReceivedAgain_hidesItAgain() {
    create("q", config().visibilityTimeout(seconds(1)));
    sendAll("q", "x", "y");
    Message m = receiveOne("q");
    clock.advanceSeconds(1);
    Message extended = engine.extend("q", receipt(m), seconds(30));
    assertEquals(MessageState.IN_FLIGHT, extended.state());
    assertEquals(1, extended.receiveCount(), "hiding it again is not a receive");
    Message y = receiveOne("q");
    assertEquals("y", y.body());
    engine.ack("q", receipt(y));
    clock.advanceSeconds(29);
    assertNothingToReceive("q");
    engine.ack("q", receipt(m));
    assertEquals(0, engine.stats("q").depth(), "the old receipt is still the message's lease");
  }

  @Test
  void extend_toZeroAfterLeaseExpired_leavesItAvailable() {
    create("q", config().visibilityTimeout(seconds(1)));
    send("q", "x");
    Message m = receiveOne("q");
    clock.advanceSeconds(1);
    assertEquals(MessageState.AVAILABLE, engine.extend("q", receipt(m), Duration.ZERO).state());
    assertEquals(List.of("x"), receiveBodies("q"));
  }

  @Test
  void extend_afterLeaseExpiredInGroupedQueue_blocksTheGroupAgain() {
    create("q.fifo", config().visibilityTimeout(seconds(1)));
    sendGrouped("q.fifo", "g", "a");
    sendGrouped("q.fifo", "g", "b");
    sendGrouped("q.fifo", "h", "c");
    Message a = receiveOne("q.fifo");
    clock.advanceSeconds(1);
    engine.extend("q.fifo", receipt(a), seconds(30));
    assertEquals(List.of("c"), receiveBodies("q.fifo"), "group g is in flight again");
    engine.ack("q.fifo", receipt(a));
    assertEquals(List.of("b"), receiveBodies("q.fifo"));
  }

  @Test
  void extend_releasedWithDelay_messageNotInFlight() {
    create("q");
    send("q", "x");
    Message m = receiveOne("q");
    engine.release("q", receipt(m), seconds(60), false);
    assertRefusedUnchanged(
        "q",
        ErrorCode.MESSAGE_NOT_IN_FLIGHT,
        () -> engine.extend("q", receipt(m), seconds(30)),
        m.id(),
        "delayed");
  }

  @Test
  void extend_staleReceipt_receiptStale() {
    create("q", config().visibilityTimeout(seconds(1)));
    send("q", "x");
    Message first = receiveOne("q");
    clock.advanceSeconds(1);
    receiveOne("q");
    assertRefusedUnchanged(
        "q", ErrorCode.RECEIPT_STALE, () -> engine.extend("q", receipt(first), seconds(30)));
  }

  @Test
  void extend_garbageReceipt_receiptInvalid() {
    create("q");
    assertError(ErrorCode.RECEIPT_INVALID, () -> engine.extend("q", "junk", seconds(30)));
  }

  // ---- fail --------------------------------------------------------------------------------

  @Test
  void fail_leasedMessage_leavesQueueAndIsKeptAsFailed() {
    create("q", config().historyRetention(seconds(60)));
    String id = send("q", "x").id();
    engine.fail("q", receipt(receiveOne("q")));
    assertEquals(0, engine.stats("q").depth());
    assertNothingToReceive("q");
    assertEquals(1, engine.stats("q").counters().failed());
    Message failed = engine.get("q", id);
    assertEquals(MessageState.FAILED, failed.state());
    assertEquals("x", failed.body());
  }

  @Test
  void fail_withoutHistory_messageGone() {
    create("q");
    String id = send("q", "x").id();
    engine.fail("q", receipt(receiveOne("q")));
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.get("q", id));
  }

  @Test
  void fail_afterLeaseExpired_messageNotInFlight() {
    create("q", config().visibilityTimeout(seconds(1)));
    send("q", "x");
    Message m = receiveOne("q");
    clock.advanceSeconds(1);
    assertRefusedUnchanged(
        "q", ErrorCode.MESSAGE_NOT_IN_FLIGHT, () -> engine.fail("q", receipt(m)));
  }

  @Test
  void fail_staleReceipt_receiptStale() {
    create("q", config().visibilityTimeout(seconds(1)));
    send("q", "x");
    Message first = receiveOne("q");
    clock.advanceSeconds(1);
    receiveOne("q");
    assertRefusedUnchanged("q", ErrorCode.RECEIPT_STALE, () -> engine.fail("q", receipt(first)));
  }

  @Test
  void receipts_eachReceive_issuesANewOne() {
    create("q", config().visibilityTimeout(Duration.ZERO));
    send("q", "x");
    String first = receipt(receiveOne("q"));
    String second = receipt(receiveOne("q"));
    assertTrue(!first.equals(second), "a new receive must issue a new receipt");
  }
}
