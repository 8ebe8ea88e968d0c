package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The patterns of the seed documents, told as stories: 001 (a shipment priority queue on DynamoDB),
 * 002 (a LIFO task queue with TTL shedding and guarded transitions) and 003 (SQS FIFO message
 * groups, exactly the batch rules of the article).
 */
public abstract class SeedScenarioContract extends EngineContract {

  // ---- seed 001: shipments ------------------------------------------------------------------

  private void createShipments() {
    create("shipments-dlq");
    create(
        "shipments",
        config()
            .visibilityTimeout(seconds(60))
            .deadLetter("shipments-dlq", 3)
            .historyRetention(Duration.ofHours(1)));
  }

  private String ship(String body, int priority) {
    return send("shipments", body, priority).id();
  }

  @Test
  void seed001_enqueuePeekDequeue_priorityThenArrival() {
    createShipments();
    ship("standard-1", 0);
    ship("express-1", 10);
    ship("standard-2", 0);
    Message peeked = receiveOne("shipments");
    assertEquals("express-1", peeked.body());
    // Peek hides it from other consumers for the visibility timeout.
    assertEquals(List.of("standard-1"), bodies(receive("shipments", 1)));
    engine.ack("shipments", receipt(peeked));
    assertEquals(MessageState.COMPLETED, engine.get("shipments", peeked.id()).state());
  }

  @Test
  void seed001_peekNotCompleted_visibleAgainForAnotherConsumer() {
    createShipments();
    String id = ship("s", 0);
    receiveOne("shipments");
    clock.advanceSeconds(59);
    assertNothingToReceive("shipments");
    clock.advanceSeconds(1);
    assertEquals(id, receiveOne("shipments").id());
  }

  @Test
  void seed001_changePriorityWhileQueued_reordersAtOnce() {
    createShipments();
    ship("s1", 0);
    ship("s2", 0);
    String s3 = ship("s3", 0);
    engine.update("shipments", s3, MessageUpdate.priority(5));
    assertEquals("s3", receiveOne("shipments").body());
  }

  @Test
  void seed001_touch_sendsShipmentToTheBack() {
    createShipments();
    String s1 = ship("s1", 0);
    ship("s2", 0);
    ship("s3", 0);
    engine.touch("shipments", s1);
    assertEquals(List.of("s2", "s3", "s1"), receiveBodies("shipments"));
  }

  @Test
  void seed001_remove_cancelsShipmentBeforeOrDuringProcessing() {
    createShipments();
    String queued = ship("queued", 0);
    ship("processing", 0);
    engine.remove("shipments", queued);
    Message processing = receiveOne("shipments");
    engine.remove("shipments", processing.id());
    engine.ack("shipments", receipt(processing));
    assertEquals(0, engine.stats("shipments").depth());
    assertEquals(2, engine.stats("shipments").counters().removed());
  }

  @Test
  void seed001_repeatedFailures_goToDeadLetterQueueAndRestoreBringsThemBack() {
    createShipments();
    String id = ship("broken", 0);
    for (int attempt = 1; attempt <= 3; attempt++) {
      Message m = receiveOne("shipments");
      assertEquals(attempt, m.receiveCount());
      engine.release("shipments", receipt(m));
    }
    assertEquals(MessageState.DEAD_LETTERED, engine.get("shipments", id).state());
    assertEquals("shipments", engine.get("shipments-dlq", id).deadLetterSource().orElseThrow());
    assertEquals(1, engine.stats("shipments-dlq").available());
    // Fixed by hand: restore it.
    engine.restore("shipments-dlq", id);
    assertEquals(0, engine.stats("shipments-dlq").depth());
    Message retried = receiveOne("shipments");
    assertEquals(id, retried.id());
    engine.ack("shipments", receipt(retried));
  }

