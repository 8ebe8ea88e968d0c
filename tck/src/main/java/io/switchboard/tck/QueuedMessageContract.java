package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.ReceiveRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Operations on a message by id: update, touch, remove and get (with history). */
public abstract class QueuedMessageContract extends EngineContract {

  // ---- update ------------------------------------------------------------------------------

  @Test
  void update_raisePriorityOfLast_deliveredFirst() {
    create("q");
    List<String> ids = sendAll("q", "a", "b", "c");
    Message updated = engine.update("q", ids.get(2), MessageUpdate.priority(1));
    assertEquals(1, updated.priority());
    assertEquals(List.of("c", "a", "b"), bodies(browseAll("q")));
    assertEquals(List.of("c", "a", "b"), receiveBodies("q"));
  }

  @Test
  void update_priorityBackToOriginal_returnsToOriginalPlaceAmongEquals() {
    create("q");
    List<String> ids = sendAll("q", "a", "b", "c");
    engine.update("q", ids.get(0), MessageUpdate.priority(1));
    assertEquals(List.of("a", "b", "c"), bodies(browseAll("q")));
    engine.update("q", ids.get(0), MessageUpdate.priority(0));
    assertEquals(List.of("a", "b", "c"), receiveBodies("q"));
  }

  @Test
  void update_lowerPriority_keepsPlaceAmongNewEquals() {
    create("q");
    send("q", "a", 0);
    String b = send("q", "b", 5).id();
    send("q", "c", 0);
    engine.update("q", b, MessageUpdate.priority(0));
    assertEquals(List.of("a", "b", "c"), receiveBodies("q"));
  }

  @Test
  void update_priority_updatesPerPriorityStats() {
    create("q");
    List<String> ids = sendAll("q", "a", "b");
    engine.update("q", ids.get(1), MessageUpdate.priority(7));
    assertEquals(Map.of(7, 1L, 0, 1L), engine.stats("q").byPriority());
  }

  @Test
  void update_inFlightMessage_priorityAppliesWhenItReturns() {
    create("q", config().visibilityTimeout(seconds(10)));
    sendAll("q", "a", "b");
    Message a = receiveOne("q");
    engine.update("q", a.id(), MessageUpdate.priority(-1));
    clock.advanceSeconds(10);
    assertEquals(List.of("b", "a"), receiveBodies("q"));
  }

  @Test
  void update_attributes_replaceAllAndFiltersSeeThem() {
    create("q");
    String id =
        engine
            .send(
                "q", NewMessage.builder("x").attribute("lang", "en").attribute("tier", "1").build())
            .id();
    Map<String, AttributeValue> next = Map.of("lang", AttributeValue.string("es"));
    assertEquals(next, engine.update("q", id, MessageUpdate.attributes(next)).attributes());
    assertEquals(next, engine.get("q", id).attributes());
    List<Message> got =
        engine.receive("q", ReceiveRequest.builder().selector("lang = 'es'").build());
    assertEquals(List.of(id), ids(got));
  }

  @Test
  void update_attributesTooLarge_refusedAndUnchanged() {
    create("q", config().maxMessageSize(1024));
    String id = send("q", "x".repeat(1000)).id();
    assertRefusedUnchanged(
        "q",
        ErrorCode.MESSAGE_TOO_LARGE,
        () ->
            engine.update(
                "q",
                id,
                MessageUpdate.attributes(Map.of("a", AttributeValue.string("y".repeat(30))))),
        "1024");
  }

  @Test
  void update_reservedAttributeName_refusedAndUnchanged() {
    create("q");
    String id = send("q", "x").id();
    assertRefusedUnchanged(
        "q",
        ErrorCode.INVALID_ARGUMENT,
        () ->
            engine.update(
                "q", id, MessageUpdate.attributes(Map.of("sys.x", AttributeValue.string("1")))),
        "sys.x");
  }

  @Test
  void update_unknownId_messageNotFoundNamingIt() {
    create("q");
    send("q", "x");
    assertRefusedUnchanged(
        "q",
        ErrorCode.MESSAGE_NOT_FOUND,
        () -> engine.update("q", "no-such-id", MessageUpdate.priority(3)),
        "no-such-id");
  }

  // ---- touch -------------------------------------------------------------------------------

  @Test
  void touch_waitingMessage_movesToTheBack() {
    create("q");
    List<String> ids = sendAll("q", "a", "b", "c");
    Message touched = engine.touch("q", ids.get(0));
    assertTrue(touched.sequence() > engine.get("q", ids.get(2)).sequence());
    assertEquals(List.of("b", "c", "a"), receiveBodies("q"));
  }

  @Test
  void touch_lifoQueue_deliveredLast() {
    create("q", config().order(Order.LIFO));
    List<String> ids = sendAll("q", "a", "b", "c");
    engine.touch("q", ids.get(2));
    assertEquals(List.of("b", "a", "c"), receiveBodies("q"));
  }

