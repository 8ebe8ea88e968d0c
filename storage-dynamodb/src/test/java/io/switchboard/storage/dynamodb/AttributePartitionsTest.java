package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * Filtered receive over attribute partitions (docs/design.md, "Attribute partitions on DynamoDB"):
 * a queue that indexes attributes files each message under its values' partition, so a selector
 * over indexed attributes reads only the partitions it can match, however many messages of other
 * values lie ahead; and a FIFO receive starts after this server's hint, not at the head, past the
 * messages in flight. Counted by the queries sent and the items they read (each billed).
 */
@ExtendWith(Moto.class)
class AttributePartitionsTest {

  /**
   * Counts the queries of message partitions, and the items every query read (filtered or not), the
   * units a user pays.
   */
  private static final class Reads implements ExecutionInterceptor {
    final AtomicInteger queries = new AtomicInteger();
    final AtomicInteger items = new AtomicInteger();

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      if (context.request() instanceof QueryRequest q
          && q.expressionAttributeValues().get(":p").s().startsWith("m#")) {
        queries.incrementAndGet();
      }
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
      if (context.response() instanceof QueryResponse r) {
        items.addAndGet(r.scannedCount());
      }
    }

    void reset() {
      queries.set(0);
      items.set(0);
    }
  }

  private final Reads reads = new Reads();
  private final ManualClock clock = ManualClock.create();
  private final String prefix = Moto.prefix();
  private DynamoDbClient client;
  private QueueEngine engine;

  @BeforeEach
  void open() {
    client = Moto.client(reads);
    engine = engine(32);
  }

  private QueueEngine engine(int maxPartitions) {
    return DynamoQueueEngine.builder()
        .client(client)
        .tablePrefix(prefix)
        .clock(clock)
        .sweepInterval(Duration.ofDays(1))
        .maxAttributePartitions(maxPartitions)
        .build();
  }

  @AfterEach
  void close() {
    engine.close();
    client.close();
  }

  private void agents(String queue, String language, int n) {
    for (int i = 0; i < n; i++) {
      engine.send(
          queue,
          NewMessage.builder(language + " " + i)
              .attribute("language", language)
              .attribute("gender", i % 2 == 0 ? "M" : "F")
              .build());
    }
  }

  private List<String> receive(String queue, String selector, int max) {
    ReceiveRequest.Builder b = ReceiveRequest.builder().maxMessages(max);
    if (selector != null) {
      b.selector(selector);
    }
    return engine.receive(queue, b.build()).stream().map(Message::body).toList();
  }

  private static QueueConfig indexed() {
    return QueueConfig.builder()
        .indexedAttributes("language", "gender")
        .visibilityTimeout(Duration.ofMinutes(5))
        .build();
  }

  @Test
  void filteredReceive_behind500NonMatching_readsOnlyItsPartitions() {
    engine.createQueue("agents", indexed());
    agents("agents", "fr", 500);
    agents("agents", "es", 1);
    reads.reset();
    assertEquals(List.of("es 0"), receive("agents", "language = 'es' AND gender = 'M'", 1));
    // shard 0 (read by every receive, empty here) and the one matching partition
    assertTrue(reads.queries.get() <= 2, "queries of the filtered receive: " + reads.queries);
    assertTrue(reads.items.get() <= 2, "items the filtered receive read: " + reads.items);
    reads.reset();
    assertEquals(List.of(), receive("agents", "language = 'es'", 1));
    assertTrue(reads.items.get() <= 2, "items read finding none: " + reads.items);
    // without a selector over indexed attributes, every partition, oldest first
    assertEquals(List.of("fr 0", "fr 1"), receive("agents", null, 2));
    assertEquals(List.of("fr 2"), receive("agents", "language = 'fr' OR level > 0", 1));
  }

  @Test
  void attributesChanged_moveTheMessageToItsNewPartition_keepingItsIdAndPlace() {
    engine.createQueue("agents", indexed());
    agents("agents", "fr", 3);
    String id =
        engine.send("agents", NewMessage.builder("luis").attribute("language", "es").build()).id();
    engine.update(
        "agents",
        id,
        MessageUpdate.attributes(
            Map.of("language", AttributeValue.string("en"), "gender", AttributeValue.string("M"))));
    assertEquals(List.of(), receive("agents", "language = 'es'", 1));
    assertEquals(
        AttributeValue.string("en"), engine.get("agents", id).attributes().get("language"));
    List<Message> got =
        engine.receive("agents", ReceiveRequest.builder().selector("language = 'en'").build());
    assertEquals(List.of("luis"), got.stream().map(Message::body).toList());
    assertEquals(id, got.get(0).id());
    engine.ack("agents", got.get(0).receipt().orElseThrow());
    assertEquals(List.of("fr 0", "fr 1", "fr 2"), receive("agents", null, 10));
    assertEquals(0, engine.stats("agents").available());
  }

  @Test
  void aNewEngine_findsEveryPartition() {
    engine.createQueue("agents", indexed());
    agents("agents", "fr", 2);
    agents("agents", "es", 2);
    agents("agents", "en", 2);
    engine.close();
    engine = engine(32);
    reads.reset();
    assertEquals(List.of("en 0", "en 1"), receive("agents", "language = 'en'", 5));
    // shard 0 and the two partitions of 'en' (one per gender), none of the others
    assertEquals(3, reads.queries.get(), "queries of the filtered receive");
    assertEquals(List.of("fr 0", "fr 1", "es 0", "es 1"), receive("agents", null, 10));
  }

  @Test
  void pastTheCap_messagesGoToShardZero_andAreStillReceived() {
    engine.close();
    engine = engine(1);
    engine.createQueue("agents", indexed());
    agents("agents", "fr", 2);
    agents("agents", "es", 2);
    assertEquals(List.of("es 0", "es 1"), receive("agents", "language = 'es'", 5));
    assertEquals(List.of("fr 0", "fr 1"), receive("agents", "language = 'fr'", 5));
  }

  @Test
  void receive_behind300InFlight_startsAfterTheHint_notAtTheHead() {
    engine.createQueue("q", QueueConfig.builder().visibilityTimeout(Duration.ofMinutes(5)).build());
    for (int i = 0; i < 300; i++) {
      engine.send("q", NewMessage.of("m" + i));
    }
    for (int i = 0; i < 30; i++) {
      assertEquals(10, receive("q", null, 10).size());
    }
    engine.send("q", NewMessage.of("late"));
    reads.reset();
    assertEquals(List.of("late"), receive("q", null, 1));
    assertTrue(reads.items.get() <= 3, "items read past the hint: " + reads.items);
    // a lease that ends makes its message deliverable again: the hint holds only until then
    clock.advance(Duration.ofMinutes(5));
    assertEquals(List.of("m0"), receive("q", null, 1));
  }

  @Test
  void aServerThatOnlyReceives_keepsHintsToo() {
    engine.createQueue("q", QueueConfig.builder().visibilityTimeout(Duration.ofMinutes(5)).build());
    for (int i = 0; i < 200; i++) {
      engine.send("q", NewMessage.of("m" + i));
    }
    clock.advance(Duration.ofMillis(1)); // the receiving server's clock is past those sends
    QueueEngine receiver = engine(32);
    try {
      for (int i = 0; i < 20; i++) {
        assertEquals(10, receiver.receive("q", ReceiveRequest.max(10)).size());
      }
      engine.send("q", NewMessage.of("late"));
      reads.reset();
      assertEquals(
          List.of("late"),
          receiver.receive("q", ReceiveRequest.one()).stream().map(Message::body).toList());
      assertTrue(reads.items.get() <= 3, "items read past the hint: " + reads.items);
    } finally {
      receiver.close();
    }
  }

  @Test
  void aReleasedMessage_isReceivedAgainAtOnce_despiteTheHint() {
    engine.createQueue("q", QueueConfig.builder().visibilityTimeout(Duration.ofMinutes(5)).build());
    for (int i = 0; i < 20; i++) {
      engine.send("q", NewMessage.of("m" + i));
    }
    List<Message> first = engine.receive("q", ReceiveRequest.max(10));
    assertEquals(10, first.size());
    engine.release("q", first.get(3).receipt().orElseThrow());
    assertEquals(List.of("m3", "m10"), receive("q", null, 2));
  }
}
