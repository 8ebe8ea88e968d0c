package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksJournalTest {

  @TempDir Path dir;
  private final ManualClock clock = ManualClock.create();
  private QueueEngine engine;

  private QueueEngine open() {
    engine =
        QueueEngine.builder()
            .clock(clock)
            .journal(RocksJournal.open(dir, Durability.sync()))
            .build();
    return engine;
  }

  private QueueEngine restart() {
    engine.close();
    return open();
  }

  @AfterEach
  void closeEngine() {
    if (engine != null) {
      engine.close();
    }
  }

  @Test
  void restart_keepsQueuesMessagesOrderAndAttributes() {
    open();
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue(
        "tasks",
        QueueConfig.builder()
            .order(Order.LIFO)
            .deadLetter("dlq", 3)
            .indexedAttributes("lang")
            .historyRetention(Duration.ofHours(1))
            .build());
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      ids.add(
          engine
              .send(
                  "tasks",
                  NewMessage.builder("body-" + i)
                      .priority(i % 3)
                      .attribute("lang", i % 2 == 0 ? "es" : "en")
                      .attribute("n", AttributeValue.number(i))
                      .attribute("skills", AttributeValue.stringList("a", "b"))
                      .build())
              .id());
    }
    Message leased = engine.receive("tasks", ReceiveRequest.one()).get(0);
    Message acked = engine.receive("tasks", ReceiveRequest.one()).get(0);
    engine.ack("tasks", acked.receipt().orElseThrow());
    List<String> before =
        bodies(engine.browse("tasks", BrowseRequest.first(100).includeInvisible(true)).items());

    restart();

    assertEquals(
        before,
        bodies(engine.browse("tasks", BrowseRequest.first(100).includeInvisible(true)).items()));
    assertEquals(
        QueueConfig.builder()
            .order(Order.LIFO)
            .deadLetter("dlq", 3)
            .indexedAttributes("lang")
            .historyRetention(Duration.ofHours(1))
            .build(),
        engine.queue("tasks").config());
    assertEquals(MessageState.IN_FLIGHT, engine.get("tasks", leased.id()).state());
    assertEquals(MessageState.COMPLETED, engine.get("tasks", acked.id()).state());
    assertEquals(
        AttributeValue.stringList("a", "b"),
        engine.get("tasks", ids.get(4)).attributes().get("skills"));
    List<Message> spanish =
        engine.receive(
            "tasks", ReceiveRequest.builder().maxMessages(10).selector("lang = 'es'").build());
    assertTrue(
        spanish.stream()
            .allMatch(m -> m.attributes().get("lang").equals(AttributeValue.string("es"))));
    engine.ack("tasks", leased.receipt().orElseThrow());
    assertEquals(MessageState.COMPLETED, engine.get("tasks", leased.id()).state());
  }

  @Test
  void restart_resumesARateLimitedRedrive() {
    open();
    engine.createQueue("src", QueueConfig.defaults());
    engine.createQueue("dlq", QueueConfig.defaults());
    for (int i = 0; i < 6; i++) {
      engine.send("dlq", NewMessage.of("m" + i));
    }
    RedriveTask task = engine.startRedrive("dlq", RedriveRequest.to("src").maxPerSecond(2));
    assertEquals(2, engine.stats("src").depth());
    restart();
    clock.advanceSeconds(1);
    assertEquals(4, engine.stats("src").depth());
    clock.advanceSeconds(1);
    assertEquals(6, engine.stats("src").depth());
    assertEquals(RedriveTask.Status.COMPLETED, engine.redriveTasks("dlq").get(0).status());
    assertEquals(task.id(), engine.redriveTasks("dlq").get(0).id());
  }

  @Test
  void open_secondProcessOnTheSameDirectory_isRefusedClearly() {
    open();
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> RocksJournal.open(dir, Durability.sync()));
    assertTrue(e.getMessage().contains("in use by another Switchboard process"), e.getMessage());
  }

  @Test
  void open_storeOfAnotherFormat_isRefusedClearly() throws Exception {
    try (var db = org.rocksdb.RocksDB.open(dir.toString())) {
      db.put("format".getBytes(), new byte[] {0, 0, 0, 99});
    }
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> RocksJournal.open(dir, Durability.sync()));
    assertTrue(e.getMessage().contains("format 99"), e.getMessage());
  }

  @Test
  void soak_sendAndAck_keepsTheStoreFlat() {
    QueueEngine e =
        QueueEngine.builder()
            .clock(clock)
            .journal(RocksJournal.open(dir, Durability.none()))
            .build();
    engine = e;
    e.createQueue("q", QueueConfig.defaults());
    String body = "x".repeat(100);
    long[] sizes = new long[3];
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 20_000; i++) {
        List<NewMessage> batch = new ArrayList<>();
        for (int j = 0; j < 10; j++) {
          batch.add(NewMessage.of(body));
        }
        e.sendBatch("q", batch);
        for (Message m : e.receive("q", ReceiveRequest.max(10))) {
          e.ack("q", m.receipt().orElseThrow());
        }
      }
      e.close();
      RocksJournal journal = RocksJournal.open(dir, Durability.none());
      journal.compact();
      sizes[round] = journal.sizeOnDisk();
      e = QueueEngine.builder().clock(clock).journal(journal).build();
      engine = e;
    }
    assertEquals(0, e.stats("q").depth());
    assertTrue(
        sizes[2] < sizes[0] * 2 + 1_000_000,
        "store grew from " + sizes[0] + " to " + sizes[2] + " bytes over 400,000 acked messages");
  }

  private static List<String> bodies(List<Message> messages) {
    return messages.stream().map(Message::body).toList();
  }
}
