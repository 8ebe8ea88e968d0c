package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.server.config.ServerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Bounded load: 2,000 long polls held at once, each with its own selector, then one matching
 * message per waiter. Every waiter must get exactly its message, and no poll may outlive its
 * deadline. Nothing sleeps: the test watches the queue's waiting-receiver count, then waits on
 * futures with timeouts.
 *
 * <p>On a loaded machine opening 2,000 polls can take longer than one poll's wait; a poll that
 * reaches its deadline empty-handed is correct behaviour, so such a waiter polls again (as every
 * SQS consumer does). What must never happen is a poll answered late, a message given to the wrong
 * waiter, or a message lost.
 */
class LongPollLoadTest {

  private static final int WAITERS = 2_000;
  private static final int WAIT_SECONDS = 20;

  private record Result(int slot, Http.Answer answer, long longestPollNanos) {}

  @Test
  void twoThousandLongPolls_areEachAnsweredWithTheirMessage_beforeTheirDeadline() throws Exception {
    // The executor is closed last, after the server: a poller still looping when an assertion
    // fails then ends with the server instead of holding the close (and the build) forever.
    long pollersStopBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(5 * WAIT_SECONDS);
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        Http control = new Http(server.uri());
        Http pollers = new Http(server.uri())) {
      assertEquals(
          201,
          control
              .post("/v1/queues", "{\"name\":\"load\",\"indexedAttributes\":[\"slot\"]}")
              .status());

      List<CompletableFuture<Result>> futures = new ArrayList<>(WAITERS);
      for (int i = 0; i < WAITERS; i++) {
        int slot = i;
        futures.add(
            CompletableFuture.supplyAsync(
                () -> {
                  long longest = 0;
                  while (true) {
                    long start = System.nanoTime();
                    Http.Answer a =
                        pollers.post(
                            "/v1/queues/load/receive",
                            "{\"waitTimeSeconds\":"
                                + WAIT_SECONDS
                                + ",\"selector\":\"slot = "
                                + slot
                                + "\"}");
                    longest = Math.max(longest, System.nanoTime() - start);
                    if (a.status() != 200
                        || !a.json().get("messages").isEmpty()
                        || System.nanoTime() > pollersStopBy) {
                      return new Result(slot, a, longest);
                    }
                  }
                },
                threads));
      }

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3 * WAIT_SECONDS);
      int waiting = 0;
      while (waiting < WAITERS && System.nanoTime() < deadline) {
        waiting = control.get("/v1/queues/load/stats").json().get("waitingReceivers").asInt();
      }
      assertEquals(WAITERS, waiting, "all long polls should be blocked on the queue at once");

      for (int from = 0; from < WAITERS; from += 100) {
        StringBuilder batch = new StringBuilder("{\"messages\":[");
        for (int i = from; i < from + 100; i++) {
          batch
              .append(i == from ? "" : ",")
              .append("{\"body\":\"for-")
              .append(i)
              .append("\",\"attributes\":{\"slot\":")
              .append(i)
              .append("}}");
        }
        batch.append("]}");
        assertEquals(
            201, control.post("/v1/queues/load/messages/batch", batch.toString()).status());
      }

      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
          .get(WAIT_SECONDS + 30, TimeUnit.SECONDS);
      Duration limit = Duration.ofSeconds(WAIT_SECONDS + 5);
      for (CompletableFuture<Result> f : futures) {
        Result r = f.get();
        assertEquals(200, r.answer().status(), r.answer().toString());
        JsonNode messages = r.answer().json().get("messages");
        assertEquals(1, messages.size(), "waiter " + r.slot() + ": " + r.answer());
        assertEquals("for-" + r.slot(), messages.get(0).get("body").asText());
        assertTrue(
            Duration.ofNanos(r.longestPollNanos()).compareTo(limit) < 0,
            "a poll of waiter " + r.slot() + " took " + Duration.ofNanos(r.longestPollNanos()));
      }
      JsonNode stats = control.get("/v1/queues/load/stats").json();
      assertEquals(WAITERS, stats.get("inFlight").asInt());
      assertEquals(0, stats.get("waitingReceivers").asInt());
    }
  }
}
