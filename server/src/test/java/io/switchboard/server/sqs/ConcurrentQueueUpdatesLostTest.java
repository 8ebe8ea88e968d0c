package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.QueueConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Regression: queue configuration updates could lose each other. The native PATCH read the
 * configuration and wrote all of it back, so a TagQueue or SetQueueAttributes landing in between
 * was undone (and SQS calls were serialised only inside one JVM). Now every one is applied to the
 * configuration as it is under the queue's lock: native PATCHes of some fields, SetQueueAttributes
 * of others and TagQueue calls, all at once on one queue, all land.
 */
class ConcurrentQueueUpdatesLostTest {

  private static final int ROUNDS = 25;

  private SqsServer fixture;
  private HttpClient http;

  @BeforeEach
  void start() {
    fixture = new SqsServer();
    http = HttpClient.newHttpClient();
  }

  @AfterEach
  void stop() {
    http.close();
    fixture.close();
  }

  private void patch(String queue, String json) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(fixture.server.uri() + "/v1/queues/" + queue))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString(json))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
  }

  @Test
  void nativePatchesTagQueueAndSetQueueAttributesAtOnce_noneLost() throws Exception {
    String url = fixture.sqs.createQueue(b -> b.queueName("busy")).queueUrl();
    List<Callable<Void>> writers =
        List.of(
            () -> {
              for (int i = 1; i <= ROUNDS; i++) {
                patch("busy", "{\"delaySeconds\":" + i + "}");
              }
              return null;
            },
            () -> {
              for (int i = 1; i <= ROUNDS; i++) {
                patch("busy", "{\"receiveWaitSeconds\":" + (i % 20) + "}");
              }
              return null;
            },
            () -> {
              for (int i = 1; i <= ROUNDS; i++) {
                String period = Integer.toString(3600 + i);
                fixture.sqs.setQueueAttributes(
                    b ->
                        b.queueUrl(url)
                            .attributesWithStrings(
                                Map.of(
                                    QueueAttributeName.MESSAGE_RETENTION_PERIOD.toString(),
                                    period)));
              }
              return null;
            },
            () -> {
              for (int i = 0; i < ROUNDS; i++) {
                String key = "a" + i;
                fixture.sqs.tagQueue(b -> b.queueUrl(url).tags(Map.of(key, "x")));
              }
              return null;
            },
            () -> {
              for (int i = 0; i < ROUNDS; i++) {
                String key = "b" + i;
                fixture.sqs.tagQueue(b -> b.queueUrl(url).tags(Map.of(key, "y")));
              }
              return null;
            });
    CyclicBarrier start = new CyclicBarrier(writers.size());
    ExecutorService pool = Executors.newFixedThreadPool(writers.size());
    try {
      List<Future<Void>> done = new ArrayList<>();
      for (Callable<Void> w : writers) {
        done.add(
            pool.submit(
                () -> {
                  start.await(30, TimeUnit.SECONDS);
                  return w.call();
                }));
      }
      for (Future<Void> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    QueueConfig end = fixture.nativeApi().queue("busy").config();
    assertEquals(Duration.ofSeconds(ROUNDS), end.delay(), "a native PATCH was lost");
    assertEquals(Duration.ofSeconds(ROUNDS % 20), end.receiveWait(), "a native PATCH was lost");
    assertEquals(
        Duration.ofSeconds(3600 + ROUNDS), end.retention(), "a SetQueueAttributes was lost");
    Map<String, String> tags = fixture.sqs.listQueueTags(b -> b.queueUrl(url)).tags();
    assertEquals(2 * ROUNDS, tags.size(), "TagQueue calls were lost: " + tags);
  }

  @Test
  void nativeCreate_answers201ThenExisting200() throws Exception {
    String body = "{\"name\":\"made\"}";
    HttpRequest post =
        HttpRequest.newBuilder(URI.create(fixture.server.uri() + "/v1/queues"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    assertEquals(201, http.send(post, HttpResponse.BodyHandlers.ofString()).statusCode());
    assertEquals(200, http.send(post, HttpResponse.BodyHandlers.ofString()).statusCode());
  }
}
