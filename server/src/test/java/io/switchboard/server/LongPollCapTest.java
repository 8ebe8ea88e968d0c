package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
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
 * Regression (docs/operations.md, "Limits"): nothing capped the receives waiting for messages. Over
 * {@code max-long-polls} a receive that would wait is refused at once, retryably: native 503 {@code
 * TOO_MANY_LONG_POLLS} with {@code Retry-After}, SQS {@code RequestThrottled} (which the AWS SDKs
 * retry with backoff); a receive that does not wait is served as before, and a refused one changes
 * nothing.
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

  /**
   * Regression (docs/security.md): the long-poll cap was checked before the signature, so an
   * unsigned {@code ReceiveMessage} was told {@code RequestThrottled} (learning that the cap was
   * reached) and counted among the refused polls. Signature and access now come first: it is
   * refused as unauthenticated or denied, and takes and tells nothing of the long polls.
   */
  @Test
  void unauthenticatedLongPoll_isRefusedAsSuch_beforeTheLongPollCap() throws Exception {
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        SwitchboardServer server =
            SwitchboardServer.start(
                ServerConfig.resolve(
                    Map.of(
                        "port", "0",
                        "in-memory", "true",
                        "max-long-polls", "1",
                        "access-keys", "AKADMIN:admin-secret"),
                    Map.of()));
        Http http = new Http(server.uri())) {
      server
          .keys()
          .put(
              new io.switchboard.server.auth.Principal(
                  "AKSENDER",
                  "sender-secret",
                  java.util.Optional.empty(),
                  List.of(
                      new io.switchboard.server.auth.Grant(
                          java.util.EnumSet.of(io.switchboard.server.auth.Action.QUEUE_SEND), "*")),
                  java.util.Optional.empty()));
      Map<String, String> admin =
          Map.of(
              "Content-Type",
              "application/json",
              "Authorization",
              "Basic "
                  + java.util.Base64.getEncoder()
                      .encodeToString("AKADMIN:admin-secret".getBytes(StandardCharsets.UTF_8)));
      assertEquals(201, http.send("POST", "/v1/queues", "{\"name\":\"q\"}", admin).status());
      CompletableFuture<Http.Answer> poll =
          CompletableFuture.supplyAsync(
              () -> http.send("POST", "/v1/queues/q/receive", "{\"waitTimeSeconds\":20}", admin),
              threads);
      while (!http.send("GET", "/metrics", null, admin)
          .text()
          .contains("switchboard_limit_used{limit=\"max-long-polls\"} 1.0")) {
        Thread.onSpinWait();
      }

      String receive =
          "{\"QueueUrl\":\"" + server.uri() + "/000000000000/q\",\"WaitTimeSeconds\":5}";
      Http.Answer unsigned = sqs(http, "ReceiveMessage", receive);
      assertEquals(403, unsigned.status(), unsigned.toString());
      assertTrue(unsigned.text().contains("MissingAuthenticationToken"), unsigned.toString());
      Http.Answer wrongSecret = signedSqs(http, server, "ReceiveMessage", receive, "AKADMIN", "x");
      assertTrue(wrongSecret.text().contains("SignatureDoesNotMatch"), wrongSecret.toString());
      Http.Answer denied =
          signedSqs(http, server, "ReceiveMessage", receive, "AKSENDER", "sender-secret");
      assertEquals(403, denied.status(), denied.toString());
      assertTrue(denied.text().contains("AccessDenied"), denied.toString());
      String metrics = http.send("GET", "/metrics", null, admin).text();
      assertTrue(
          metrics.contains("switchboard_limit_refused_total{limit=\"max-long-polls\"} 0.0"),
          metrics);

      // a signed poll by a key that may receive meets the cap as before
      Http.Answer throttled =
          signedSqs(http, server, "ReceiveMessage", receive, "AKADMIN", "admin-secret");
      assertTrue(throttled.text().contains("RequestThrottled"), throttled.toString());
      metrics = http.send("GET", "/metrics", null, admin).text();
      assertTrue(
          metrics.contains("switchboard_limit_refused_total{limit=\"max-long-polls\"} 1.0"),
          metrics);

      server.stop();
      assertEquals(200, poll.get(30, TimeUnit.SECONDS).status());
    }
  }

  private static Http.Answer signedSqs(
      Http http, SwitchboardServer server, String action, String body, String id, String secret) {
    Map<String, String> headers = new java.util.HashMap<>(SQS_JSON);
    headers.put("X-Amz-Target", "AmazonSQS." + action);
    return http.send(
        "POST",
        "/",
        body,
        AwsSigning.sign(
            "POST",
            server.uri().resolve("/"),
            body.getBytes(StandardCharsets.UTF_8),
            headers,
            id,
            secret,
            "sqs"));
  }
}
