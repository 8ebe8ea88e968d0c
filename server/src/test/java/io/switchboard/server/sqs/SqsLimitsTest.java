package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ByteAmount;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Over a message limit, an AWS SDK v2 client with its default retry conditions gets an error it
 * retries (docs/sqs.md, "Errors"): the server's byte limit is {@code ServiceUnavailable} (503), a
 * queue's {@code RequestThrottled}; a send retried after consumers made room goes through. The
 * in-flight limit answers {@code OverLimit}, as Amazon SQS does, which the SDK does not retry.
 */
class SqsLimitsTest {

  private static final String BODY = "x".repeat(60 * 1024);

  /** Counts attempts; before the attempt numbered {@code makeRoomAt}, runs {@code makeRoom}. */
  private static final class Attempts implements ExecutionInterceptor {
    final AtomicInteger count = new AtomicInteger();
    volatile int makeRoomAt = Integer.MAX_VALUE;
    volatile Runnable makeRoom = () -> {};

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes a) {
      if (count.incrementAndGet() == makeRoomAt) {
        makeRoom.run();
      }
    }
  }

  /** The SDK's default retry strategy, backing off at once so that the test does not wait. */
  private static SqsClient client(SqsServer fixture, Attempts attempts) {
    return SqsClient.builder()
        .endpointOverride(fixture.server.uri())
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("fake", "fake")))
        .overrideConfiguration(
            ClientOverrideConfiguration.builder()
                .apiCallTimeout(Duration.ofSeconds(30))
                .retryStrategy(
                    AwsRetryStrategy.defaultRetryStrategy().toBuilder()
                        .backoffStrategy(BackoffStrategy.retryImmediately())
                        .throttlingBackoffStrategy(BackoffStrategy.retryImmediately())
                        .build())
                .addExecutionInterceptor(attempts)
                .build())
        .build();
  }

  @Test
  void serverFull_isServiceUnavailable503_whichTheSdkRetries_untilThereIsRoom() {
    ServerConfig config =
        ServerConfig.forTests().with(Settings.MAX_QUEUED_BYTES, ByteAmount.ofBytes(1 << 20));
    Attempts attempts = new Attempts();
    try (SqsServer fixture = new SqsServer(config);
        SqsClient sqs = client(fixture, attempts)) {
      String url = sqs.createQueue(b -> b.queueName("q")).queueUrl();
      for (int i = 0; i < 16; i++) {
        sqs.sendMessage(b -> b.queueUrl(url).messageBody(BODY));
      }
      attempts.count.set(0);
      SqsException full =
          assertThrows(
              SqsException.class, () -> sqs.sendMessage(b -> b.queueUrl(url).messageBody(BODY)));
      assertEquals(503, full.statusCode());
      assertEquals("ServiceUnavailable", full.awsErrorDetails().errorCode());
      assertTrue(full.getMessage().contains("max-queued-bytes"), full.getMessage());
      assertTrue(attempts.count.get() > 1, "the SDK retried: " + attempts.count.get());

      attempts.count.set(0);
      attempts.makeRoomAt = 2;
      attempts.makeRoom = () -> fixture.nativeApi().purge("q");
      sqs.sendMessage(b -> b.queueUrl(url).messageBody(BODY));
      assertEquals(2, attempts.count.get(), "refused once, then sent on the SDK's retry");
    }
  }

  @Test
  void queueFull_isRequestThrottled_whichTheSdkRetriesAsThrottling() {
    ServerConfig config =
        ServerConfig.forTests().with(Settings.MAX_QUEUE_BYTES, ByteAmount.ofBytes(128 << 10));
    Attempts attempts = new Attempts();
    try (SqsServer fixture = new SqsServer(config);
        SqsClient sqs = client(fixture, attempts)) {
      String url = sqs.createQueue(b -> b.queueName("q")).queueUrl();
      sqs.sendMessage(b -> b.queueUrl(url).messageBody(BODY));
      sqs.sendMessage(b -> b.queueUrl(url).messageBody(BODY));
      attempts.count.set(0);
      SqsException full =
          assertThrows(
              SqsException.class, () -> sqs.sendMessage(b -> b.queueUrl(url).messageBody(BODY)));
      assertEquals("RequestThrottled", full.awsErrorDetails().errorCode());
      assertTrue(full.isThrottlingException(), "the SDK sees throttling");
      assertTrue(attempts.count.get() > 1, "the SDK retried: " + attempts.count.get());
    }
  }

  @Test
  void inFlightLimit_isOverLimit_asInAmazonSqs() {
    ServerConfig config = ServerConfig.forTests().with(Settings.MAX_IN_FLIGHT, 1);
    Attempts attempts = new Attempts();
    try (SqsServer fixture = new SqsServer(config);
        SqsClient sqs = client(fixture, attempts)) {
      String url = sqs.createQueue(b -> b.queueName("q")).queueUrl();
      sqs.sendMessage(b -> b.queueUrl(url).messageBody("a"));
      sqs.sendMessage(b -> b.queueUrl(url).messageBody("b"));
      assertEquals(
          1, sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10)).messages().size());
      SqsException over =
          assertThrows(SqsException.class, () -> sqs.receiveMessage(b -> b.queueUrl(url)));
      assertEquals("OverLimit", over.awsErrorDetails().errorCode());
      assertTrue(over.getMessage().contains("max-in-flight"), over.getMessage());
    }
  }
}
