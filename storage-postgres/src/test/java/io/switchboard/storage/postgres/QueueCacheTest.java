package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Server B keeps queue rows in memory for its one-statement send, receive and ack; a change made
 * through server A must still be in force on B's very next operation, with no message between them.
 */
class QueueCacheTest {

  private final ManualClock clock = ManualClock.create();
  private PostgresQueueEngine a;
  private PostgresQueueEngine b;

  @BeforeEach
  void open() {
    TestDatabase.fresh();
    a = server();
    b = server();
    a.createQueue("q", QueueConfig.defaults());
    b.send("q", NewMessage.of("warm"));
    b.ack("q", b.receive("q", ReceiveRequest.max(1)).get(0).receipt().orElseThrow());
  }

  private PostgresQueueEngine server() {
    return PostgresQueueEngine.builder()
        .url(TestDatabase.url(), "postgres", "postgres")
        .poolSize(2)
        .clock(clock)
        .notifications(false)
        .build();
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
  }

  @Test
  void reconfiguredOnA_nextReceiveOnB_usesTheNewVisibilityTimeout() {
    a.updateQueue("q", QueueConfig.builder().visibilityTimeout(Duration.ofSeconds(5)).build());
    b.send("q", NewMessage.of("m"));
    Message m = b.receive("q", ReceiveRequest.max(1)).get(0);
    assertEquals(clock.instant().plusSeconds(5), m.visibleAt().orElseThrow());
  }

  @Test
  void reconfiguredOnA_nextSendOnB_obeysTheNewLimit() {
    a.updateQueue("q", QueueConfig.builder().maxMessageSize(1024).build());
    QueueException e =
        assertThrows(QueueException.class, () -> b.send("q", NewMessage.of("x".repeat(2000))));
    assertEquals(ErrorCode.MESSAGE_TOO_LARGE, e.code());
    assertEquals(0, a.stats("q").depth());
  }

  @Test
  void deletedOnA_everyOperationOnB_findsNoQueue() {
    b.send("q", NewMessage.of("m"));
    String receipt = b.receive("q", ReceiveRequest.max(1)).get(0).receipt().orElseThrow();
    a.deleteQueue("q");
    assertEquals(
        ErrorCode.QUEUE_NOT_FOUND,
        assertThrows(QueueException.class, () -> b.send("q", NewMessage.of("lost?"))).code());
    assertEquals(
        ErrorCode.QUEUE_NOT_FOUND,
        assertThrows(QueueException.class, () -> b.receive("q", ReceiveRequest.max(1))).code());
    assertEquals(
        ErrorCode.QUEUE_NOT_FOUND,
        assertThrows(QueueException.class, () -> b.ack("q", receipt)).code());
  }

  @Test
  void recreatedOnA_bWorksOnTheNewQueue() {
    a.deleteQueue("q");
    a.createQueue("q", QueueConfig.defaults());
    String id = a.send("q", NewMessage.of("new")).id();
    List<Message> got = b.receive("q", ReceiveRequest.max(10));
    assertEquals(List.of(id), got.stream().map(Message::id).toList());
    b.ack("q", got.get(0).receipt().orElseThrow());
    assertEquals(1, b.stats("q").counters().acked());
    clock.advanceMillis(1); // a housekeeping round, in which b writes its counters
    assertEquals(1, a.stats("q").counters().acked());
    assertEquals(0, a.stats("q").depth());
  }
}