  @Test
  void seed001_sendToDeadLetterQueueByHand_andRestore() {
    createShipments();
    String id = ship("suspicious", 0);
    engine.deadLetterById("shipments", id);
    assertEquals(0, engine.stats("shipments").depth());
    assertEquals(id, engine.restore("shipments-dlq", id).id());
    assertEquals(MessageState.AVAILABLE, engine.get("shipments", id).state());
  }

  @Test
  void seed001_stats_ofQueueAndDeadLetterQueue() {
    createShipments();
    ship("a", 0);
    ship("b", 1);
    ship("c", 1);
    String bad = ship("bad", 0);
    clock.advanceSeconds(5);
    receiveOne("shipments");
    engine.deadLetterById("shipments", bad);
    QueueStats q = engine.stats("shipments");
    assertEquals(2, q.available());
    assertEquals(1, q.inFlight());
    assertEquals(Duration.ofSeconds(5), q.oldestAge().orElseThrow());
    assertEquals(List.of(1, 0), new ArrayList<>(q.byPriority().keySet()));
    assertEquals(1, q.counters().deadLettered());
    QueueStats dlq = engine.stats("shipments-dlq");
    assertEquals(1, dlq.available());
    assertEquals(4, q.counters().sent());
    assertEquals(0, dlq.counters().sent(), "a moved message is not a send");
  }

  @Test
  void seed001_statusLifecycle_readyProcessingReadyProcessingCompleted() {
    createShipments();
    String id = ship("s", 0);
    assertEquals(MessageState.AVAILABLE, engine.get("shipments", id).state());
    Message first = receiveOne("shipments");
    assertEquals(MessageState.IN_FLIGHT, engine.get("shipments", id).state());
    engine.release("shipments", receipt(first));
    assertEquals(MessageState.AVAILABLE, engine.get("shipments", id).state());
    Message second = receiveOne("shipments");
    engine.ack("shipments", receipt(second));
    Message done = engine.get("shipments", id);
    assertEquals(MessageState.COMPLETED, done.state());
    assertEquals(2, done.receiveCount());
  }

  @Test
  void seed001_delayedRetry_exponentialBackoffThroughReleaseDelay() {
    create("shipments", config().visibilityTimeout(seconds(60)));
    ship("flaky", 0);
    long backoff = 1;
    for (int attempt = 1; attempt <= 4; attempt++) {
      Message m = receiveOne("shipments");
      assertEquals(attempt, m.receiveCount());
      engine.release("shipments", receipt(m), seconds(backoff), false);
      clock.advanceMillis(backoff * 1000 - 1);
      assertNothingToReceive("shipments");
      clock.advanceMillis(1);
      backoff *= 2;
    }
    assertEquals(5, receiveOne("shipments").receiveCount());
  }

  // ---- seed 002: LIFO task queue -------------------------------------------------------------

  @Test
  void seed002_lifo_newestTaskFirst() {
    create("tasks", config().order(Order.LIFO));
    for (int i = 1; i <= 5; i++) {
      send("tasks", "task-" + i);
      clock.advanceMillis(10);
    }
    assertEquals(List.of("task-5", "task-4"), bodies(receive("tasks", 2)));
    send("tasks", "task-6");
    assertEquals(List.of("task-6", "task-3", "task-2", "task-1"), receiveBodies("tasks"));
  }

  @Test
  void seed002_ttl_oldTasksShedExactlyWhenTheyExpire() {
    create("tasks", config().order(Order.LIFO).retention(seconds(60)));
    NewMessage old = NewMessage.builder("old").timeToLive(seconds(30)).build();
    engine.send("tasks", old);
    clock.advanceSeconds(29);
    send("tasks", "fresh");
    clock.advanceSeconds(1);
    assertEquals(List.of("fresh"), receiveBodies("tasks"));
    assertEquals(1, engine.stats("tasks").counters().expired());
  }

