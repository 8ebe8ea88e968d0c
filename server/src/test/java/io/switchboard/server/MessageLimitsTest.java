package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.server.config.ByteAmount;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The message limits over the native API (docs/operations.md, "Limits"): each refusal is a 429 or
 * 503 with {@code Retry-After} and a stable code, stores nothing, and ends once consumers make
 * room; {@code /metrics} shows each limit and its use.
 */
class MessageLimitsTest {

  private static final String BODY = "x".repeat(60 * 1024);

  private static String message() {
    return "{\"body\":\"" + BODY + "\"}";
  }

  @Test
  void serverBytes_503ServerFull_withRetryAfter_storesNothing_untilConsumed() {
    ServerConfig config =
        ServerConfig.forTests().with(Settings.MAX_QUEUED_BYTES, ByteAmount.ofBytes(1 << 20));
    try (SwitchboardServer server = SwitchboardServer.start(config);
        Http http = new Http(server.uri())) {
      http.post("/v1/queues", "{\"name\":\"a\"}");
      http.post("/v1/queues", "{\"name\":\"b\"}");
      int accepted = 0;
      Http.Answer refused = null;
      for (int i = 0; i < 100 && refused == null; i++) {
        Http.Answer a =
            http.post("/v1/queues/" + (i % 2 == 0 ? "a" : "b") + "/messages", message());
        if (a.status() == 201) {
          accepted++;
        } else {
          refused = a;
        }
      }
      assertEquals(16, accepted, "1 MiB holds 16 messages of 60 KiB + 256 bytes");
      assertEquals(503, refused.status(), refused.toString());
      assertEquals("SERVER_FULL", refused.code());
      assertEquals("1", refused.raw().headers().firstValue("Retry-After").orElse(""));
      assertEquals(8, depth(http, "a"));
      assertEquals(8, depth(http, "b"));
      assertEquals(200, http.get("/health").status());

      String metrics = http.get("/metrics").text();
      assertTrue(
          metrics.contains("switchboard_limit{limit=\"max-queued-bytes\"} 1048576.0"), metrics);
      assertTrue(
          metrics.contains(
              "switchboard_limit_used{limit=\"max-queued-bytes\"} " + 16.0 * (BODY.length() + 256)),
          metrics);
      assertTrue(metrics.contains("switchboard_queue_bytes{queue=\"a\"}"), metrics);
      assertTrue(metrics.contains("switchboard_queue_lock_hold_longest_seconds"), metrics);
      assertTrue(metrics.contains("switchboard_queue_lock_hold_examined_most"), metrics);

      String receipt =
          http.post("/v1/queues/a/receive", "{}").json().at("/messages/0/receipt").asText();
      assertEquals(204, http.post("/v1/queues/a/leases/" + receipt + "/ack", null).status());
      assertEquals(201, http.post("/v1/queues/b/messages", message()).status());
    }
  }

  @Test
  void queueBytes_429QueueFull_otherQueuesStillAccept() {
    ServerConfig config =
        ServerConfig.forTests().with(Settings.MAX_QUEUE_BYTES, ByteAmount.ofBytes(256 << 10));
    try (SwitchboardServer server = SwitchboardServer.start(config);
        Http http = new Http(server.uri())) {
      http.post("/v1/queues", "{\"name\":\"a\"}");
      http.post("/v1/queues", "{\"name\":\"b\"}");
      for (int i = 0; i < 4; i++) {
        assertEquals(201, http.post("/v1/queues/a/messages", message()).status());
      }
      Http.Answer full = http.post("/v1/queues/a/messages", message());
      assertEquals(429, full.status(), full.toString());
      assertEquals("QUEUE_FULL", full.code());
      assertTrue(full.text().contains("max-queue-bytes"), full.text());
      assertEquals("1", full.raw().headers().firstValue("Retry-After").orElse(""));
      assertEquals(4, depth(http, "a"));
      assertEquals(201, http.post("/v1/queues/b/messages", message()).status());
    }
  }

