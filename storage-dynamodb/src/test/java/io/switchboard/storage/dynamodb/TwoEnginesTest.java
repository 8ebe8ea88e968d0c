package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import io.switchboard.queue.MessageUpdate;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.RedriveRequest;
import io.switchboard.queue.RedriveTask;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
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
import org.junit.jupiter.api.function.Executable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Two engines on one table, as two servers: a message is leased by at most one of them at a time,
 * and what either does with a lease (ack, extend, release, a priority change) holds for both. A
 * queue's configuration or deletion changed on one is acted on by the other within the queue cache
 * time; a message or receipt its copy of the queue does not know is looked up again at once.
 */
@ExtendWith(Moto.class)
class TwoEnginesTest {

  private static final Duration CACHE_TIME = Duration.ofSeconds(1);
  private static DynamoDbClient client;
  private final ManualClock clock = ManualClock.create();
  private QueueEngine a;
  private QueueEngine b;
  private String prefix = "";

  @BeforeEach
  void open() {
    synchronized (TwoEnginesTest.class) {
      if (client == null) {
        client = Moto.client();
      }
    }
    prefix = Moto.prefix();
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
        .queueCacheTime(CACHE_TIME)
        .build();
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
  }

  /**
   * A redrive task lives in the table, not in the server that started it: both list it, a second
   * start on either is a conflict while it runs, and the other carries it on when the first stops.
   */
  @Test
  void aRedriveStartedOnOne_isListedOnBoth_andCarriedOnByTheOther_whenTheFirstStops() {
    deadLetteredThroughA(5);
    RedriveTask task = a.startRedrive("dlq", RedriveRequest.toSources().maxPerSecond(1));
    assertEquals(1, task.moved());
    assertEquals(List.of(task.id()), b.redriveTasks("dlq").stream().map(RedriveTask::id).toList());
    QueueException running =
        assertThrows(QueueException.class, () -> b.startRedrive("dlq", RedriveRequest.toSources()));
    assertEquals(ErrorCode.CONFLICT, running.code());
    assertTrue(running.getMessage().contains(task.id()), running.getMessage());

    a.close(); // the server that started it stops; the other finds it at its next sweep
    clock.advanceSeconds(2);
    RedriveTask carried = b.redriveTasks("dlq").get(0);
    assertEquals(RedriveTask.Status.RUNNING, carried.status());
    assertEquals(3, carried.moved(), "one a second since it started, whoever moves them");
    clock.advanceSeconds(2);
    RedriveTask done = b.redriveTasks("dlq").get(0);
    assertEquals(RedriveTask.Status.COMPLETED, done.status());
    assertEquals(5, done.moved());
    assertEquals(0, b.stats("dlq").depth());
    List<Message> back =
        b.receive(
            "src",
            ReceiveRequest.builder()
                .maxMessages(10)
                .visibilityTimeout(Duration.ofSeconds(9))
                .build());
    assertEquals(
        List.of("1", "2", "3", "4", "5"),
        back.stream().map(Message::body).toList(),
        "in their order, each once");
    a = engine(prefix); // for close()
  }

  /** A task cancelled through the other server stops moving at once, and a new one may start. */
  @Test
  void aRedriveCancelledOnTheOther_stops_andANewOneMayStartOnEither() {
    deadLetteredThroughA(4);
    RedriveTask task = a.startRedrive("dlq", RedriveRequest.toSources().maxPerSecond(1));
    RedriveTask cancelled = b.cancelRedrive(task.id());
    assertEquals(RedriveTask.Status.CANCELLED, cancelled.status());
    assertEquals(1, cancelled.moved());
    clock.advanceSeconds(5);
    assertEquals(RedriveTask.Status.CANCELLED, a.redriveTasks("dlq").get(0).status());
    assertEquals(3, a.stats("dlq").depth(), "nothing moved after the cancel, on either server");
    RedriveTask again = a.startRedrive("dlq", RedriveRequest.toSources());
    assertEquals(RedriveTask.Status.COMPLETED, again.status());
    assertEquals(3, again.moved());
    assertEquals(2, b.redriveTasks("dlq").size());
  }

