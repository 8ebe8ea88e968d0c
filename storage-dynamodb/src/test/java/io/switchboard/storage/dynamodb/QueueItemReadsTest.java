package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;

/**
 * What the queue cache saves: within the cache time a send, a receive and an ack read no queue item
 * (each read is a strongly consistent read unit); with the cache time 0 each reads it.
 */
@ExtendWith(Moto.class)
class QueueItemReadsTest {

  /** Counts the reads of queue items ({@code queues}/{@code <name>}). */
  private static final class QueueItemReads implements ExecutionInterceptor {
    final AtomicInteger count = new AtomicInteger();

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      if (context.request() instanceof GetItemRequest get) {
        AttributeValue pk = get.key().get("pk");
        if (pk != null && "queues".equals(pk.s())) {
          count.incrementAndGet();
        }
      }
    }
  }

  /** Queue item reads for 10 messages each sent, received and acked, after a first one. */
  private static int readsFor10Messages(Duration cacheTime) {
    QueueItemReads reads = new QueueItemReads();
    try (DynamoDbClient client = Moto.client(reads);
        QueueEngine engine =
            DynamoQueueEngine.builder()
                .client(client)
                .tablePrefix(Moto.prefix())
                .clock(ManualClock.create())
                .queueCacheTime(cacheTime)
                .build()) {
      engine.createQueue("q", QueueConfig.defaults());
      sendReceiveAck(engine, "first"); // its priority's first message writes the queue item
      int before = reads.count.get();
      for (int i = 0; i < 10; i++) {
        sendReceiveAck(engine, "m" + i);
      }
      return reads.count.get() - before;
    }
  }

  private static void sendReceiveAck(QueueEngine engine, String body) {
    engine.send("q", NewMessage.of(body));
    engine.ack("q", engine.receive("q", ReceiveRequest.one()).get(0).receipt().orElseThrow());
  }

  @Test
  void sendReceiveAck_withinTheCacheTime_readNoQueueItem() {
    assertEquals(0, readsFor10Messages(Duration.ofSeconds(1)));
  }

  @Test
  void sendReceiveAck_cacheTimeZero_eachReadsTheQueueItem() {
    assertEquals(30, readsFor10Messages(Duration.ZERO));
  }
}
