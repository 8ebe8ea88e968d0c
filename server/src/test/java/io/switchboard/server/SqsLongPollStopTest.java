package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Regression (docs/operations.md, "Stopping"): a graceful stop waited the whole grace period for an
 * SQS {@code ReceiveMessage} long poll, because only native receives counted as long polls. An SQS
 * long poll, in either protocol and whether it names its wait or takes the queue's, now ends at
 * once with no messages, as a native one does.
 */
class SqsLongPollStopTest {

  /** As long as the longest SQS wait: a stop held by the poll would take all of it. */
  private static final int GRACE_SECONDS = 20;

  @Test
  void stop_withAnSqsJsonLongPollInFlight_answersItEmptyAndCompletesPromptly() throws Exception {
    try (Stopping s = new Stopping()) {
      s.createQueue("q", 0);
      CompletableFuture<Http.Answer> poll =
          CompletableFuture.supplyAsync(
              () ->
                  s.json(
                      "ReceiveMessage",
                      "{\"QueueUrl\":\"" + s.url("q") + "\",\"WaitTimeSeconds\":20}"));

      Http.Answer answer = s.stopWhileParked("q", poll);

      assertEquals(200, answer.status(), answer.toString());
      assertEquals(0, answer.json().path("Messages").size(), answer.toString());
    }
  }

  @Test
  void stop_withAnSqsQueryLongPollInFlight_answersItEmptyAndCompletesPromptly() throws Exception {
    try (Stopping s = new Stopping()) {
      s.createQueue("q", 0);
      CompletableFuture<Http.Answer> poll =
          CompletableFuture.supplyAsync(
              () ->
                  s.query(
                      "/",
                      "Action=ReceiveMessage&Version=2012-11-05&WaitTimeSeconds=20&QueueUrl="
                          + s.url("q")));

      Http.Answer answer = s.stopWhileParked("q", poll);

      assertEquals(200, answer.status(), answer.toString());
      assertTrue(answer.text().contains("ReceiveMessageResult"), answer.toString());
      assertFalse(answer.text().contains("<Message>"), answer.toString());
    }
  }

  @Test
  void stop_withAnSqsLongPollOnTheQueuesDefaultWait_answersItEmptyAndCompletesPromptly()
      throws Exception {
    try (Stopping s = new Stopping()) {
      s.createQueue("q", 20);
      // query protocol posted to the queue URL, naming neither the queue nor a wait
      CompletableFuture<Http.Answer> poll =
          CompletableFuture.supplyAsync(
              () -> s.query("/000000000000/q", "Action=ReceiveMessage&Version=2012-11-05"));

      Http.Answer answer = s.stopWhileParked("q", poll);

      assertEquals(200, answer.status(), answer.toString());
      assertFalse(answer.text().contains("<Message>"), answer.toString());
    }
  }

  /** A server with a long grace period, raw SQS requests to it, and a stop timed. */
  private static final class Stopping implements AutoCloseable {
    final SwitchboardServer server =
        SwitchboardServer.start(
            ServerConfig.resolve(
                Map.of(
                    "port",
                    "0",
                    "in-memory",
                    "true",
                    "shutdown-grace-seconds",
                    Integer.toString(GRACE_SECONDS)),
                Map.of()));
    final Http http = new Http(server.uri());

    String url(String queue) {
      return server.uri() + "/000000000000/" + queue;
    }

    void createQueue(String name, int receiveWaitSeconds) {
      Http.Answer created =
          json(
              "CreateQueue",
              "{\"QueueName\":\""
                  + name
                  + "\",\"Attributes\":{\"ReceiveMessageWaitTimeSeconds\":\""
                  + receiveWaitSeconds
                  + "\"}}");
      assertEquals(200, created.status(), created.toString());
    }

    /**
     * Waits until the poll is parked on {@code queue}, stops the server, and returns the poll's
     * answer once the stop has completed well within the grace period.
     */
    Http.Answer stopWhileParked(String queue, CompletableFuture<Http.Answer> poll)
        throws Exception {
      while (http.get("/v1/queues/" + queue + "/stats").json().get("waitingReceivers").asInt()
          < 1) {
        assertFalse(poll.isDone(), () -> "the poll ended before it parked: " + poll.join());
        Thread.onSpinWait();
      }
      long start = System.nanoTime();
      server.stop();
      long stopSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
      assertTrue(
          stopSeconds < GRACE_SECONDS / 2,
          "the stop took " + stopSeconds + " s of a " + GRACE_SECONDS + " s grace period");
      return poll.get(GRACE_SECONDS, TimeUnit.SECONDS);
    }

    Http.Answer json(String action, String body) {
      return http.send(
          "POST",
          "/",
          body,
          Map.of(
              "X-Amz-Target", "AmazonSQS." + action, "Content-Type", "application/x-amz-json-1.0"));
    }

    Http.Answer query(String path, String form) {
      return http.send(
          "POST", path, form, Map.of("Content-Type", "application/x-www-form-urlencoded"));
    }

    @Override
    public void close() {
      http.close();
      server.stop();
    }
  }
}
