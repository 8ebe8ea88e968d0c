package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageFilter;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.SelectorFilter;
import java.util.List;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Grouped (SQS FIFO) queues: group and deduplication ids are required; a batch takes the best
 * eligible group head, then as many following messages of that group as fit (up to its first
 * message in flight), then repeats; a group whose head is in flight is blocked, and reopens up to
 * its first message in flight when the head comes back; groups go by their head's place in time (a
 * group handed back by the time it was last received, so after groups never received that were
 * waiting then); filters see group heads only; order within a group is never broken, by releases,
 * timeouts or dead-letter moves.
 */
public abstract class GroupedQueueContract extends EngineContract {

  private static final String Q = "g.fifo";

  private static final MessageFilter BLUE = SelectorFilter.parse("color = 'blue'");

  private void put(String group, String body) {
    sendGrouped(Q, group, body);
  }

  private void sendColored(String group, String body, String color) {
    engine.send(
        Q,
        NewMessage.builder(body)
            .groupId(group)
            .deduplicationId(body)
            .attribute("color", color)
            .build());
  }

  @Test
  void send_withoutGroupId_refused() {
    create(Q);
    assertRefusedUnchanged(
        Q,
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.send(Q, NewMessage.builder("x").deduplicationId("d").build()),
        "groupId",
        Q);
  }

  @Test
  void send_withoutDeduplicationIdOrContentBasedDedup_refused() {
    create(Q);
    assertRefusedUnchanged(
        Q,
        ErrorCode.INVALID_ARGUMENT,
        () -> engine.send(Q, NewMessage.builder("x").groupId("A").build()),
        "deduplicationId",
        Q);
  }

  @Test
  void send_contentBasedDedup_needsNoExplicitId() {
    create(Q, config().contentBasedDeduplication(true));
    assertFalse(engine.send(Q, NewMessage.builder("x").groupId("A").build()).duplicate());
    assertTrue(engine.send(Q, NewMessage.builder("x").groupId("A").build()).duplicate());
    assertEquals(1, engine.stats(Q).depth());
  }

  @Test
  void receive_singleGroup_batchHoldsItsMessagesInOrder() {
    create(Q);
    put("A", "a1");
    put("A", "a2");
    put("A", "a3");
    List<Message> got = receive(Q, 10);
    assertEquals(List.of("a1", "a2", "a3"), bodies(got));
    assertTrue(got.stream().allMatch(m -> m.groupId().orElseThrow().equals("A")));
  }

  @Test
  void receive_groupInFlight_blocksTheWholeGroup() {
    create(Q);
    put("A", "a1");
    put("A", "a2");
    put("B", "b1");
    assertEquals(List.of("a1"), bodies(receive(Q, 1)));
    assertEquals(List.of("b1"), bodies(receive(Q, 10)));
    assertNothingToReceive(Q);
  }

  @Test
  void receive_ackOfLastInFlight_unblocksTheGroup() {
    create(Q);
    put("A", "a1");
    put("A", "a2");
    put("A", "a3");
    List<Message> first = receive(Q, 2);
    engine.ack(Q, receipt(first.get(0)));
    assertNothingToReceive(Q);
    engine.ack(Q, receipt(first.get(1)));
    assertEquals(List.of("a3"), receiveBodies(Q));
  }

  @Test
  void receive_batch_spansGroupsOnlyWhenOneGroupCannotFillIt() {
    create(Q);
    put("A", "a1");
    put("B", "b1");
    put("A", "a2");
    put("B", "b2");
    put("C", "c1");
    put("A", "a3");
    assertEquals(List.of("a1", "a2"), bodies(receive(Q, 2)));
    assertEquals(List.of("b1", "b2", "c1"), bodies(receive(Q, 3)));
  }

  @Test
  void receive_batchLargerThanGroup_continuesWithNextBestGroupHead() {
    create(Q);
    put("A", "a1");
    put("B", "b1");
    put("C", "c1");
    put("A", "a2");
    put("B", "b2");
    assertEquals(List.of("a1", "a2", "b1", "b2", "c1"), bodies(receive(Q, 10)));
  }

  @Test
  void receive_groupHeadPriority_decidesWhichGroupGoesFirst() {
    create(Q);
    put("A", "a1");
    engine.send(Q, NewMessage.builder("b1").groupId("B").deduplicationId("b1").priority(5).build());
    put("A", "a2");
    assertEquals(List.of("b1", "a1", "a2"), bodies(receive(Q, 10)));
  }

