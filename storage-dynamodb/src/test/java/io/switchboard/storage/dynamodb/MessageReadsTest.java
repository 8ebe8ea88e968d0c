package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;

/**
 * What an ack and a receive read of the messages' items (docs/design.md, "Costs this is built
 * for"): an ack reads nothing, one conditional write ends the message; a receive of one over a
 * backlog reads a few items from the head, not a page of a hundred. Each item read is billed (a
 * read unit per 4 KB), so these counts are the read units a user pays.
 */
@ExtendWith(Moto.class)
class MessageReadsTest {

  /** Counts the requests that read items, and the items the queries read (filtered or not). */
  private static final class Reads implements ExecutionInterceptor {
    final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger queried = new AtomicInteger();
    final List<String> writes = new ArrayList<>();

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      String name = context.request().getClass().getSimpleName();
      if (context.request() instanceof GetItemRequest
          || context.request() instanceof BatchGetItemRequest
          || context.request() instanceof TransactGetItemsRequest
          || context.request() instanceof ScanRequest
          || name.equals("QueryRequest")) {
        requests.incrementAndGet();
      } else {
        synchronized (writes) {
          writes.add(name.replace("Request", ""));
        }
      }
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
      if (context.response() instanceof QueryResponse r) {
        queried.addAndGet(r.scannedCount());
      }
    }

    void reset() {
      requests.set(0);
      queried.set(0);
      synchronized (writes) {
        writes.clear();
      }
    }
  }

  private final Reads reads = new Reads();
  private final ManualClock clock = ManualClock.create();
  private DynamoDbClient client;
  private QueueEngine engine;

  @BeforeEach
  void open() {
    client = Moto.client(reads);
    engine =
        DynamoQueueEngine.builder()
            .client(client)
            .tablePrefix(Moto.prefix())
            .clock(clock)
            .sweepInterval(Duration.ofDays(1))
            .build();
  }

  @AfterEach
  void close() {
    engine.close();
    client.close();
  }

  private Message receiveOne(String queue) {
    List<Message> got = engine.receive(queue, ReceiveRequest.one());
    assertEquals(1, got.size(), "one message received");
    return got.get(0);
  }

  /** Reads and writes of {@code ack} after a send and a receive on {@code queue}. */
  private void assertAckReadsNothing(String queue, Consumer<String> check) {
    String receipt = receiveOne(queue).receipt().orElseThrow();
    reads.reset();
    engine.ack(queue, receipt);
    assertEquals(0, reads.requests.get(), "read requests of the ack");
    check.accept(String.join(",", reads.writes));
  }

  @Test
  void ack_readsNothing_oneConditionalDelete() {
    engine.createQueue("q", QueueConfig.defaults());
    engine.send("q", NewMessage.of("hello"));
    assertAckReadsNothing("q", writes -> assertEquals("DeleteItem", writes));
    assertTrue(engine.receive("q", ReceiveRequest.one()).isEmpty(), "the acked message is gone");
  }

  @Test
  void ack_ofAPriorityQueue_readsNothing_whicheverPriority() {
    engine.createQueue("p", QueueConfig.defaults());
    for (int priority : new int[] {0, 2, 1}) {
      engine.send("p", NewMessage.builder("at " + priority).priority(priority).build());
    }
    for (int i = 0; i < 3; i++) {
      assertAckReadsNothing("p", writes -> assertEquals("DeleteItem", writes));
    }
    assertEquals(0, engine.stats("p").depth());
  }

  @Test
  void ack_withHistory_readsNothing_andKeepsTheMessageAsCompleted() {
    engine.createQueue("h", QueueConfig.builder().historyRetention(Duration.ofHours(1)).build());
    String id = engine.send("h", NewMessage.of("kept")).id();
    assertAckReadsNothing("h", writes -> assertEquals("UpdateItem", writes));
    assertEquals(MessageState.COMPLETED, engine.get("h", id).state());
  }

  @Test
  void ack_staleReceipt_refusedAsStale_andTheNewLeaseStands() {
    engine.createQueue(
        "s", QueueConfig.builder().visibilityTimeout(Duration.ofSeconds(30)).build());
    engine.send("s", NewMessage.of("twice"));
    String first = receiveOne("s").receipt().orElseThrow();
    clock.advance(Duration.ofSeconds(31));
    String second = receiveOne("s").receipt().orElseThrow();
    QueueException stale = assertThrows(QueueException.class, () -> engine.ack("s", first));
    assertEquals(ErrorCode.RECEIPT_STALE, stale.code());
    engine.ack("s", second);
    assertEquals(0, engine.stats("s").depth());
  }

  @Test
  void ack_aReceiptOfAnotherQueue_refusedAsInvalid_andChangesNothing() {
    engine.createQueue("a", QueueConfig.defaults());
    engine.createQueue("b", QueueConfig.defaults());
    engine.send("a", NewMessage.of("of a"));
    engine.send("b", NewMessage.of("of b"));
    String ofA = receiveOne("a").receipt().orElseThrow();
    QueueException invalid = assertThrows(QueueException.class, () -> engine.ack("b", ofA));
    assertEquals(ErrorCode.RECEIPT_INVALID, invalid.code());
    assertEquals(1, engine.stats("b").depth());
    engine.ack("a", ofA);
    assertEquals(0, engine.stats("a").depth());
  }

  @Test
  void ack_afterTheMessageMoved_stillEndsIt() {
    engine.createQueue("m", QueueConfig.defaults());
    String id = engine.send("m", NewMessage.of("moves")).id();
    String receipt = receiveOne("m").receipt().orElseThrow();
    engine.touch("m", id); // moves the item to a new order serial, a pointer at its id
    engine.ack("m", receipt);
    assertEquals(0, engine.stats("m").depth());
  }

  @Test
  void receiveOfOne_overABacklogOf100_readsAFewItems_notAPage() {
    engine.createQueue("b", QueueConfig.defaults());
    for (int i = 0; i < 100; i++) {
      engine.send("b", NewMessage.of("message " + i));
    }
    reads.reset();
    Message m = receiveOne("b");
    assertEquals("message 0", m.body());
    assertTrue(reads.queried.get() <= 3, "items the receive read: " + reads.queried.get());
    reads.reset();
    List<Message> ten = engine.receive("b", ReceiveRequest.max(10));
    assertEquals(10, ten.size());
    assertTrue(reads.queried.get() <= 12, "items a receive of 10 read: " + reads.queried.get());
  }

  @Test
  void receive_pastMessagesInFlight_readsOnToTheFirstAvailable() {
    engine.createQueue("f", QueueConfig.defaults());
    for (int i = 0; i < 40; i++) {
      engine.send("f", NewMessage.of("message " + i));
    }
    for (int i = 0; i < 30; i++) {
      receiveOne("f"); // in flight: the next receive reads past them
    }
    reads.reset();
    assertEquals("message 30", receiveOne("f").body());
    assertTrue(reads.requests.get() <= 5, "queries: " + reads.requests.get());
  }
}