  /**
   * Queue "src" dead-letters into "dlq"; messages "1".."n" sent through a, dead-lettered at once.
   */
  private void deadLetteredThroughA(int n) {
    a.createQueue("dlq", QueueConfig.builder().build());
    a.createQueue("src", QueueConfig.builder().deadLetter("dlq", 1).build());
    for (int i = 1; i <= n; i++) {
      a.deadLetterById("src", a.send("src", NewMessage.of(Integer.toString(i))).id());
    }
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

  /** Gives {@code e} a copy of the queue's item, as any operation on the queue would. */
  private static void readQueue(QueueEngine e) {
    e.browse("q", BrowseRequest.first(1)); // counts nothing, so no sweep reads the queue for it
  }

  private static ErrorCode refusal(Executable call) {
    return assertThrows(QueueException.class, call).code();
  }

  @Test
  void aConfigurationChangedOnOne_isActedOnByTheOther_withinTheCacheTime() {
    readQueue(b); // visibility timeout 30 s
    a.updateQueue("q", c -> c.toBuilder().visibilityTimeout(Duration.ofSeconds(5)).build());
    a.send("q", NewMessage.of("m"));
    clock.advance(CACHE_TIME);

    Message m = b.receive("q", ReceiveRequest.one()).get(0);
    assertEquals(Instant.ofEpochMilli(clock.millis() + 5_000), m.visibleAt().orElseThrow());
  }

  @Test
  void aQueueDeletedOnOne_refusesTheOthersSends_afterTheCacheTime() {
    readQueue(b);
    a.deleteQueue("q");
    clock.advance(CACHE_TIME);

    assertEquals(ErrorCode.QUEUE_NOT_FOUND, refusal(() -> b.send("q", NewMessage.of("late"))));
    assertEquals(ErrorCode.QUEUE_NOT_FOUND, refusal(() -> b.receive("q", ReceiveRequest.one())));
  }

  @Test
  void aQueueDeletedOnOne_refusesTheOthersAcks_atOnce() {
    a.send("q", NewMessage.of("m"));
    String receipt = b.receive("q", ReceiveRequest.one()).get(0).receipt().orElseThrow();
    a.deleteQueue("q");

    assertEquals(ErrorCode.QUEUE_NOT_FOUND, refusal(() -> b.ack("q", receipt)));
  }

  /**
   * The queue deleted and made again on one server is a new generation, with its own receipt key:
   * the other, whose copy is of the old one, verifies a new receipt against the new generation.
   */
  @Test
  void aQueueMadeAgainOnOne_itsReceiptsWorkOnTheOther_atOnce() {
    readQueue(b);
    a.deleteQueue("q");
    a.createQueue("q", QueueConfig.builder().visibilityTimeout(Duration.ofSeconds(30)).build());
    String id = a.send("q", NewMessage.of("m")).id();
    String receipt = a.receive("q", ReceiveRequest.one()).get(0).receipt().orElseThrow();

    b.extend("q", receipt, Duration.ofSeconds(60));
    b.ack("q", receipt);
    assertEquals(ErrorCode.MESSAGE_NOT_FOUND, refusal(() -> a.get("q", id)));
  }

  /**
   * A message of a priority first used on one server lives in a partition the other's copy does not
   * list: the other's receives take that priority within the cache time, and when an id or receipt
   * misses, it looks the queue up again at once, so its get finds the message and its ack is not
   * lost.
   */
  @Test
  void aPriorityFirstUsedOnOne_isReceivedOnTheOtherWithinTheCacheTime_andAckedThereAtOnce() {
    readQueue(b); // no priority yet
    a.send("q", NewMessage.builder("higher").priority(9).build());
    clock.advance(CACHE_TIME);
    assertEquals(
        List.of("higher"),
        b.receive("q", ReceiveRequest.max(10)).stream().map(Message::body).toList());

    String id = a.send("q", NewMessage.builder("urgent").priority(7).build()).id();
    String receipt = a.receive("q", ReceiveRequest.one()).get(0).receipt().orElseThrow();
    assertEquals(MessageState.IN_FLIGHT, b.get("q", id).state());
    b.ack("q", receipt);
    assertEquals(ErrorCode.MESSAGE_NOT_FOUND, refusal(() -> a.get("q", id)));
  }
}