  @Test
  void defaultMaxDepth_429QueueFull() {
    ServerConfig config = ServerConfig.forTests().with(Settings.DEFAULT_MAX_DEPTH, 2);
    try (SwitchboardServer server = SwitchboardServer.start(config);
        Http http = new Http(server.uri())) {
      http.post("/v1/queues", "{\"name\":\"a\"}");
      http.post("/v1/queues/a/messages", "{\"body\":\"1\"}");
      http.post("/v1/queues/a/messages", "{\"body\":\"2\"}");
      Http.Answer full = http.post("/v1/queues/a/messages", "{\"body\":\"3\"}");
      assertEquals(429, full.status(), full.toString());
      assertEquals("QUEUE_FULL", full.code());
      assertTrue(full.text().contains("default-max-depth"), full.text());
      assertEquals(2, depth(http, "a"));
      assertTrue(
          http.get("/metrics")
              .text()
              .contains("switchboard_limit_used{limit=\"default-max-depth\"} 2.0"));
    }
  }

  @Test
  void inFlight_429OverLimit_withRetryAfter_untilAcked() {
    ServerConfig config = ServerConfig.forTests().with(Settings.MAX_IN_FLIGHT, 2);
    try (SwitchboardServer server = SwitchboardServer.start(config);
        Http http = new Http(server.uri())) {
      http.post("/v1/queues", "{\"name\":\"a\"}");
      for (int i = 0; i < 3; i++) {
        http.post("/v1/queues/a/messages", "{\"body\":\"m" + i + "\"}");
      }
      JsonNode got = http.post("/v1/queues/a/receive", "{\"maxMessages\":10}").json();
      assertEquals(2, got.at("/messages").size());
      Http.Answer over = http.post("/v1/queues/a/receive", "{\"maxMessages\":10}");
      assertEquals(429, over.status(), over.toString());
      assertEquals("OVER_LIMIT", over.code());
      assertEquals("1", over.raw().headers().firstValue("Retry-After").orElse(""));
      assertTrue(
          http.get("/metrics")
              .text()
              .contains("switchboard_limit_used{limit=\"max-in-flight\"} 2.0"));

      String receipt = got.at("/messages/0/receipt").asText();
      http.post("/v1/queues/a/leases/" + receipt + "/ack", null);
      assertEquals(
          1,
          http.post("/v1/queues/a/receive", "{\"maxMessages\":10}").json().at("/messages").size());
    }
  }

  @Test
  void answerBytes_browsePagesWithACursor_receiveReturnsFewer() {
    ServerConfig config =
        ServerConfig.forTests().with(Settings.MAX_ANSWER_BYTES, ByteAmount.ofBytes(128 << 10));
    try (SwitchboardServer server = SwitchboardServer.start(config);
        Http http = new Http(server.uri())) {
      http.post("/v1/queues", "{\"name\":\"a\"}");
      for (int i = 0; i < 5; i++) {
        assertEquals(201, http.post("/v1/queues/a/messages", message()).status());
      }
      Set<String> seen = new HashSet<>();
      JsonNode page = http.get("/v1/queues/a/messages?limit=100").json();
      int pages = 1;
      page.at("/messages").forEach(m -> seen.add(m.at("/id").asText()));
      assertEquals(2, page.at("/messages").size(), "two 60 KiB bodies fit in 128 KiB");
      while (page.hasNonNull("nextCursor")) {
        String cursor = URLEncoder.encode(page.at("/nextCursor").asText(), StandardCharsets.UTF_8);
        page = http.get("/v1/queues/a/messages?limit=100&cursor=" + cursor).json();
        page.at("/messages").forEach(m -> seen.add(m.at("/id").asText()));
        pages++;
      }
      assertEquals(5, seen.size());
      assertEquals(3, pages);
      assertEquals(
          2,
          http.post("/v1/queues/a/receive", "{\"maxMessages\":10}").json().at("/messages").size());
    }
  }

  private static long depth(Http http, String queue) {
    JsonNode stats = http.get("/v1/queues/" + queue + "/stats").json();
    return stats.at("/available").asLong()
        + stats.at("/delayed").asLong()
        + stats.at("/inFlight").asLong();
  }
}
