package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Dead-letter queues: the receive limit, explicit moves, restore and redrive tasks. */
public abstract class DeadLetterContract extends EngineContract {

  /** "q" (visibility 10 s) dead-letters into "dlq" after {@code maxReceiveCount} receives. */
  private void createWithDeadLetter(int maxReceiveCount) {
    create("dlq");
    create("q", config().visibilityTimeout(seconds(10)).deadLetter("dlq", maxReceiveCount));
  }

  /** Sends each body to "q" and dead-letters it by id at once; returns the ids. */
  private List<String> deadLettered(String... bodies) {
    List<String> ids = sendAll("q", bodies);
    ids.forEach(id -> engine.deadLetterById("q", id));
    return ids;
  }

  @Test
  void maxReceiveCount_reachedOnTimeout_movesToDeadLetterInsteadOfVisible() {
    createWithDeadLetter(2);
    String id =
        engine.send("q", NewMessage.builder("x").attribute("k", "v").priority(3).build()).id();
    receiveOne("q");
    clock.advanceSeconds(10);
    assertEquals(2, receiveOne("q").receiveCount());
    clock.advanceSeconds(10);
    assertNothingToReceive("q");
    assertEquals(0, engine.stats("q").depth());
    assertEquals(1, engine.stats("q").counters().deadLettered());
    Message dead = engine.get("dlq", id);
    assertEquals(id, dead.id());
    assertEquals("x", dead.body());
    assertEquals(AttributeValue.string("v"), dead.attributes().get("k"));
    assertEquals(MessageState.AVAILABLE, dead.state());
    assertEquals("q", dead.deadLetterSource().orElseThrow());
    assertEquals(receiveOne("dlq").id(), id);
  }

  @Test
  void maxReceiveCount_notYetReached_visibleAgain() {
    createWithDeadLetter(2);
    send("q", "x");
    receiveOne("q");
    clock.advanceSeconds(10);
    assertEquals(1, engine.stats("q").available());
    assertEquals(0, engine.stats("dlq").depth());
  }

  @Test
  void maxReceiveCount_reachedOnRelease_movesToDeadLetter() {
    createWithDeadLetter(1);
    String id = send("q", "x").id();
    engine.release("q", receipt(receiveOne("q")), seconds(5), false);
    assertEquals(0, engine.stats("q").depth());
    assertEquals("q", engine.get("dlq", id).deadLetterSource().orElseThrow());
  }

  @Test
  void maxReceiveCount_reachedOnExtendToZero_movesToDeadLetter() {
    createWithDeadLetter(1);
    String id = send("q", "x").id();
    engine.extend("q", receipt(receiveOne("q")), Duration.ZERO);
    assertNothingToReceive("q");
    assertEquals(MessageState.AVAILABLE, engine.get("dlq", id).state());
  }

  // ---- a queue that is its own dead-letter target (SQS accepts it) -------------------------

  /** "q" (visibility 10 s) is its own dead-letter target after {@code maxReceiveCount}. */
  private void createDeadLetteringToItself(int maxReceiveCount) {
    create("q", config().visibilityTimeout(seconds(10)).deadLetter("q", maxReceiveCount));
  }

  @Test
  void deadLetterToItself_maxReceiveCountReachedOnTimeout_staysWithReceiveCountReset() {
    createDeadLetteringToItself(2);
    String id = send("q", "x").id();
    receiveOne("q");
    clock.advanceSeconds(10);
    assertEquals(2, receiveOne("q").receiveCount());
    clock.advanceSeconds(10);
    assertEquals(1, engine.stats("q").available());
    assertEquals(1, engine.stats("q").counters().deadLettered());
    Message again = receiveOne("q");
    assertEquals(id, again.id());
    assertEquals(1, again.receiveCount());
    assertTrue(again.deadLetterSource().isEmpty());
    clock.advanceSeconds(10);
    assertEquals(2, receiveOne("q").receiveCount());
    clock.advanceSeconds(10);
    assertEquals(2, engine.stats("q").counters().deadLettered());
    assertEquals(1, receiveOne("q").receiveCount());
  }

  @Test
  void deadLetterToItself_keepsItsPlaceAheadOfLaterMessages() {
    createDeadLetteringToItself(1);
    String first = send("q", "a").id();
    send("q", "b");
    engine.release("q", receipt(receiveOne("q")), seconds(5), false);
    Message next = receiveOne("q");
    assertEquals(first, next.id());
    assertEquals(1, next.receiveCount());
    assertEquals(2, engine.stats("q").depth());
  }

