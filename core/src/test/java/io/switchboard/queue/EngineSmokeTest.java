package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Quick end-to-end checks of the in-memory engine; the full contract lives in the tck module. */
class EngineSmokeTest {

  private final ManualClock clock = ManualClock.create();
  private final QueueEngine engine = QueueEngine.builder().clock(clock).build();

  @Test
  void sendReceiveAck_roundTrip() {
    engine.createQueue("q", QueueConfig.defaults());
    SendResult sent = engine.send("q", NewMessage.builder("hello").attribute("lang", "es").build());
    List<Message> got = engine.receive("q", ReceiveRequest.one());
    assertEquals(1, got.size());
    assertEquals(sent.id(), got.get(0).id());
    assertEquals("hello", got.get(0).body());
    assertEquals(AttributeValue.string("es"), got.get(0).attributes().get("lang"));
    assertEquals(List.of(), engine.receive("q", ReceiveRequest.one()));
    engine.ack("q", got.get(0).receipt().orElseThrow());
    assertEquals(0, engine.stats("q").depth());
  }

  @Test
  void visibilityTimeout_returnsMessageToItsPlace() {
    engine.createQueue(
        "q", QueueConfig.builder().visibilityTimeout(Duration.ofSeconds(10)).build());
    engine.send("q", NewMessage.of("a"));
    engine.send("q", NewMessage.of("b"));
    Message a = engine.receive("q", ReceiveRequest.one()).get(0);
    clock.advanceSeconds(10);
    Message again = engine.receive("q", ReceiveRequest.one()).get(0);
    assertEquals(a.id(), again.id());
    assertEquals(2, again.receiveCount());
    QueueException stale =
        assertThrows(QueueException.class, () -> engine.ack("q", a.receipt().orElseThrow()));
    assertEquals(ErrorCode.RECEIPT_STALE, stale.code());
  }

  @Test
  void longPoll_isWokenBySend() throws Exception {
    engine.createQueue("q", QueueConfig.defaults());
    CompletableFuture<List<Message>> waiting =
        CompletableFuture.supplyAsync(
            () ->
                engine.receive(
                    "q", ReceiveRequest.builder().waitTime(Duration.ofSeconds(20)).build()));
    while (engine.stats("q").waitingReceivers() == 0) {
      Thread.onSpinWait();
    }
    engine.send("q", NewMessage.of("x"));
    assertEquals("x", waiting.get(5, TimeUnit.SECONDS).get(0).body());
  }

  @Test
  void longPoll_endsAtDeadlineOfTheClock() throws Exception {
    engine.createQueue("q", QueueConfig.defaults());
    CompletableFuture<List<Message>> waiting =
        CompletableFuture.supplyAsync(
            () ->
                engine.receive(
                    "q", ReceiveRequest.builder().waitTime(Duration.ofSeconds(5)).build()));
    while (engine.stats("q").waitingReceivers() == 0) {
      Thread.onSpinWait();
    }
    clock.advanceSeconds(5);
    assertEquals(List.of(), waiting.get(5, TimeUnit.SECONDS));
  }

  @Test
  void groupedBatches_followSeed003() {
    engine.createQueue(
        "auction.fifo", QueueConfig.builder().contentBasedDeduplication(true).build());
    List<NewMessage> batch = new ArrayList<>();
    for (int i = 1; i <= 11; i++) {
      batch.add(NewMessage.builder("A" + i).groupId("A").build());
      batch.add(NewMessage.builder("B" + i).groupId("B").build());
    }
    engine.sendBatch("auction.fifo", batch);
    List<Message> one = engine.receive("auction.fifo", ReceiveRequest.max(10));
    List<Message> two = engine.receive("auction.fifo", ReceiveRequest.max(10));
    assertEquals(bodies("A", 1, 10), one.stream().map(Message::body).toList());
    assertEquals(bodies("B", 1, 10), two.stream().map(Message::body).toList());
    one.forEach(m -> engine.ack("auction.fifo", m.receipt().orElseThrow()));
    List<Message> three = engine.receive("auction.fifo", ReceiveRequest.max(10));
    assertEquals(List.of("A11"), three.stream().map(Message::body).toList());
    assertTrue(engine.receive("auction.fifo", ReceiveRequest.max(10)).isEmpty());
    two.forEach(m -> engine.ack("auction.fifo", m.receipt().orElseThrow()));
    assertEquals(
        List.of("B11"),
        engine.receive("auction.fifo", ReceiveRequest.max(10)).stream()
            .map(Message::body)
            .toList());
  }

  @Test
  void deadLetter_afterMaxReceives_andRestore() {
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue(
        "q",
        QueueConfig.builder()
            .visibilityTimeout(Duration.ofSeconds(1))
            .deadLetter("dlq", 2)
            .build());
    String id = engine.send("q", NewMessage.of("x")).id();
    engine.receive("q", ReceiveRequest.one());
    clock.advanceSeconds(1);
    engine.receive("q", ReceiveRequest.one());
    clock.advanceSeconds(1);
    assertEquals(0, engine.stats("q").depth());
    assertEquals(MessageState.AVAILABLE, engine.get("dlq", id).state());
    engine.restore("dlq", id);
    assertEquals(0, engine.get("q", id).receiveCount());
  }

  private static List<String> bodies(String group, int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      out.add(group + i);
    }
    return out;
  }
}
