package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.time.ManualClock;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Throttling that outlasts the SDK's retries is the API's retryable refusal ({@code UNAVAILABLE})
 * and changes nothing. Emulators never throttle, so an {@link ExecutionInterceptor} throws
 * DynamoDB's exception for the requests it is told to.
 */
@ExtendWith(Moto.class)
class ThrottlingTest {

  /** Throws DynamoDB's throttling exception for puts and updates while {@link #on}. */
  static final class Throttle implements ExecutionInterceptor {
    final AtomicBoolean on = new AtomicBoolean();
    final AtomicInteger thrown = new AtomicInteger();

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      if (on.get()
          && (context.request() instanceof PutItemRequest
              || context.request() instanceof UpdateItemRequest)) {
        thrown.incrementAndGet();
        throw ProvisionedThroughputExceededException.builder()
            .message("Rate of requests exceeds the allowed throughput")
            .statusCode(400)
            .build();
      }
    }
  }

  @Test
  void throttledSendAndReceive_unavailableAndNothingChanged_thenServedOnceItEnds() {
    Throttle throttle = new Throttle();
    try (DynamoDbClient client = Moto.client(throttle);
        QueueEngine engine =
            DynamoQueueEngine.builder()
                .client(client)
                .tablePrefix(Moto.prefix())
                .clock(ManualClock.create())
                .build()) {
      engine.createQueue("q", QueueConfig.defaults());
      engine.send("q", NewMessage.of("before"));

      throttle.on.set(true);
      QueueException refused =
          assertThrows(QueueException.class, () -> engine.send("q", NewMessage.of("during")));
      assertEquals(ErrorCode.UNAVAILABLE, refused.code());
      assertTrue(refused.getMessage().contains("retry later"), refused.getMessage());
      QueueException notTaken =
          assertThrows(QueueException.class, () -> engine.receive("q", ReceiveRequest.one()));
      assertEquals(ErrorCode.UNAVAILABLE, notTaken.code());
      assertTrue(throttle.thrown.get() >= 2);

      throttle.on.set(false);
      assertEquals(1, engine.stats("q").available(), "the refused send left nothing");
      assertEquals("before", engine.receive("q", ReceiveRequest.one()).get(0).body());
    }
  }
}