  @Test
  void deadLetterToItself_onExtendToZero_availableAgainNotDeadLettered() {
    createDeadLetteringToItself(1);
    String id = send("q", "x").id();
    Message left = engine.extend("q", receipt(receiveOne("q")), Duration.ZERO);
    assertEquals(MessageState.AVAILABLE, left.state());
    assertEquals(0, left.receiveCount());
    assertEquals(MessageState.AVAILABLE, engine.get("q", id).state());
    assertEquals(1, engine.stats("q").counters().deadLettered());
  }

  @Test
  void deadLetterToItself_onRequest_leasedMessageAvailableAgain() {
    createDeadLetteringToItself(5);
    String id = send("q", "x").id();
    engine.deadLetter("q", receipt(receiveOne("q")));
    Message again = receiveOne("q");
    assertEquals(id, again.id());
    assertEquals(1, again.receiveCount());
    engine.deadLetterById("q", id);
    assertEquals(1, engine.stats("q").available());
    assertEquals(2, engine.stats("q").counters().deadLettered());
  }

  @Test
  void deadLetterToItself_groupedQueue_headStaysFirstInItsGroup() {
    create("g.fifo", config().visibilityTimeout(seconds(10)).deadLetter("g.fifo", 1));
    sendGrouped("g.fifo", "A", "A1");
    sendGrouped("g.fifo", "A", "A2");
    Message head = receiveOne("g.fifo");
    assertEquals("A1", head.body());
    clock.advanceSeconds(10);
    assertEquals(1, engine.stats("g.fifo").counters().deadLettered());
    List<Message> again = receive("g.fifo", 10);
    assertEquals(List.of("A1", "A2"), bodies(again));
    assertEquals(1, again.get(0).receiveCount());
  }

  @Test
  void deadLetter_byReceipt_movesNow() {
    createWithDeadLetter(5);
    String id = send("q", "x").id();
    engine.deadLetter("q", receipt(receiveOne("q")));
    assertEquals(0, engine.stats("q").depth());
    assertEquals(1, engine.stats("q").counters().deadLettered());
    assertEquals(id, receiveOne("dlq").id());
  }

  @Test
  void deadLetter_staleReceipt_receiptStale() {
    createWithDeadLetter(5);
    send("q", "x");
    Message first = receiveOne("q");
    clock.advanceSeconds(10);
    receiveOne("q");
    assertRefusedUnchanged(
        "q", ErrorCode.RECEIPT_STALE, () -> engine.deadLetter("q", receipt(first)));
  }

  @Test
  void deadLetterById_anyState_movesAndLeaseDies() {
    createWithDeadLetter(5);
    String delayed = engine.send("q", NewMessage.builder("d").delay(seconds(60)).build()).id();
    send("q", "leased");
    Message leased = receiveOne("q");
    String available = send("q", "available").id();
    for (String id : List.of(available, delayed, leased.id())) {
      engine.deadLetterById("q", id);
    }
    assertEquals(0, engine.stats("q").depth());
    assertEquals(3, engine.stats("dlq").available());
    engine.ack("q", receipt(leased));
    assertEquals(0, engine.stats("q").counters().acked(), "the moved message's lease is dead");
    assertEquals(3, engine.stats("dlq").depth());
  }

  @Test
  void deadLetter_queueWithoutDeadLetterTarget_conflict() {
    create("q");
    String id = send("q", "x").id();
    Message m = receiveOne("q");
    assertRefusedUnchanged(
        "q", ErrorCode.CONFLICT, () -> engine.deadLetter("q", receipt(m)), "'q'");
    assertRefusedUnchanged("q", ErrorCode.CONFLICT, () -> engine.deadLetterById("q", id), "'q'");
  }

