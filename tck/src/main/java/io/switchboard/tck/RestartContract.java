package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.SendResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * Durable engines: after {@link #restart}, the same observable state — order, priorities, ids,
 * leases and their receipts, group blocks, delays, expiry, the deduplication window, dead letters,
 * history, purges and deletes. Skipped for engines that keep nothing.
 */
public abstract class RestartContract extends EngineContract {

  @Test
  void restart_keepsOrderPrioritiesAndIds() {
    engine.createQueue("q", QueueConfig.builder().order(Order.LIFO).build());
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(
          engine
              .send(
                  "q", NewMessage.builder("m" + i).priority(i % 2).attribute("k", "v" + i).build())
              .id());
    }
    engine = track(restart(engine));
    List<String> bodies = new ArrayList<>();
    for (Message m : engine.receive("q", ReceiveRequest.max(10))) {
      bodies.add(m.body());
    }
    assertEquals(List.of("m3", "m1", "m4", "m2", "m0"), bodies);
    assertEquals(AttributeValue.string("v3"), engine.get("q", ids.get(3)).attributes().get("k"));
  }

  @Test
  void restart_keepsLeasesAndTheirReceipts() {
    engine.createQueue(
        "q", QueueConfig.builder().visibilityTimeout(Duration.ofSeconds(30)).build());
    engine.send("q", NewMessage.of("a"));
    engine.send("q", NewMessage.of("b"));
    Message a = engine.receive("q", ReceiveRequest.one()).get(0);
    engine = track(restart(engine));
    assertEquals("b", engine.receive("q", ReceiveRequest.one()).get(0).body());
    engine.ack("q", a.receipt().orElseThrow());
    clock.advanceSeconds(30);
    assertEquals(
        List.of("b"),
        engine.receive("q", ReceiveRequest.max(10)).stream().map(Message::body).toList());
  }

  @Test
  void restart_expiredLeaseReturnsMessageToItsPlace() {
    engine.createQueue(
        "q", QueueConfig.builder().visibilityTimeout(Duration.ofSeconds(10)).build());
    engine.send("q", NewMessage.of("a"));
    engine.send("q", NewMessage.of("b"));
    engine.receive("q", ReceiveRequest.one());
    engine = track(restart(engine));
    clock.advanceSeconds(10);
    Message again = engine.receive("q", ReceiveRequest.one()).get(0);
    assertEquals("a", again.body());
    assertEquals(2, again.receiveCount());
  }

  @Test
  void restart_keepsGroupBlocksAndDedupWindow() {
    engine.createQueue("g.fifo", QueueConfig.builder().contentBasedDeduplication(true).build());
    engine.send("g.fifo", NewMessage.builder("A1").groupId("A").build());
    engine.send("g.fifo", NewMessage.builder("A2").groupId("A").build());
    engine.send("g.fifo", NewMessage.builder("B1").groupId("B").build());
    Message a1 = engine.receive("g.fifo", ReceiveRequest.one()).get(0);
    engine = track(restart(engine));
    assertEquals(
        List.of("B1"),
        engine.receive("g.fifo", ReceiveRequest.max(10)).stream().map(Message::body).toList());
    SendResult dup = engine.send("g.fifo", NewMessage.builder("A1").groupId("A").build());
    assertTrue(dup.duplicate());
    assertEquals(a1.id(), dup.id(), "a duplicate after a restart names the original message");
    engine.ack("g.fifo", a1.receipt().orElseThrow());
    assertEquals("A2", engine.receive("g.fifo", ReceiveRequest.one()).get(0).body());
  }

  @Test
  void restart_keepsDelaysExpiryDeadLettersAndHistory() {
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue(
        "q",
        QueueConfig.builder()
            .visibilityTimeout(Duration.ofSeconds(1))
            .deadLetter("dlq", 1)
            .historyRetention(Duration.ofHours(1))
            .build());
    engine.send("q", NewMessage.builder("later").delay(Duration.ofSeconds(60)).build());
    engine.send("q", NewMessage.builder("short").timeToLive(Duration.ofSeconds(5)).build());
    String done = engine.send("q", NewMessage.of("done")).id();
    String dead = engine.send("q", NewMessage.of("dead")).id();
    List<Message> got = engine.receive("q", ReceiveRequest.max(10));
    for (Message m : got) {
      if (m.body().equals("done")) {
        engine.ack("q", m.receipt().orElseThrow());
      }
    }
    clock.advanceSeconds(1);
    engine = track(restart(engine));
    assertEquals(MessageState.COMPLETED, engine.get("q", done).state());
    assertEquals(MessageState.AVAILABLE, engine.get("dlq", dead).state());
    assertEquals(
        MessageState.DELAYED,
        engine
            .get(
                "q",
                engine
                    .browse("q", BrowseRequest.first(10).includeInvisible(true))
                    .items()
                    .get(0)
                    .id())
            .state());
    clock.advanceSeconds(5);
    assertEquals(0, engine.receive("q", ReceiveRequest.max(10)).size());
    clock.advanceSeconds(60);
    assertEquals("later", engine.receive("q", ReceiveRequest.one()).get(0).body());
  }

  @Test
  void restart_keepsTheReceiveCountResetByADeadLetterToItself() {
    engine.createQueue(
        "q",
        QueueConfig.builder().visibilityTimeout(Duration.ofSeconds(10)).deadLetter("q", 1).build());
    engine.send("q", NewMessage.of("a"));
    engine.send("q", NewMessage.of("b"));
    engine.receive("q", ReceiveRequest.one());
    clock.advanceSeconds(10);
    assertEquals(2, engine.stats("q").available());
    engine = track(restart(engine));
    Message again = engine.receive("q", ReceiveRequest.one()).get(0);
    assertEquals("a", again.body());
    assertEquals(1, again.receiveCount());
  }

  @Test
  void restart_neverReusesAnId() {
    engine.createQueue("q", QueueConfig.defaults());
    Message first = null;
    for (int i = 0; i < 3; i++) {
      engine.send("q", NewMessage.of("m" + i));
      Message m = engine.receive("q", ReceiveRequest.one()).get(0);
      engine.ack("q", m.receipt().orElseThrow());
      first = first == null ? m : first;
    }
    engine = track(restart(engine));
    String fresh = engine.send("q", NewMessage.of("new")).id();
    Objects.requireNonNull(first, "the first message");
    assertTrue(!fresh.equals(first.id()));
    Message received = engine.receive("q", ReceiveRequest.one()).get(0);
    engine.ack("q", first.receipt().orElseThrow());
    assertEquals(1, engine.stats("q").inFlight(), "an old receipt must not ack the new message");
    engine.ack("q", received.receipt().orElseThrow());
  }

  @Test
  void restart_purgeAndDeleteStayDone() {
    engine.createQueue("q", QueueConfig.defaults());
    engine.createQueue("gone", QueueConfig.defaults());
    engine.send("q", NewMessage.of("x"));
    engine.send("gone", NewMessage.of("y"));
    engine.purge("q");
    engine.deleteQueue("gone");
    engine = track(restart(engine));
    assertEquals(0, engine.stats("q").depth());
    assertEquals(
        ErrorCode.QUEUE_NOT_FOUND,
        assertThrows(QueueException.class, () -> engine.queue("gone")).code());
  }

  @Test
  void restart_purgedDeduplicationIdsStayForgotten() {
    engine.createQueue("q.fifo", QueueConfig.defaults());
    NewMessage m = NewMessage.builder("x").groupId("g").deduplicationId("d").build();
    engine.send("q.fifo", m);
    engine.purge("q.fifo");
    engine = track(restart(engine));
    assertEquals(false, engine.send("q.fifo", m).duplicate());
    assertEquals(1, engine.stats("q.fifo").depth());
  }

  @Test
  void restart_keepsSequenceNumbers() {
    engine.createQueue("q.fifo", QueueConfig.defaults());
    long a =
        engine
            .send("q.fifo", NewMessage.builder("a").groupId("g").deduplicationId("a").build())
            .sequence();
    engine = track(restart(engine));
    long b =
        engine
            .send("q.fifo", NewMessage.builder("b").groupId("g").deduplicationId("b").build())
            .sequence();
    assertTrue(b > a, "a restart continues the sequence");
    List<Message> got = engine.receive("q.fifo", ReceiveRequest.max(10));
    assertEquals(List.of(a, b), got.stream().map(Message::sequence).toList());
  }

  @Test
  void restart_keepsQueueMetadataAndItsUpdates() {
    engine.createQueue(
        "q", QueueConfig.builder().metadata(Map.of("sqs.tag.team", "blue", "x", "1")).build());
    engine.createQueue("plain", QueueConfig.defaults());
    QueueConfig current = engine.queue("q").config();
    engine.updateQueue(
        "q", current.toBuilder().metadata(Map.of("sqs.tag.team", "green", "y", "")).build());
    engine = track(restart(engine));
    assertEquals(Map.of("sqs.tag.team", "green", "y", ""), engine.queue("q").config().metadata());
    assertEquals(Map.of(), engine.queue("plain").config().metadata());
  }
}