  @Test
  void receive_filter_seesGroupHeadsOnlyAndTakesFollowersOfAcceptedHead() {
    create(Q);
    sendColored("A", "a1", "red");
    sendColored("A", "a2", "blue");
    sendColored("B", "b1", "blue");
    sendColored("B", "b2", "red");
    List<Message> got =
        engine.receive(Q, ReceiveRequest.builder().maxMessages(10).filter(BLUE).build());
    assertEquals(List.of("b1", "b2"), bodies(got), "a2 is blue but not a group head");
    assertEquals(List.of("a1", "a2"), receiveBodies(Q));
  }

  @Test
  void receive_releasedMessage_keepsItsPlaceAtTheHead() {
    create(Q);
    put("A", "a1");
    put("A", "a2");
    Message a1 = receiveOne(Q);
    engine.release(Q, receipt(a1));
    Message again = receiveOne(Q);
    assertEquals(a1.id(), again.id());
    assertEquals(2, again.receiveCount());
  }

  @Test
  void receive_expiredLease_keepsItsPlaceAtTheHead() {
    create(Q, config().visibilityTimeout(seconds(10)));
    put("A", "a1");
    put("A", "a2");
    put("A", "a3");
    assertEquals(List.of("a1", "a2"), bodies(receive(Q, 2)));
    clock.advanceSeconds(10);
    assertEquals(List.of("a1", "a2", "a3"), receiveBodies(Q));
  }

  @Test
  void receive_partOfBatchReleased_groupReopensUpToItsFirstInFlight() {
    create(Q);
    put("A", "a1");
    put("A", "a2");
    put("A", "a3");
    List<Message> batch = receive(Q, 2);
    engine.release(Q, receipt(batch.get(0)));
    assertEquals(List.of("a1"), bodies(receive(Q, 10)), "a2 is still in flight: a1 only");
    assertNothingToReceive(Q);
    engine.ack(Q, receipt(batch.get(1)));
    assertNothingToReceive(Q); // a1 is in flight again
  }

  @Test
  void release_withDelay_blocksOnlyItsGroup() {
    create(Q);
    put("A", "a1");
    put("A", "a2");
    put("B", "b1");
    Message a1 = receiveOne(Q);
    engine.release(Q, receipt(a1), seconds(5), false);
    assertEquals(List.of("b1"), receiveBodies(Q));
    clock.advanceSeconds(5);
    assertEquals(List.of("a1", "a2"), receiveBodies(Q));
  }

  @Test
  void touch_groupedQueue_conflict() {
    create(Q);
    put("A", "a1");
    String id = browseAll(Q).get(0).id();
    assertRefusedUnchanged(Q, ErrorCode.CONFLICT, () -> engine.touch(Q, id), Q);
  }

  @Test
  void receiveWait_ackUnblockingGroup_wakesWaiter() throws Exception {
    create(Q);
    put("A", "a1");
    put("A", "a2");
    Message a1 = receiveOne(Q);
    Future<List<Message>> f = blockedReceive(Q, waiting(seconds(20)));
    engine.ack(Q, receipt(a1));
    assertEquals(List.of("a2"), bodies(result(f)));
  }

  @Test
  void deadLetter_receiveLimit_keepsGroupOrderInDeadLetterQueueAndBack() {
    create("dlq.fifo");
    create(Q, config().visibilityTimeout(seconds(10)).deadLetter("dlq.fifo", 1));
    put("A", "a1");
    put("A", "a2");
    put("A", "a3");
    assertEquals(3, receive(Q, 10).size());
    clock.advanceSeconds(10);
    assertEquals(0, engine.stats(Q).depth());
    assertEquals(List.of("a1", "a2", "a3"), bodies(browseAll("dlq.fifo")));
    engine.startRedrive("dlq.fifo", RedriveRequest.toSources());
    assertEquals(List.of("a1", "a2", "a3"), receiveBodies(Q));
  }

  @Test
  void deadLetterById_groupHead_nextMessageBecomesHead() {
    create("dlq.fifo");
    create(Q, config().deadLetter("dlq.fifo", 5));
    put("A", "a1");
    put("A", "a2");
    engine.deadLetterById(Q, browseAll(Q).get(0).id());
    assertEquals(List.of("a2"), receiveBodies(Q));
    Message dead = receiveOne("dlq.fifo");
    assertEquals("a1", dead.body());
    assertEquals("A", dead.groupId().orElseThrow());
  }

  @Test
  void deadLetter_inFlightHead_unblocksGroup() {
    create("dlq.fifo");
    create(Q, config().deadLetter("dlq.fifo", 5));
    put("A", "a1");
    put("A", "a2");
    Message a1 = receiveOne(Q);
    engine.deadLetter(Q, receipt(a1));
    assertEquals(List.of("a2"), receiveBodies(Q));
  }

