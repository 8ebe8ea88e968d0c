package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.time.ManualClock;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression: restore (documented "to the back") and redrive gave the message a new, highest
 * sequence number, which in a LIFO queue is the front: a message back from the dead-letter queue
 * jumped ahead of everything waiting.
 */
class LifoRestoreWentToFrontTest {

  private final ManualClock clock = ManualClock.create();
  private final QueueEngine engine = QueueEngine.builder().clock(clock).build();

  @Test
  void restore_lifoQueue_goesBehindWaitingMessages() {
    createLifoWithDeadLetterQueue();
    String id = engine.send("lifo", NewMessage.of("failed")).id();
    engine.deadLetterById("lifo", id);
    engine.send("lifo", NewMessage.of("older"));
    engine.send("lifo", NewMessage.of("newer"));

    engine.restore("dlq", id);

    assertEquals(List.of("newer", "older", "failed"), receiveAll());
  }

  @Test
  void redrive_lifoQueue_goesBehindWaitingMessages() {
    createLifoWithDeadLetterQueue();
    engine.deadLetterById("lifo", engine.send("lifo", NewMessage.of("first")).id());
    engine.deadLetterById("lifo", engine.send("lifo", NewMessage.of("second")).id());
    engine.send("lifo", NewMessage.of("waiting"));

    engine.startRedrive("dlq", RedriveRequest.toSources());

    assertEquals(List.of("waiting", "first", "second"), receiveAll());
  }

  private void createLifoWithDeadLetterQueue() {
    engine.createQueue("dlq", QueueConfig.defaults());
    engine.createQueue(
        "lifo", QueueConfig.builder().order(Order.LIFO).deadLetter("dlq", 5).build());
  }

  private List<String> receiveAll() {
    return engine.receive("lifo", ReceiveRequest.max(10)).stream().map(Message::body).toList();
  }
}