  @Test
  void deadLetterById_unknownId_messageNotFound() {
    createWithDeadLetter(5);
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.deadLetterById("q", "nope"), "nope");
  }

  // ---- restore -----------------------------------------------------------------------------

  @Test
  void restore_deadLetteredMessage_backToSourceAtTheBack() {
    createWithDeadLetter(1);
    String id = deadLettered("x").get(0);
    send("q", "later");
    Message restored = engine.restore("dlq", id);
    assertEquals(id, restored.id());
    assertEquals(MessageState.AVAILABLE, restored.state());
    assertTrue(restored.deadLetterSource().isEmpty());
    assertEquals(0, engine.stats("dlq").depth());
    List<Message> got = receive("q", 10);
    assertEquals(List.of("later", "x"), bodies(got));
    assertEquals(1, got.get(1).receiveCount(), "a restored message starts a fresh count");
  }

  @Test
  void restore_messageNotDeadLettered_conflict() {
    create("dlq");
    String id = send("dlq", "sent directly").id();
    assertRefusedUnchanged("dlq", ErrorCode.CONFLICT, () -> engine.restore("dlq", id), id);
  }

  @Test
  void restore_unknownId_messageNotFound() {
    createWithDeadLetter(1);
    assertError(ErrorCode.MESSAGE_NOT_FOUND, () -> engine.restore("dlq", "nope"), "nope");
  }

  @Test
  void restore_leasedInDeadLetterQueue_conflict() {
    createWithDeadLetter(1);
    String id = deadLettered("x").get(0);
    receiveOne("dlq");
    assertRefusedUnchanged("dlq", ErrorCode.CONFLICT, () -> engine.restore("dlq", id), id);
    assertEquals(0, engine.stats("q").depth());
  }

  // ---- redrive -----------------------------------------------------------------------------

  @Test
  void startRedrive_toSources_movesEverythingBackInOrder() {
    createWithDeadLetter(1);
    List<String> ids = deadLettered("a", "b", "c");
    RedriveTask task = engine.startRedrive("dlq", RedriveRequest.toSources());
    assertEquals(RedriveTask.Status.COMPLETED, task.status());
    assertEquals(3, task.moved());
    assertEquals(3, task.toMove());
    assertEquals("dlq", task.source());
    assertTrue(task.destination().isEmpty());
    assertEquals(clock.instant(), task.startedAt());
    assertEquals(0, engine.stats("dlq").depth());
    List<Message> back = receive("q", 10);
    assertEquals(ids, ids(back));
    assertTrue(back.stream().allMatch(m -> m.deadLetterSource().isEmpty()));
    assertTrue(back.stream().allMatch(m -> m.receiveCount() == 1));
  }

  @Test
  void startRedrive_toNamedDestination_movesThere() {
    createWithDeadLetter(1);
    create("elsewhere");
    deadLettered("a", "b");
    RedriveTask task = engine.startRedrive("dlq", RedriveRequest.to("elsewhere"));
    assertEquals("elsewhere", task.destination().orElseThrow());
    assertEquals(List.of("a", "b"), receiveBodies("elsewhere"));
    assertEquals(0, engine.stats("q").depth());
  }

  @Test
  void startRedrive_missingOrOtherKindDestination_refused() {
    createWithDeadLetter(1);
    create("grouped.fifo");
    deadLettered("a");
    assertRefusedUnchanged(
        "dlq",
        ErrorCode.QUEUE_NOT_FOUND,
        () -> engine.startRedrive("dlq", RedriveRequest.to("ghost")),
        "ghost");
    assertRefusedUnchanged(
        "dlq",
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.startRedrive("dlq", RedriveRequest.to("grouped.fifo")),
        "grouped.fifo");
    assertEquals(List.of(), engine.redriveTasks("dlq"));
  }

  @Test
  void startRedrive_rateLimited_progressesOnlyAsClockAdvances() {
    createWithDeadLetter(1);
    deadLettered("1", "2", "3", "4", "5", "6", "7");
    RedriveTask task = engine.startRedrive("dlq", RedriveRequest.toSources().maxPerSecond(2));
    assertEquals(RedriveTask.Status.RUNNING, task.status());
    assertEquals(2, task.moved());
    assertEquals(7, task.toMove());
    assertEquals(2, engine.stats("q").depth());
    clock.advanceSeconds(1);
    assertEquals(4, engine.stats("q").depth());
    assertEquals(4, engine.redriveTasks("dlq").get(0).moved());
    clock.advanceSeconds(1);
    assertEquals(6, engine.stats("q").depth());
    clock.advanceSeconds(1);
    assertEquals(7, engine.stats("q").depth());
    RedriveTask done = engine.redriveTasks("dlq").get(0);
    assertEquals(RedriveTask.Status.COMPLETED, done.status());
    assertEquals(7, done.moved());
    assertEquals(List.of("1", "2", "3", "4", "5", "6", "7"), receiveBodies("q"));
  }

  @Test
  void startRedrive_movesOnlyMessagesPresentAtStart() {
    createWithDeadLetter(1);
    deadLettered("1", "2", "3");
    engine.startRedrive("dlq", RedriveRequest.toSources().maxPerSecond(1));
    deadLettered("late");
    clock.advanceSeconds(5);
    assertEquals(List.of("late"), bodies(browseAll("dlq")));
    assertEquals(RedriveTask.Status.COMPLETED, engine.redriveTasks("dlq").get(0).status());
  }

  @Test
  void startRedrive_leasedMessage_skippedAndStays() {
    createWithDeadLetter(1);
    deadLettered("a", "b");
    Message leased = receiveOne("dlq");
    RedriveTask task = engine.startRedrive("dlq", RedriveRequest.toSources());
    assertEquals(RedriveTask.Status.COMPLETED, task.status());
    assertEquals(1, task.moved());
    assertEquals(List.of(leased.id()), ids(browseAll("dlq")));
    assertEquals(List.of("b"), receiveBodies("q"));
  }

  @Test
  void redriveTasks_listedNewestFirst() {
    createWithDeadLetter(1);
    deadLettered("a");
    RedriveTask first = engine.startRedrive("dlq", RedriveRequest.toSources());
    clock.advanceSeconds(1);
    deadLettered("b");
    RedriveTask second = engine.startRedrive("dlq", RedriveRequest.toSources());
    assertEquals(
        List.of(second.id(), first.id()),
        engine.redriveTasks("dlq").stream().map(RedriveTask::id).toList());
    assertEquals(List.of(), engine.redriveTasks("q"));
  }

  @Test
  void cancelRedrive_runningTask_stopsIt() {
    createWithDeadLetter(1);
    deadLettered("1", "2", "3", "4", "5");
    RedriveTask task = engine.startRedrive("dlq", RedriveRequest.toSources().maxPerSecond(1));
    assertEquals(1, task.moved());
    RedriveTask cancelled = engine.cancelRedrive(task.id());
    assertEquals(RedriveTask.Status.CANCELLED, cancelled.status());
    clock.advanceSeconds(10);
    assertEquals(1, engine.stats("q").depth());
    assertEquals(4, engine.stats("dlq").depth());
    assertEquals(RedriveTask.Status.CANCELLED, engine.redriveTasks("dlq").get(0).status());
    assertEquals(1, engine.redriveTasks("dlq").get(0).moved());
  }

  @Test
  void startRedrive_whileAnotherRuns_conflictUntilItEnds() {
    createWithDeadLetter(1);
    deadLettered("1", "2", "3");
    RedriveTask running = engine.startRedrive("dlq", RedriveRequest.toSources().maxPerSecond(1));
    assertError(
        ErrorCode.CONFLICT,
        () -> engine.startRedrive("dlq", RedriveRequest.toSources()),
        "dlq",
        running.id());
    assertEquals(1, engine.redriveTasks("dlq").size());
    engine.cancelRedrive(running.id());
    assertEquals(
        RedriveTask.Status.COMPLETED,
        engine.startRedrive("dlq", RedriveRequest.toSources()).status());
    assertEquals(3, engine.stats("q").depth());
  }

  @Test
  void cancelRedrive_unknownTask_taskNotFound() {
    assertError(
        ErrorCode.TASK_NOT_FOUND, () -> engine.cancelRedrive("no-such-task"), "no-such-task");
  }

  @Test
  void redriveRequest_rateOutOfRange_refused() {
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> RedriveRequest.toSources().maxPerSecond(0),
        "maxPerSecond",
        "0");
    assertError(
        ErrorCode.INVALID_ARGUMENT,
        () -> RedriveRequest.toSources().maxPerSecond(100_001),
        "maxPerSecond",
        "100001");
  }

  @Test
  void redrive_backToSources_doesNotDeadLetterAgainAtOnce() {
    createWithDeadLetter(1);
    send("q", "x");
    receiveOne("q");
    clock.advanceSeconds(10);
    assertEquals(1, engine.stats("dlq").depth());
    engine.startRedrive("dlq", RedriveRequest.toSources());
    Message again = receiveOne("q");
    assertEquals(1, again.receiveCount());
    engine.ack("q", receipt(again));
    assertEquals(0, engine.stats("dlq").depth());
  }
}