  @Test
  void remove_inFlightMessage_unblocksGroup() {
    create(Q);
    put("A", "a1");
    put("A", "a2");
    Message a1 = receiveOne(Q);
    engine.remove(Q, a1.id());
    assertEquals(List.of("a2"), receiveBodies(Q));
  }

  // ---- a group handed back (visibility 0, lease end), several groups interleaved --------------

  /** Sends {@code perGroup} messages to each group, interleaved: a1 b1 c1 a2 b2 c2 ... */
  private void interleave(int perGroup, String... groups) {
    for (int i = 1; i <= perGroup; i++) {
      for (String g : groups) {
        put(g, g.toLowerCase(java.util.Locale.ROOT) + i);
      }
    }
  }

  @Test
  void extendToZero_wholeBatch_groupAvailableAtOnceHeadFirst() {
    create(Q);
    interleave(4, "A", "B", "C");
    List<Message> first = receive(Q, 3);
    assertEquals(List.of("a1", "a2", "a3"), bodies(first));
    assertEquals(List.of("b1", "b2", "b3"), bodies(receive(Q, 3)));
    for (Message m : first) {
      engine.extend(Q, receipt(m), java.time.Duration.ZERO);
    }
    // C was never received: it goes before A, handed back, which comes whole from its head
    assertEquals(List.of("c1", "c2", "c3", "c4", "a1", "a2", "a3", "a4"), bodies(receive(Q, 10)));
  }

  @Test
  void extendToZero_headOnly_groupReopensUpToItsFirstInFlight() {
    create(Q);
    put("A", "a1");
    put("A", "a2");
    put("B", "b1");
    List<Message> batch = receive(Q, 2);
    assertEquals(List.of("a1", "a2"), bodies(batch));
    engine.extend(Q, receipt(batch.get(0)), java.time.Duration.ZERO);
    assertEquals(List.of("b1", "a1"), bodies(receive(Q, 3)), "a2 is still in flight");
  }

  @Test
  void leaseEnd_middleOfBatchExtended_firstServedAgainNotTheOneBehind() {
    create(Q, config().visibilityTimeout(seconds(10)));
    put("A", "a1");
    put("A", "a2");
    put("A", "a3");
    List<Message> batch = receive(Q, 3);
    engine.extend(Q, receipt(batch.get(1)), seconds(30));
    clock.advanceSeconds(10);
    assertEquals(List.of("a1"), bodies(receive(Q, 10)), "a3 waits behind a2, still in flight");
  }

  @Test
  void receive_groupsNeverReceivedGoBeforeGroupsHandedBack() {
    create(Q);
    put("g1", "g1-m1");
    put("g2", "g2-m1");
    put("g2", "g2-m2");
    put("g3", "g3-m1");
    put("g1", "g1-m2");
    assertEquals(List.of("g1-m1", "g1-m2", "g2-m1"), bodies(engine.receive(Q, handBackRequest(3))));
    assertEquals(
        List.of("g3-m1", "g1-m1", "g1-m2", "g2-m1", "g2-m2"),
        bodies(engine.receive(Q, handBackRequest(10))));
  }

  @Test
  void receive_groupHandedBack_waitsBehindGroupsSentBeforeItsReceiveOnly() {
    create(Q);
    put("A", "a1");
    clock.advanceSeconds(1);
    put("B", "b1");
    clock.advanceSeconds(1);
    Message a1 = receiveOne(Q);
    clock.advanceSeconds(1);
    put("C", "c1");
    engine.release(Q, receipt(a1));
    assertEquals(List.of("b1", "a1", "c1"), bodies(receive(Q, 10)));
  }

  private static ReceiveRequest handBackRequest(int max) {
    return ReceiveRequest.builder()
        .maxMessages(max)
        .visibilityTimeout(java.time.Duration.ZERO)
        .build();
  }

  @Test
  void leaseEnd_severalGroups_eachHeadDeliveredAgainFirst() {
    create(Q, config().visibilityTimeout(seconds(10)));
    interleave(3, "A", "B", "C");
    assertEquals(List.of("a1", "a2"), bodies(receive(Q, 2)));
    assertEquals(List.of("b1"), bodies(receive(Q, 1)));
    clock.advanceSeconds(5);
    assertEquals(List.of("c1", "c2", "c3"), bodies(receive(Q, 3)));
    clock.advanceSeconds(5);
    // A's and B's leases ended at once: both groups are back, each from its head.
    assertEquals(List.of("a1", "a2", "a3", "b1", "b2", "b3"), receiveBodies(Q));
  }

