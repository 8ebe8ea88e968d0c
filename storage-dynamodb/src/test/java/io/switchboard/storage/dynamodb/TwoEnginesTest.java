package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Two engines on one table, as two servers: a message is leased by at most one of them at a time,
 * and what either does with a lease (ack, extend, release, a priority change) holds for both.
 */
@ExtendWith(Moto.class)
class TwoEnginesTest {

  private static DynamoDbClient client;
  private final ManualClock clock = ManualClock.create();
  private QueueEngine a;
  private QueueEngine b;

  @BeforeEach
  void open() {
    synchronized (TwoEnginesTest.class) {
      if (client == null) {
        client = Moto.client();
      }
    }
    String prefix = Moto.prefix();
    a = engine(prefix);
    b = engine(prefix);
    a.createQueue("q", QueueConfig.builder().visibilityTimeout(Duration.ofSeconds(30)).build());
  }

  private QueueEngine engine(String prefix) {
    return DynamoQueueEngine.builder()
        .client(client)
        .tablePrefix(prefix)
        .clock(clock)
        .pollInterval(Duration.ofMillis(10))
        .build();
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
  }

  @AfterAll
  static void closeClient() {
    if (client != null) {
      client.close();
      client = null;
    }
  }

  @Test
  void racingReceivesOnBothEngines_eachMessageLeasedOnce_untilItsLeaseEnds() throws Exception {
    int n = 30;
    List<NewMessage> batch = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      batch.add(NewMessage.of("m" + i));
    }
    a.sendBatch("q", batch);
    List<String> taken = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (QueueEngine e : List.of(a, b, a, b)) {
        Callable<Void> consumer =
            () -> {
              List<Message> got;
              while (!(got = e.receive("q", ReceiveRequest.max(3))).isEmpty()) {
                got.forEach(m -> taken.add(m.body()));
              }
              return null;
            };
        done.add(pool.submit(consumer));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(n, taken.size(), () -> "received " + taken);
    assertEquals(n, taken.stream().distinct().count(), () -> "received twice: " + taken);
    assertEquals(List.of(), b.receive("q", ReceiveRequest.max(10)));
    assertEquals(n, a.stats("q").inFlight());

    clock.advanceSeconds(30); // every lease ends: each message can be taken again, once
    assertEquals(n, b.receive("q", ReceiveRequest.max(100)).size());
    assertEquals(List.of(), a.receive("q", ReceiveRequest.max(100)));
  }

  @Test
  void aLeaseTakenOnOne_isAckedExtendedAndReleasedThroughTheOther() {
    String first = a.send("q", NewMessage.of("first")).id();
    a.send("q", NewMessage.of("second"));

    Message onA = a.receive("q", ReceiveRequest.one()).get(0);
    assertEquals(first, onA.id());
    String receipt = onA.receipt().orElseThrow();
    // b extends a's lease: the message stays invisible past the first lease's end
    b.extend("q", receipt, Duration.ofSeconds(60));
    clock.advanceSeconds(40);
    assertEquals(MessageState.IN_FLIGHT, b.get("q", first).state());
    Message second = b.receive("q", ReceiveRequest.one()).get(0);
    assertEquals("second", second.body());
    // a releases what b received; b acks what a received
    a.release("q", second.receipt().orElseThrow());
    b.ack("q", receipt);
    QueueException gone = assertThrows(QueueException.class, () -> a.get("q", first));
    assertEquals(ErrorCode.MESSAGE_NOT_FOUND, gone.code());
    Message again = a.receive("q", ReceiveRequest.one()).get(0);
    assertEquals("second", again.body());
    assertEquals(2, again.receiveCount());
    // the first receipt of "second" is stale on both engines now
    for (QueueEngine e : List.of(a, b)) {
      QueueException stale =
          assertThrows(QueueException.class, () -> e.ack("q", second.receipt().orElseThrow()));
      assertEquals(ErrorCode.RECEIPT_STALE, stale.code());
    }
    b.ack("q", again.receipt().orElseThrow());
    assertEquals(0, a.stats("q").depth());
    assertEquals(2, b.stats("q").counters().acked());
  }

  @Test
  void aPriorityChangeOnOne_ordersTheOthersReceive() {
    String low = a.send("q", NewMessage.of("low")).id();
    a.send("q", NewMessage.builder("mid").priority(5).build());
    b.update("q", low, MessageUpdate.priority(9));
    List<Message> got = a.receive("q", ReceiveRequest.max(10));
    assertEquals(List.of("low", "mid"), got.stream().map(Message::body).toList());
    assertEquals(low, got.get(0).id());
    assertEquals(9, got.get(0).priority());
    assertTrue(b.receive("q", ReceiveRequest.max(10)).isEmpty());
  }

  @Test
  void whatOneServerCounted_theOtherSees_afterItsSweepAndAfterItCloses() {
    for (int i = 0; i < 3; i++) {
      a.send("q", NewMessage.of("m" + i));
    }
    List<Message> got = a.receive("q", ReceiveRequest.max(2));
    assertEquals(2, got.size());
    a.ack("q", got.get(0).receipt().orElseThrow());

    clock.advance(Duration.ofMinutes(1)); // a's sweep adds its counts to the table
    var seen = b.stats("q").counters();
    assertEquals(3, seen.sent(), "sends counted by the other server");
    assertEquals(2, seen.received());
    assertEquals(1, seen.acked());

    a.ack("q", got.get(1).receipt().orElseThrow());
    a.close(); // no sweep since: closing adds what is left
    assertEquals(2, b.stats("q").counters().acked(), "the ack counted before a closed");
  }
}
