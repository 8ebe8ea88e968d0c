package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.server.config.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (docs/operations.md, "Limits"): a native {@code delaySeconds} out of range was refused
 * as "delay must be 0 seconds..900 seconds", naming the engine's field rather than the one the
 * client sent. The error names the wire field, the range and the value given, and nothing changes.
 */
class DelaySecondsErrorTest {

  private SwitchboardServer server;
  private Http http;

  @BeforeEach
  void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    http = new Http(server.uri());
    assertEquals(201, http.post("/v1/queues", "{\"name\":\"q\"}").status());
  }

  @AfterEach
  void stop() {
    http.close();
    server.stop();
  }

  @Test
  void sendWithDelaySecondsOutOfRange_namesDelaySeconds() {
    assertRefused(http.post("/v1/queues/q/messages", "{\"body\":\"b\",\"delaySeconds\":1000000}"));
    assertEquals(0, http.get("/v1/queues/q/stats").json().at("/counters/sent").asInt());
  }

  @Test
  void queueDelaySecondsOutOfRange_namesDelaySeconds() {
    assertRefused(http.send("PATCH", "/v1/queues/q", "{\"delaySeconds\":1000000}"));
    assertEquals(0, http.get("/v1/queues/q").json().path("delaySeconds").asInt());
  }

  @Test
  void releaseWithDelaySecondsOutOfRange_namesDelaySeconds() {
    assertEquals(201, http.post("/v1/queues/q/messages", "{\"body\":\"b\"}").status());
    String receipt =
        http.post("/v1/queues/q/receive", "{}").json().at("/messages/0/receipt").asText();

    assertRefused(
        http.post("/v1/queues/q/leases/" + receipt + "/release", "{\"delaySeconds\":1000000}"));
    assertEquals(1, http.get("/v1/queues/q/stats").json().at("/inFlight").asInt());
  }

  private static void assertRefused(Http.Answer a) {
    assertEquals(400, a.status(), a.toString());
    assertEquals("INVALID_ARGUMENT", a.code(), a.toString());
    assertEquals(
        "delaySeconds must be 0..900 seconds, got 1000000",
        a.json().get("message").asText(),
        a.toString());
  }
}
