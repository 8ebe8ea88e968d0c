package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regression: a grouped queue kept every group id it had ever seen (an intern map never pruned), so
 * a FIFO queue used the SQS way, one group per order, grew without bound although it was empty
 * again. A group with no message left must cost nothing, however its last message left: acked,
 * failed, expired, removed, dead-lettered, shed, purged, or moved by a redrive. The attribute names
 * and values the queue shares among its messages are forgotten the same way.
 */
class GroupIdsKeptForeverTest {

  private ManualClock clock;
  private MemoryQueueEngine engine;

  @BeforeEach
  void open() {
    clock = ManualClock.create();
    engine = (MemoryQueueEngine) QueueEngine.builder().clock(clock).build();
    engine.createQueue("dlq.fifo", QueueConfig.defaults());
  }

  @AfterEach
  void close() {
    engine.close();
  }

  private LocalQueue queue(String name) {
    return engine.require(name);
  }

  private void create(String name, QueueConfig.Builder config) {
    engine.createQueue(name, config.build());
  }

  /** Sends one message per group, {@code groups} distinct groups, each with attributes. */
  private void sendDistinctGroups(String queue, int groups) {
    for (int i = 0; i < groups; i += 10) {
      List<NewMessage> batch = new ArrayList<>();
      for (int j = i; j < Math.min(groups, i + 10); j++) {
        batch.add(
            NewMessage.builder("order " + j)
                .groupId("order-" + j)
                .deduplicationId("d-" + j)
                .attribute("region", "eu")
                .attribute("orderId", "o-" + j)
                .build());
      }
      engine.sendBatch(queue, batch);
    }
  }

  private void assertNothingKept(String queue) {
    LocalQueue q = queue(queue);
    assertEquals(0, engine.stats(queue).available() + engine.stats(queue).inFlight());
    assertEquals(0, q.groupCount(), "groups kept for an empty queue");
    assertEquals(0, q.sharedAttributeCount(), "attribute values kept for an empty queue");
  }

  @Test
  void sixtyThousandDistinctGroupsDrainedByAck_queueKeepsNoGroupAndNoAttribute() {
    create("orders.fifo", QueueConfig.builder());
    int groups = 60_000;
    sendDistinctGroups("orders.fifo", groups);
    assertEquals(groups, queue("orders.fifo").groupCount());
    int acked = 0;
    while (true) {
      List<Message> got = engine.receive("orders.fifo", ReceiveRequest.max(10));
      if (got.isEmpty()) {
        break;
      }
      for (Message m : got) {
        engine.ack("orders.fifo", m.receipt().orElseThrow());
        acked++;
      }
    }
    assertEquals(groups, acked);
    assertNothingKept("orders.fifo");
  }

  private void drainedBy(QueueConfig.Builder config, BiConsumer<String, List<Message>> leave) {
    create("q.fifo", config);
    sendDistinctGroups("q.fifo", 50);
    List<Message> leased = engine.receive("q.fifo", ReceiveRequest.max(20));
    leave.accept("q.fifo", leased);
    assertNothingKept("q.fifo");
  }

  @Test
  void lastMessagesFailed_orRemoved_groupsForgotten() {
    drainedBy(
        QueueConfig.builder(),
        (q, leased) -> {
          leased.forEach(m -> engine.fail(q, m.receipt().orElseThrow()));
          for (Message m : engine.browse(q, BrowseRequest.first(1000)).items()) {
            engine.remove(q, m.id());
          }
        });
  }

  @Test
  void lastMessagesExpired_groupsForgotten() {
    drainedBy(
        QueueConfig.builder().retention(Duration.ofSeconds(60)),
        (q, leased) -> clock.advance(Duration.ofSeconds(61)));
    engine.stats("q.fifo"); // an operation fires the timers
    assertNothingKept("q.fifo");
  }

  @Test
  void lastMessagesDeadLettered_groupsForgottenInSourceAndInTargetOnceDrained() {
    drainedBy(
        QueueConfig.builder().deadLetter("dlq.fifo", 1),
        (q, leased) -> {
          leased.forEach(m -> engine.deadLetter(q, m.receipt().orElseThrow()));
          for (Message m : engine.browse(q, BrowseRequest.first(1000)).items()) {
            engine.deadLetterById(q, m.id());
          }
        });
    assertEquals(50, queue("dlq.fifo").groupCount());
    assertEquals(50, engine.purge("dlq.fifo"));
    assertNothingKept("dlq.fifo");
  }

  @Test
  void lastMessagesPurged_groupsForgotten() {
    drainedBy(QueueConfig.builder(), (q, leased) -> engine.purge(q));
  }

  @Test
  void messagesShed_groupsOfShedMessagesForgotten() {
    create("small.fifo", QueueConfig.builder().maxDepth(10, Overflow.DROP_OLDEST));
    sendDistinctGroups("small.fifo", 50);
    assertEquals(10, queue("small.fifo").groupCount());
    // "region", "eu", "orderId" and the ten order ids left
    assertEquals(13, queue("small.fifo").sharedAttributeCount());
    engine.purge("small.fifo");
    assertNothingKept("small.fifo");
  }

  @Test
  void attributesUpdated_oldValuesForgotten() {
    create("std", QueueConfig.builder());
    engine.send("std", NewMessage.builder("x").attribute("colour", "red").build());
    String id = engine.browse("std", BrowseRequest.first(1)).items().get(0).id();
    engine.update(
        "std",
        id,
        MessageUpdate.attributes(java.util.Map.of("colour", AttributeValue.string("blue"))));
    assertEquals(2, queue("std").sharedAttributeCount()); // "colour", "blue"
    engine.remove("std", id);
    assertNothingKept("std");
  }
}
