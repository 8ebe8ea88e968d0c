package io.switchboard.bench.sqs;

import io.switchboard.bench.e2e.ClosedLoop.CycleFactory;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageRequest;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;

/**
 * One AWS SDK v2 client of one server and the cycles {@link SqsBench} runs with it. The client is
 * what an application would build: {@code SqsClient} with an endpoint override, static credentials,
 * default retries, on the Apache 5 HTTP client with one pooled connection per thread.
 */
public final class SqsLoad implements AutoCloseable {

  private final SqsClient sqs;
  private final URI endpoint;

  SqsLoad(URI endpoint, int threads, boolean noop) {
    this(endpoint, threads, noop, "bench", "bench");
  }

  /** A client signing with access key {@code keyId} and {@code secret}. */
  public SqsLoad(URI endpoint, int threads, boolean noop, String keyId, String secret) {
    this.endpoint = endpoint;
    var builder =
        SqsClient.builder()
            .endpointOverride(endpoint)
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create(keyId, secret)))
            .httpClient(
                Apache5HttpClient.builder()
                    .maxConnections(threads + 4)
                    .socketTimeout(Duration.ofSeconds(60))
                    .build());
    if (noop) {
      builder.overrideConfiguration(c -> c.addExecutionInterceptor(new NoopInterceptor()));
    }
    this.sqs = builder.build();
  }

  /**
   * Sends every request of this client to {@code POST /v1/noop} instead of {@code POST /}, as
   * {@code application/json}: the request is built, signed and sent as usual, the server reads it
   * and answers 204.
   */
  static final class NoopInterceptor implements ExecutionInterceptor {
    @Override
    public SdkHttpRequest modifyHttpRequest(
        Context.ModifyHttpRequest context, ExecutionAttributes executionAttributes) {
      // the native API takes JSON bodies only as application/json (a keyless server refuses the
      // SDK's application/x-amz-json-1.0 there with 415; the body is JSON either way)
      return context.httpRequest().toBuilder()
          .encodedPath("/v1/noop")
          .putHeader("Content-Type", "application/json")
          .build();
    }
  }

  public String createQueue(String name) {
    return sqs.createQueue(b -> b.queueName(name)).queueUrl();
  }

  public void deleteQueue(String url) {
    sqs.deleteQueue(b -> b.queueUrl(url));
  }

  /** A DeleteMessage of a receipt-sized handle: the ceiling's request, one per cycle. */
  public CycleFactory noop() {
    DeleteMessageRequest request =
        DeleteMessageRequest.builder()
            .queueUrl(endpoint + "/000000000000/noop")
            .receiptHandle("x".repeat(64))
            .build();
    return index ->
        () -> {
          try {
            sqs.deleteMessage(request);
            return new long[] {0, 1, 0};
          } catch (SdkClientException e) {
            return transportFailure(e, 1);
          }
        };
  }

  public CycleFactory cycle(SqsBench.Shape shape, String queueUrl) {
    return switch (shape) {
      case SINGLE -> index -> single(queueUrl, index);
      case BATCH -> index -> batch(queueUrl, index);
    };
  }

  private io.switchboard.bench.e2e.ClosedLoop.Cycle single(String queueUrl, int thread) {
    SendMessageRequest send =
        SendMessageRequest.builder().queueUrl(queueUrl).messageBody(body(thread, 0)).build();
    ReceiveMessageRequest receive =
        ReceiveMessageRequest.builder()
            .queueUrl(queueUrl)
            .maxNumberOfMessages(1)
            .waitTimeSeconds(0)
            .build();
    return () -> {
      try {
        sqs.sendMessage(send);
        List<Message> got = sqs.receiveMessage(receive).messages();
        for (Message m : got) {
          sqs.deleteMessage(b -> b.queueUrl(queueUrl).receiptHandle(m.receiptHandle()));
        }
        return new long[] {got.size(), 2 + got.size(), 0};
      } catch (SdkClientException e) {
        return transportFailure(e, 3);
      }
    };
  }

  private io.switchboard.bench.e2e.ClosedLoop.Cycle batch(String queueUrl, int thread) {
    List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
    for (int i = 0; i < SqsBench.Shape.BATCH.messages; i++) {
      entries.add(
          SendMessageBatchRequestEntry.builder()
              .id(Integer.toString(i))
              .messageBody(body(thread, i))
              .build());
    }
    SendMessageBatchRequest send =
        SendMessageBatchRequest.builder().queueUrl(queueUrl).entries(entries).build();
    ReceiveMessageRequest receive =
        ReceiveMessageRequest.builder()
            .queueUrl(queueUrl)
            .maxNumberOfMessages(SqsBench.Shape.BATCH.messages)
            .waitTimeSeconds(0)
            .build();
    return () -> {
      try {
        long failed = sqs.sendMessageBatch(send).failed().size();
        List<Message> got = sqs.receiveMessage(receive).messages();
        if (got.isEmpty()) {
          return new long[] {0, 2, failed};
        }
        List<DeleteMessageBatchRequestEntry> deletes = new ArrayList<>(got.size());
        for (int i = 0; i < got.size(); i++) {
          deletes.add(
              DeleteMessageBatchRequestEntry.builder()
                  .id(Integer.toString(i))
                  .receiptHandle(got.get(i).receiptHandle())
                  .build());
        }
        int notDeleted =
            sqs.deleteMessageBatch(
                    DeleteMessageBatchRequest.builder().queueUrl(queueUrl).entries(deletes).build())
                .failed()
                .size();
        return new long[] {got.size() - notDeleted, 3, failed + notDeleted};
      } catch (SdkClientException e) {
        return transportFailure(e, 3);
      }
    };
  }

  static String body(int thread, int i) {
    String prefix = "t" + thread + "-m" + i + "-";
    return prefix + "x".repeat(SqsBench.BODY_BYTES - prefix.length());
  }

  private static final java.util.concurrent.atomic.AtomicLong FAILURES =
      new java.util.concurrent.atomic.AtomicLong();

  /** A request that got no answer counts as a failure; the first few are printed. */
  private static long[] transportFailure(Exception e, int requests) {
    if (FAILURES.incrementAndGet() <= 3) {
      System.err.println("request failed without an answer: " + e);
    }
    return new long[] {0, requests, 1};
  }

  @Override
  public void close() {
    sqs.close();
  }
}
