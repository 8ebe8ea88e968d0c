package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.server.config.ServerConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's {@code hot-window} (docs/design.md, "A backlog bigger than memory"): with the
 * embedded store a standard queue keeps only a window of its waiting messages in the heap, so its
 * backlog is not bounded by the heap limits, and every message comes back, in order, after a
 * restart.
 */
class BacklogOnDiskTest {

  @TempDir Path dir;

  /** 200 messages of 200 bytes: about 90 KB as the heap limits count them (256 + body each). */
  private static final int MESSAGES = 200;

  private SwitchboardServer start(String hotWindow) {
    return SwitchboardServer.start(
        ServerConfig.resolve(
            Map.of(
                "port",
                "0",
                "data-dir",
                dir.toString(),
                "hot-window",
                hotWindow,
                "max-queue-bytes",
                "16k"),
            Map.of()));
  }

  private static String body(int i) {
    return String.format("%05d", i) + "x".repeat(195);
  }

  @Test
  void aSmallWindow_holdsABacklogBeyondTheHeapLimit_andReturnsItInOrderAfterARestart() {
    try (SwitchboardServer server = start("4");
        Http http = new Http(server.uri())) {
      assertEquals(201, http.post("/v1/queues", "{\"name\":\"big\"}").status());
      for (int i = 0; i < MESSAGES; i += 10) {
        StringBuilder batch = new StringBuilder("{\"messages\":[");
        for (int j = i; j < i + 10; j++) {
          batch.append(j == i ? "" : ",").append("{\"body\":\"").append(body(j)).append("\"}");
        }
        Http.Answer sent = http.post("/v1/queues/big/messages/batch", batch + "]}");
        // without the window the queue's heap bytes pass max-queue-bytes (16k) near message 70
        assertEquals(201, sent.status(), "batch from " + i + ": " + sent);
      }
      JsonNode stats = http.get("/v1/queues/big/stats").json();
      assertEquals(MESSAGES, stats.get("available").asInt(), stats.toString());
    }

    try (SwitchboardServer server = start("4");
        Http http = new Http(server.uri())) {
      assertEquals(MESSAGES, http.get("/v1/queues/big/stats").json().get("available").asInt());
      List<String> bodies = new ArrayList<>();
      while (bodies.size() < MESSAGES) {
        Http.Answer got =
            http.post(
                "/v1/queues/big/receive", "{\"maxMessages\":7,\"visibilityTimeoutSeconds\":60}");
        assertEquals(200, got.status(), got.toString());
        JsonNode messages = got.json().get("messages");
        assertTrue(messages.size() > 0, "the queue ran dry after " + bodies.size());
        StringBuilder receipts = new StringBuilder("{\"receipts\":[");
        for (int k = 0; k < messages.size(); k++) {
          bodies.add(messages.get(k).get("body").asText());
          receipts.append(k == 0 ? "" : ",").append('"');
          receipts.append(messages.get(k).get("receipt").asText()).append('"');
        }
        assertEquals(200, http.post("/v1/queues/big/acks", receipts + "]}").status());
      }
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < MESSAGES; i++) {
        expected.add(body(i));
      }
      assertEquals(expected, bodies);
      assertEquals(0, http.get("/v1/queues/big/stats").json().get("available").asInt());
    }
  }

  /** Off, the heap holds the whole backlog and its limits hold as before. */
  @Test
  void off_keepsEveryMessageInTheHeap_soTheQueueBytesLimitRefusesTheBacklog() {
    try (SwitchboardServer server = start("off");
        Http http = new Http(server.uri())) {
      assertEquals(201, http.post("/v1/queues", "{\"name\":\"big\"}").status());
      int refusedAt = -1;
      for (int i = 0; i < MESSAGES && refusedAt < 0; i++) {
        Http.Answer sent = http.post("/v1/queues/big/messages", "{\"body\":\"" + body(i) + "\"}");
        if (sent.status() == 429) {
          assertEquals("QUEUE_FULL", sent.code(), sent.toString());
          refusedAt = i;
        } else {
          assertEquals(201, sent.status(), sent.toString());
        }
      }
      assertTrue(refusedAt > 0 && refusedAt < 100, "refused at " + refusedAt);
    }
  }
}
