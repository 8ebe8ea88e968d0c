package io.switchboard.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Order;
import io.switchboard.queue.Overflow;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueInfo;
import io.switchboard.queue.QueueStats;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The typed client against a real server: every engine operation, and errors as exceptions. */
class SwitchboardClientTest {

  private static SwitchboardServer server;
  private static SwitchboardClient client;

  @BeforeAll
  static void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    client = SwitchboardClient.create(server.uri());
  }

  @AfterAll
  static void stop() {
    client.close();
    server.stop();
  }

  @Test
  void queues_createReadUpdateListDelete() {
    QueueConfig config =
        QueueConfig.builder()
            .order(Order.LIFO)
            .visibilityTimeout(Duration.ofSeconds(45))
            .maxDepth(100, Overflow.DROP_OLDEST)
            .indexedAttributes("lang")
            .build();
    QueueInfo created = client.createQueue("c-life", config);
    assertEquals(config, created.config());
    assertEquals(config, client.queue("c-life").config());
    QueueConfig unbounded = config.toBuilder().unbounded().order(Order.FIFO).build();
    assertEquals(unbounded, client.updateQueue("c-life", unbounded).config());
    assertTrue(client.listQueues("c-li").stream().anyMatch(q -> q.name().equals("c-life")));
    client.deleteQueue("c-life");
    SwitchboardException e = assertThrows(SwitchboardException.class, () -> client.queue("c-life"));
    assertEquals(ErrorCode.QUEUE_NOT_FOUND, e.code());
    assertEquals(404, e.status());
    assertEquals("QUEUE_NOT_FOUND", e.wireCode());
  }

  @Test
  void sendReceiveAck_withTypedAttributesAndSelector() {
    client.createQueue("c-agents", QueueConfig.defaults());
    Map<String, AttributeValue> attributes =
        Map.of(
            "language", AttributeValue.string("es"),
            "level", AttributeValue.number("2.50"),
            "skills", AttributeValue.stringList("billing", "vip"),
            "blob", AttributeValue.binary(new byte[] {1, 2, 3}),
            "count", new AttributeValue.NumberValue("Number.int", "7"));
    client.send("c-agents", NewMessage.builder("other").attribute("language", "fr").build());
    String id =
        client
            .send("c-agents", NewMessage.builder("luis").attributes(attributes).priority(3).build())
            .id();
    List<Message> got =
        client.receive(
            "c-agents",
            ReceiveRequest.builder().selector("language = 'es' AND skills HAS 'vip'").build());
    assertEquals(1, got.size());
    Message m = got.get(0);
    assertEquals(id, m.id());
    assertEquals(3, m.priority());
    assertEquals(MessageState.IN_FLIGHT, m.state());
    assertEquals(attributes, m.attributes());
    client.ack("c-agents", m.receipt().orElseThrow());
    assertEquals(1, client.stats("c-agents").counters().acked());
  }

  @Test
  void batchBrowseUpdateTouchRemovePurge() {
    client.createQueue("c-prio", QueueConfig.defaults());
    List<String> ids =
        client
            .sendBatch(
                "c-prio", List.of(NewMessage.of("A"), NewMessage.of("B"), NewMessage.of("C")))
            .stream()
            .map(r -> r.id())
            .toList();
    assertEquals(10, client.update("c-prio", ids.get(2), MessageUpdate.priority(10)).priority());
    client.touch("c-prio", ids.get(0));
    Page first = client.browse("c-prio", BrowseRequest.first(2));
    assertEquals(List.of("C", "B"), first.items().stream().map(Message::body).toList());
    Page second =
        client.browse("c-prio", BrowseRequest.first(2).after(first.nextCursor().orElseThrow()));
    assertEquals(List.of("A"), second.items().stream().map(Message::body).toList());
    assertFalse(second.nextCursor().isPresent());
    client.remove("c-prio", ids.get(1));
    assertEquals(
        ErrorCode.MESSAGE_NOT_FOUND,
        assertThrows(SwitchboardException.class, () -> client.get("c-prio", ids.get(1))).code());
    assertEquals(2, client.purge("c-prio"));
  }

  @Test
  void leases_releaseExtendFailDeadLetterAndRedrive() {
    client.createQueue("c-dlq", QueueConfig.defaults());
    client.createQueue("c-work", QueueConfig.builder().deadLetter("c-dlq", 5).build());
    client.send("c-work", NewMessage.of("job"));
    Message m = client.receive("c-work", ReceiveRequest.one()).get(0);
    Message extended = client.extend("c-work", m.receipt().orElseThrow(), Duration.ofSeconds(120));
    assertTrue(extended.visibleAt().isPresent());
    client.release("c-work", m.receipt().orElseThrow(), Duration.ZERO, true);
    Message again = client.receive("c-work", ReceiveRequest.one()).get(0);
    SwitchboardException stale =
        assertThrows(
            SwitchboardException.class, () -> client.ack("c-work", m.receipt().orElseThrow()));
    assertEquals(409, stale.status());
    assertEquals(ErrorCode.RECEIPT_STALE, stale.code());

    client.deadLetter("c-work", again.receipt().orElseThrow());
    assertEquals(1, client.stats("c-dlq").available());
    Message restored = client.restore("c-dlq", again.id());
    assertEquals("job", restored.body());

    Message third = client.receive("c-work", ReceiveRequest.one()).get(0);
    client.fail("c-work", third.receipt().orElseThrow());
    assertEquals(1, client.stats("c-work").counters().failed());

    String id = client.send("c-work", NewMessage.of("later")).id();
    client.deadLetterById("c-work", id);
    RedriveTask task = client.startRedrive("c-dlq", RedriveRequest.toSources().maxPerSecond(1));
    assertEquals(task.id(), client.redriveTasks("c-dlq").get(0).id());
    RedriveTask done = client.cancelRedrive(task.id());
    assertTrue(
        done.status() == RedriveTask.Status.CANCELLED
            || done.status() == RedriveTask.Status.COMPLETED);
  }

  @Test
  void ackBatch_returnsOneResultPerReceipt_andRefusesBadBatches() {
    client.createQueue("c-acks", QueueConfig.defaults());
    client.sendBatch(
        "c-acks", List.of(NewMessage.builder("a").build(), NewMessage.builder("b").build()));
    List<String> receipts =
        client.receive("c-acks", ReceiveRequest.builder().maxMessages(2).build()).stream()
            .map(m -> m.receipt().orElseThrow())
            .toList();
    List<AckResult> results =
        client.ackBatch("c-acks", List.of(receipts.get(0), "garbage", receipts.get(1)));
    assertEquals(3, results.size());
    assertTrue(results.get(0).acked());
    assertFalse(results.get(1).acked());
    assertEquals("garbage", results.get(1).receipt());
    assertEquals(java.util.Optional.of(ErrorCode.RECEIPT_INVALID), results.get(1).engineCode());
    assertTrue(results.get(2).acked());
    assertEquals(0, client.stats("c-acks").depth());

    SwitchboardException empty =
        assertThrows(SwitchboardException.class, () -> client.ackBatch("c-acks", List.of()));
    assertEquals(400, empty.status());
    SwitchboardException tooMany =
        assertThrows(
            SwitchboardException.class,
            () -> client.ackBatch("c-acks", java.util.Collections.nCopies(101, "r")));
    assertEquals(ErrorCode.BATCH_TOO_LARGE, tooMany.code());
    SwitchboardException unknown =
        assertThrows(SwitchboardException.class, () -> client.ackBatch("c-none", List.of("r")));
    assertEquals(ErrorCode.QUEUE_NOT_FOUND, unknown.code());
  }

  @Test
  void receive_longPollOutlastsTheRequestTimeout() throws Exception {
    client.createQueue("c-poll", QueueConfig.defaults());
    try (SwitchboardClient impatient =
        SwitchboardClient.builder()
            .baseUri(server.uri())
            .requestTimeout(Duration.ofSeconds(1))
            .build()) {
      CompletableFuture<List<Message>> waiting =
          CompletableFuture.supplyAsync(
              () ->
                  impatient.receive(
                      "c-poll", ReceiveRequest.builder().waitTime(Duration.ofSeconds(3)).build()));
      // Nothing is sent: the wait runs out on the server (3 s), past the 1 s request timeout.
      assertEquals(List.of(), waiting.get(15, TimeUnit.SECONDS));
      QueueStats stats = impatient.stats("c-poll");
      assertEquals(0, stats.waitingReceivers());
    }
  }

  @Test
  void unreachableServer_isUnavailableWithStatusZero() {
    try (SwitchboardClient nowhere =
        SwitchboardClient.builder()
            .baseUri(URI.create("http://127.0.0.1:1"))
            .connectTimeout(Duration.ofSeconds(2))
            .build()) {
      SwitchboardException e =
          assertThrows(SwitchboardException.class, () -> nowhere.listQueues(""));
      assertEquals(ErrorCode.UNAVAILABLE, e.code());
      assertEquals(0, e.status());
      assertEquals("UNREACHABLE", e.wireCode());
      assertFalse(nowhere.ready());
    }
    assertTrue(client.ready());
  }

  @Test
  void lambdaFilter_cannotTravel_andIsRefusedBeforeSending() {
    client.createQueue("c-sel", QueueConfig.defaults());
    assertThrows(
        IllegalArgumentException.class,
        () -> client.browse("c-sel", BrowseRequest.first(1).filter(m -> true)));
  }

  @Test
  void lambdaReceiveFilter_refusedBeforeSending_namingWhatIsAllowed() {
    client.createQueue("c-lambda", QueueConfig.defaults());
    client.send("c-lambda", NewMessage.of("x"));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                client.receive(
                    "c-lambda", ReceiveRequest.builder().filter(m -> m.priority() < 5).build()));
    assertTrue(e.getMessage().contains("selector"), e.getMessage());
    assertEquals(0, client.stats("c-lambda").inFlight());
    assertEquals(0, client.stats("c-lambda").counters().received());
  }

  @Test
  void subSecondDuration_refusedBeforeSending() {
    client.createQueue("c-subsecond", QueueConfig.defaults());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                client.send(
                    "c-subsecond", NewMessage.builder("x").delay(Duration.ofMillis(1500)).build()));
    assertTrue(e.getMessage().contains("delay") && e.getMessage().contains("1500"), e.getMessage());
    assertEquals(0, client.stats("c-subsecond").counters().sent());
  }

  @Test
  void subSecondQueueConfig_refusedNotTruncated() {
    QueueConfig config = QueueConfig.builder().visibilityTimeout(Duration.ofMillis(1500)).build();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> client.createQueue("c-truncated", config));
    assertTrue(e.getMessage().contains("visibilityTimeout"), e.getMessage());
    assertEquals(
        ErrorCode.QUEUE_NOT_FOUND,
        assertThrows(SwitchboardException.class, () -> client.queue("c-truncated")).code());
  }

  @Test
  void queueMetadata_travels_createUpdateRead() {
    QueueConfig config = QueueConfig.builder().metadata(Map.of("team", "blue")).build();
    assertEquals(config, client.createQueue("c-meta", config).config());
    QueueConfig next = config.toBuilder().metadata(Map.of("team", "green", "y", "")).build();
    assertEquals(next, client.updateQueue("c-meta", next).config());
    assertEquals(next.metadata(), client.queue("c-meta").config().metadata());
  }

  @Test
  void close_wakesBlockedReceiveEmpty_andRefusesLaterCalls() throws Exception {
    client.createQueue("c-close", QueueConfig.defaults());
    SwitchboardClient closing = SwitchboardClient.create(server.uri());
    CompletableFuture<List<Message>> blocked =
        CompletableFuture.supplyAsync(
            () ->
                closing.receive(
                    "c-close", ReceiveRequest.builder().waitTime(Duration.ofSeconds(20)).build()));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (client.stats("c-close").waitingReceivers() != 1 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    closing.close();
    assertEquals(List.of(), blocked.get(5, TimeUnit.SECONDS));
    SwitchboardException e =
        assertThrows(SwitchboardException.class, () -> closing.stats("c-close"));
    assertEquals(ErrorCode.UNAVAILABLE, e.code());
    assertEquals("CLIENT_CLOSED", e.wireCode());
  }
}