  @Test
  void extendToZero_parallelConsumers_eachGroupFromItsHeadInOrderOnce() throws Exception {
    create(Q);
    String[] groups = {"A", "B", "C", "D", "E", "F"};
    interleave(6, groups);
    // Every consumer takes a batch and hands it back at once, several rounds, in parallel.
    for (int round = 0; round < 3; round++) {
      List<Future<List<Message>>> batches = new java.util.ArrayList<>();
      for (int c = 0; c < 4; c++) {
        batches.add(receiveAsync(Q, ReceiveRequest.max(4)));
      }
      java.util.Set<String> seen = new java.util.HashSet<>();
      List<Message> all = new java.util.ArrayList<>();
      for (Future<List<Message>> f : batches) {
        List<Message> batch =
            f.get(REAL_TIME_LIMIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        checkRunsFromHeads(batch, 1);
        for (Message m : batch) {
          assertTrue(seen.add(m.body()), "delivered to two consumers at once: " + m.body());
        }
        all.addAll(batch);
      }
      assertEquals(16, all.size(), "four batches of four from four of the six groups");
      for (Message m : all) {
        engine.extend(Q, receipt(m), java.time.Duration.ZERO);
      }
    }
    // Acking each batch now: groups go on from where they stopped, in order, never skipping.
    java.util.Map<String, Integer> acked = new java.util.HashMap<>();
    List<Message> batch;
    while (!(batch = receive(Q, 4)).isEmpty()) {
      for (Message m : batch) {
        String g = m.groupId().orElseThrow();
        int n = acked.merge(g, 1, Integer::sum);
        assertEquals(g.toLowerCase(java.util.Locale.ROOT) + n, m.body());
      }
      ackAll(Q, batch);
    }
    assertEquals(6 * groups.length, acked.values().stream().mapToInt(Integer::intValue).sum());
  }

  // ---- an ack after the lease ended ----------------------------------------------------------

  @Test
  void ack_afterLeaseRanOut_messageNotInFlightAndKept() {
    create(Q, config().visibilityTimeout(seconds(1)));
    put("A", "a1");
    Message a1 = receiveOne(Q);
    clock.advanceSeconds(1);
    assertRefusedUnchanged(
        Q, ErrorCode.MESSAGE_NOT_IN_FLIGHT, () -> engine.ack(Q, receipt(a1)), a1.id());
    assertEquals(List.of("a1"), receiveBodies(Q));
  }

  @Test
  void ack_afterHandedBackByExtendToZero_messageNotInFlightAndKept() {
    create(Q);
    put("A", "a1");
    Message a1 = receiveOne(Q);
    engine.extend(Q, receipt(a1), java.time.Duration.ZERO);
    assertRefusedUnchanged(
        Q, ErrorCode.MESSAGE_NOT_IN_FLIGHT, () -> engine.ack(Q, receipt(a1)), a1.id());
  }

  @Test
  void ackAll_oneLeaseRanOut_onlyThatOneRefused() {
    create(Q, config().visibilityTimeout(seconds(10)));
    put("A", "a1");
    put("B", "b1");
    Message a1 = receiveOne(Q);
    clock.advanceSeconds(5);
    Message b1 = receiveOne(Q);
    clock.advanceSeconds(5); // a1's lease ended, b1's runs
    List<java.util.Optional<io.switchboard.queue.QueueException>> results =
        engine.ackAll(Q, List.of(receipt(a1), receipt(b1)));
    assertEquals(ErrorCode.MESSAGE_NOT_IN_FLIGHT, results.get(0).orElseThrow().code());
    assertTrue(results.get(1).isEmpty());
    assertEquals(List.of("a1"), bodies(browseAll(Q)));
  }

  @Test
  void ack_runningLease_deletes() {
    create(Q, config().visibilityTimeout(seconds(10)));
    put("A", "a1");
    Message a1 = receiveOne(Q);
    clock.advanceSeconds(9);
    engine.ack(Q, receipt(a1));
    assertEquals(0, engine.stats(Q).depth());
  }

  /** Each group's messages in a batch are consecutive, from number {@code head} on. */
  private static void checkRunsFromHeads(List<Message> batch, int head) {
    java.util.Map<String, Integer> next = new java.util.HashMap<>();
    for (Message m : batch) {
      String g = m.groupId().orElseThrow();
      int n = next.merge(g, head, (a, b) -> a + 1);
      assertEquals(g.toLowerCase(java.util.Locale.ROOT) + n, m.body(), "batch " + bodies(batch));
    }
  }
}