  @Test
  void seed002_throughputCappedConsumer_newestServedOldestShed() {
    create("tasks", config().order(Order.LIFO));
    List<String> processed = new ArrayList<>();
    for (int second = 0; second < 6; second++) {
      engine.send("tasks", NewMessage.builder("t" + second).timeToLive(seconds(3)).build());
      if (second % 2 == 1) { // the legacy system takes one task every two seconds
        Message m = receiveOne("tasks");
        processed.add(m.body());
        engine.ack("tasks", receipt(m));
      }
      clock.advanceSeconds(1);
    }
    assertEquals(List.of("t1", "t3", "t5"), processed);
    assertEquals(2, engine.stats("tasks").counters().expired());
    assertEquals(List.of("t4"), receiveBodies("tasks"));
  }

  @Test
  void seed002_dropOldest_shedsOldestBufferedTasksUnderLoad() {
    create("tasks", config().order(Order.LIFO).maxDepth(3, Overflow.DROP_OLDEST));
    for (int i = 1; i <= 6; i++) {
      send("tasks", "task-" + i);
    }
    assertEquals(3, engine.stats("tasks").counters().shed());
    assertEquals(List.of("task-6", "task-5", "task-4"), receiveBodies("tasks"));
  }

  @Test
  void seed002_stateTransitions_pendingTakenSuccess() {
    create("tasks", config().historyRetention(seconds(60)));
    String id = send("tasks", "t").id();
    assertEquals(MessageState.AVAILABLE, engine.get("tasks", id).state());
    Message taken = receiveOne("tasks");
    assertEquals(MessageState.IN_FLIGHT, engine.get("tasks", id).state());
    engine.ack("tasks", receipt(taken));
    assertEquals(MessageState.COMPLETED, engine.get("tasks", id).state());
    // SUCCESS is final: no way back to TAKEN.
    assertError(
        ErrorCode.MESSAGE_NOT_FOUND, () -> engine.extend("tasks", receipt(taken), seconds(5)));
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.fail("tasks", receipt(taken)));
    assertNothingToReceive("tasks");
  }

  @Test
  void seed002_stateTransitions_pendingTakenFailure() {
    create("tasks", config().historyRetention(seconds(60)));
    String id = send("tasks", "t").id();
    Message taken = receiveOne("tasks");
    engine.fail("tasks", receipt(taken));
    assertEquals(MessageState.FAILED, engine.get("tasks", id).state());
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.release("tasks", receipt(taken)));
  }

  @Test
  void seed002_stateTransitions_takenBackToPending() {
    create("tasks");
    String id = send("tasks", "t").id();
    engine.release("tasks", receipt(receiveOne("tasks")));
    assertEquals(MessageState.AVAILABLE, engine.get("tasks", id).state());
  }

  @Test
  void seed002_illegalTransitions_refusedAndChangeNothing() {
    create("tasks", config().visibilityTimeout(seconds(10)));
    send("tasks", "t");
    Message firstTake = receiveOne("tasks");
    clock.advanceSeconds(10);
    // Pending again (the worker died): the old worker may not fail it...
    assertRefusedUnchanged(
        "tasks", ErrorCode.MESSAGE_NOT_IN_FLIGHT, () -> engine.fail("tasks", receipt(firstTake)));
    // ... but while nobody took it since, extending takes it again (PENDING to TAKEN, as SQS).
    assertEquals(
        MessageState.IN_FLIGHT, engine.extend("tasks", receipt(firstTake), seconds(10)).state());
    clock.advanceSeconds(10);
    Message secondTake = receiveOne("tasks");
    // Taken by another worker: the old one may not extend or finish it.
    assertRefusedUnchanged(
        "tasks",
        ErrorCode.RECEIPT_STALE,
        () -> engine.extend("tasks", receipt(firstTake), seconds(10)));
    assertRefusedUnchanged(
        "tasks", ErrorCode.RECEIPT_STALE, () -> engine.ack("tasks", receipt(firstTake)));
    assertRefusedUnchanged(
        "tasks", ErrorCode.RECEIPT_STALE, () -> engine.fail("tasks", receipt(firstTake)));
    engine.ack("tasks", receipt(secondTake));
    assertEquals(0, engine.stats("tasks").depth());
  }

  @Test
  void seed002_processingTriggeredByArrival_longPollWokenBySend() throws Exception {
    create("tasks", config().order(Order.LIFO).receiveWait(seconds(20)));
    Future<List<Message>> worker = blockedReceive("tasks", ReceiveRequest.max(10));
    send("tasks", "arrived");
    assertEquals(List.of("arrived"), bodies(result(worker)));
  }

  // ---- seed 003: SQS FIFO message groups ------------------------------------------------------

  private static final String AUCTIONS = "auctions.fifo";

  private void bid(String group, String body) {
    sendGrouped(AUCTIONS, group, body);
  }

  private static List<String> numbered(String prefix, int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      out.add(prefix + i);
    }
    return out;
  }

  /** 11 group-A and 11 group-B bids arriving interleaved: A1, B1, A2, B2, ... */
  private void interleavedBids() {
    create(AUCTIONS);
    for (int i = 1; i <= 11; i++) {
      bid("A", "A" + i);
      bid("B", "B" + i);
    }
  }

  @Test
  void seed003_simpleCase_batchOfThreeBidsInArrivalOrder() {
    create(AUCTIONS);
    bid("laptop", "bid-1");
    bid("laptop", "bid-2");
    bid("laptop", "bid-3");
    assertEquals(List.of("bid-1", "bid-2", "bid-3"), bodies(receive(AUCTIONS, 10)));
    assertNothingToReceive(AUCTIONS);
  }

  @Test
  void seed003_burstOfElevenInOneGroup_nextBatchOnlyAfterFirstIsDeleted() {
    create(AUCTIONS);
    for (int i = 1; i <= 11; i++) {
      bid("auction", "bid-" + i);
    }
    List<Message> first = receive(AUCTIONS, 10);
    assertEquals(numbered("bid-", 1, 10), bodies(first));
    assertNothingToReceive(AUCTIONS);
    ackAll(AUCTIONS, first);
    assertEquals(List.of("bid-11"), receiveBodies(AUCTIONS));
  }

  @Test
  void seed003_twoConsumers_eachGetsOneGroupThenRemainderOfBoth() {
    interleavedBids();
    List<Message> consumer1 = receive(AUCTIONS, 10);
    assertEquals(numbered("A", 1, 10), bodies(consumer1));
    List<Message> consumer2 = receive(AUCTIONS, 10);
    assertEquals(numbered("B", 1, 10), bodies(consumer2));
    ackAll(AUCTIONS, consumer1);
    ackAll(AUCTIONS, consumer2);
    assertEquals(List.of("A11", "B11"), bodies(receive(AUCTIONS, 10)));
  }

  @Test
  void seed003_fasterConsumer_getsOnlyItsGroupWhileOtherGroupInFlight() {
    interleavedBids();
    List<Message> consumer1 = receive(AUCTIONS, 10);
    List<Message> consumer2 = receive(AUCTIONS, 10);
    ackAll(AUCTIONS, consumer1);
    List<Message> next = receive(AUCTIONS, 10);
    assertEquals(List.of("A11"), bodies(next), "group B is still in flight");
    ackAll(AUCTIONS, consumer2);
    assertEquals(List.of("B11"), bodies(receive(AUCTIONS, 10)));
    ackAll(AUCTIONS, next);
    assertEquals(0, engine.stats(AUCTIONS).available());
  }

  @Test
  void seed003_exactlyOnce_retriedSendWithinWindowIsDropped() {
    create(AUCTIONS);
    bid("A", "A1");
    assertTrue(
        engine
            .send(AUCTIONS, NewMessage.builder("A1").groupId("A").deduplicationId("A1").build())
            .duplicate());
    assertEquals(List.of("A1"), receiveBodies(AUCTIONS));
  }
}