  @Test
  void touch_keepsPriority() {
    create("q");
    String high = send("q", "high", 3).id();
    send("q", "low", 0);
    send("q", "high-2", 3);
    engine.touch("q", high);
    assertEquals(List.of("high-2", "high", "low"), receiveBodies("q"));
  }

  @Test
  void touch_groupedQueue_conflict() {
    create("g.fifo");
    String id = sendGrouped("g.fifo", "A", "a1").id();
    assertRefusedUnchanged(
        "g.fifo", ErrorCode.CONFLICT, () -> engine.touch("g.fifo", id), "g.fifo");
  }

  @Test
  void touch_unknownId_messageNotFound() {
    create("q");
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.touch("q", "nope"), "nope");
  }

  // ---- remove ------------------------------------------------------------------------------

  @Test
  void remove_availableDelayedAndInFlight_allGone() {
    create("q");
    String available = send("q", "available").id();
    String delayed = engine.send("q", NewMessage.builder("d").delay(seconds(5)).build()).id();
    send("q", "leased");
    String leased = engine.receive("q", ReceiveRequest.max(10)).get(1).id();
    for (String id : List.of(available, delayed, leased)) {
      engine.remove("q", id);
      assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.get("q", id), id);
    }
    assertEquals(0, engine.stats("q").depth());
    assertEquals(3, engine.stats("q").counters().removed());
    clock.advanceSeconds(60);
    assertNothingToReceive("q");
  }

  @Test
  void remove_inFlightMessage_leaseDies() {
    create("q");
    send("q", "x");
    Message m = receiveOne("q");
    engine.remove("q", m.id());
    engine.ack("q", receipt(m));
    assertEquals(0, engine.stats("q").counters().acked(), "ack of a removed message is a no-op");
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.extend("q", receipt(m), seconds(5)));
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.release("q", receipt(m)));
  }

  @Test
  void remove_unknownId_messageNotFound() {
    create("q");
    send("q", "x");
    assertRefusedUnchanged(
        "q", ErrorCode.MESSAGE_NOT_FOUND, () -> engine.remove("q", "nope"), "nope", "'q'");
  }

  @Test
  void remove_idOfAnotherQueue_messageNotFound() {
    create("a");
    create("b");
    String id = send("a", "x").id();
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.remove("b", id), id);
    assertEquals(1, engine.stats("a").depth());
  }

  // ---- get ---------------------------------------------------------------------------------

  @Test
  void get_followsStatesDelayedAvailableInFlight() {
    create("q", config().visibilityTimeout(seconds(10)));
    String id = engine.send("q", NewMessage.builder("x").delay(seconds(5)).build()).id();
    assertEquals(MessageState.DELAYED, engine.get("q", id).state());
    clock.advanceSeconds(5);
    Message available = engine.get("q", id);
    assertEquals(MessageState.AVAILABLE, available.state());
    assertTrue(available.visibleAt().isEmpty());
    receiveOne("q");
    Message inFlight = engine.get("q", id);
    assertEquals(MessageState.IN_FLIGHT, inFlight.state());
    assertEquals(clock.instant().plusSeconds(10), inFlight.visibleAt().orElseThrow());
    clock.advanceSeconds(10);
    assertEquals(MessageState.AVAILABLE, engine.get("q", id).state());
  }

  @Test
  void get_completedWithHistory_keptUntilHistoryRetentionEnds() {
    create("q", config().historyRetention(seconds(60)));
    String id = send("q", "x").id();
    engine.ack("q", receipt(receiveOne("q")));
    Message done = engine.get("q", id);
    assertEquals(MessageState.COMPLETED, done.state());
    assertEquals("x", done.body());
    assertEquals(1, done.receiveCount());
    assertEquals(0, engine.stats("q").depth(), "history is not part of the queue");
    clock.advanceMillis(59_999);
    assertEquals(MessageState.COMPLETED, engine.get("q", id).state());
    clock.advanceMillis(1);
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.get("q", id), id);
  }

  @Test
  void get_completedWithoutHistory_messageNotFound() {
    create("q");
    String id = send("q", "x").id();
    engine.ack("q", receipt(receiveOne("q")));
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.get("q", id), id);
  }

  @Test
  void get_deadLetteredWithHistory_shownInSourceQueue() {
    create("dlq");
    create("q", config().deadLetter("dlq", 3).historyRetention(seconds(60)));
    String id = send("q", "x").id();
    engine.deadLetterById("q", id);
    assertEquals(MessageState.DEAD_LETTERED, engine.get("q", id).state());
    assertEquals(MessageState.AVAILABLE, engine.get("dlq", id).state());
  }

  @Test
  void get_malformedOrForeignId_messageNotFoundNamingIt() {
    create("q");
    create("other");
    String foreign = send("other", "x").id();
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.get("q", "garbage"), "garbage", "'q'");
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.get("q", foreign), foreign);
  }

  @Test
  void get_doesNotLease() {
    create("q");
    String id = send("q", "x").id();
    assertEquals(0, engine.get("q", id).receiveCount());
    assertEquals(1, engine.stats("q").available());
    assertEquals(1, receiveOne("q").receiveCount());
  }
}
