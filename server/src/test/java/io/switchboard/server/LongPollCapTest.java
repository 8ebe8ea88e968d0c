package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 16: nothing capped the receives waiting for messages. Over {@code max-long-polls} a receive
 * that would wait is refused at once, retryably: native 503 {@code TOO_MANY_LONG_POLLS} with {@code
 * Retry-After}, SQS {@code RequestThrottled} (which the AWS SDKs retry with backoff); a receive
 * that does not wait is served as before, and a refused one changes nothing.
 */
@Timeout(60)
class LongPollCapTest {

  private static final Map<String, String> SQS_JSON =
      Map.of("Content-Type", "application/x-amz-json-1.0");

  @Test
  void receivesOverMaxLongPolls_areRefusedRetryably_othersAreServed() throws Exception {
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        SwitchboardServer server =
            SwitchboardServer.start(
                ServerConfig.resolve(
                    Map.of("port", "0", "in-memory", "true", "max-long-polls", "2"), Map.of()));
        Http http = new Http(server.uri())) {
      assertEquals(201, http.post("/v1/queues", "{\"name\":\"q\"}").status());
      List<CompletableFuture<Http.Answer>> polls = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        polls.add(
            CompletableFuture.supplyAsync(
                () -> http.post("/v1/queues/q/receive", "{\"waitTimeSeconds\":20}"), threads));
      }
      String metrics;
      do {
        metrics = http.get("/metrics").text();
      } while (!metrics.contains("switchboard_limit_used{limit=\"max-long-polls\"} 2.0"));

      Http.Answer nativePoll = http.post("/v1/queues/q/receive", "{\"waitTimeSeconds\":5}");
      assertEquals(503, nativePoll.status(), nativePoll.toString());
      assertEquals("TOO_MANY_LONG_POLLS", nativePoll.code());
      assertTrue(nativePoll.text().contains("max-long-polls"), nativePoll.toString());
      assertEquals("1", nativePoll.raw().headers().firstValue("Retry-After").orElse(""));

      Http.Answer sqsPoll =
          sqs(
              http,
              "ReceiveMessage",
              "{\"QueueUrl\":\"" + server.uri() + "/000000000000/q\",\"WaitTimeSeconds\":5}");
      assertEquals(400, sqsPoll.status(), sqsPoll.toString());
      assertTrue(sqsPoll.text().contains("RequestThrottled"), sqsPoll.toString());

      // receives that do not wait, and everything else, are served
      Http.Answer now = http.post("/v1/queues/q/receive", "{\"waitTimeSeconds\":0}");
      assertEquals(200, now.status(), now.toString());
      assertEquals(201, http.post("/v1/queues/q/messages", "{\"body\":\"hello\"}").status());
      metrics = http.get("/metrics").text();
      assertTrue(metrics.contains("switchboard_limit{limit=\"max-long-polls\"} 2.0"), metrics);
      assertTrue(
          metrics.contains("switchboard_limit_refused_total{limit=\"max-long-polls\"} 2.0"),
          metrics);

      // the waiting polls are answered as ever: one gets the message, the stop ends the other
      server.stop();
      int got = 0;
      for (CompletableFuture<Http.Answer> p : polls) {
        Http.Answer a = p.get(30, TimeUnit.SECONDS);
        assertEquals(200, a.status(), a.toString());
        got += a.json().get("messages").size();
      }
      assertEquals(1, got);
    }
  }

  private static Http.Answer sqs(Http http, String action, String body) {
    Map<String, String> headers = new java.util.HashMap<>(SQS_JSON);
    headers.put("X-Amz-Target", "AmazonSQS." + action);
    return http.send("POST", "/", body, headers);
  }
}
