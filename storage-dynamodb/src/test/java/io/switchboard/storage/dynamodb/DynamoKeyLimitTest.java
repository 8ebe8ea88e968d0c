package io.switchboard.storage.dynamodb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The DynamoDB engine has no fair share among message groups, so it refuses a queue's limit per key
 * (docs/design.md, "Limits per key") with a clear error, at creation and at an update, and changes
 * nothing: a limit it did not keep would be worse than none.
 */
@ExtendWith(Moto.class)
class DynamoKeyLimitTest {

  private static DynamoDbClient client;
  private QueueEngine engine;

  @BeforeEach
  void open() {
    synchronized (DynamoKeyLimitTest.class) {
      if (client == null) {
        client = Moto.client();
      }
    }
    engine =
        DynamoQueueEngine.builder()
            .client(client)
            .tablePrefix(Moto.prefix())
            .clock(ManualClock.create())
            .pollInterval(Duration.ofMillis(10))
            .build();
  }

  @AfterEach
  void close() {
    engine.close();
  }

  @AfterAll
  static void closeClient() {
    if (client != null) {
      client.close();
      client = null;
    }
  }

  @Test
  void createWithAKeyLimit_isRefused_andNoQueueIsMade() {
    QueueException e =
        assertThrows(
            QueueException.class,
            () -> engine.createQueue("q", QueueConfig.builder().keyLimit(2).build()));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(
        e.getMessage().contains("keyLimit is not supported by the DynamoDB engine"),
        e.getMessage());
    assertTrue(e.getMessage().contains("got keyLimit.maxConcurrent 2"), e.getMessage());
    assertEquals(0, engine.listQueues("").size());
  }

  @Test
  void updateToAKeyLimit_isRefused_andTheConfigurationStays() {
    engine.createQueue("q", QueueConfig.defaults());
    QueueException e =
        assertThrows(
            QueueException.class,
            () -> engine.updateQueue("q", c -> c.toBuilder().keyLimit(3).build()));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertEquals(OptionalInt.empty(), engine.queue("q").config().keyLimit());
  }
}
