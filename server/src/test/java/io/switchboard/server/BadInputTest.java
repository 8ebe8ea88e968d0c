package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input gets the documented status and code in the one error shape, and the server keeps
 * serving afterwards.
 */
class BadInputTest {

  private static SwitchboardServer server;
  private static Http http;

  @BeforeAll
  static void start() {
    server =
        SwitchboardServer.start(
            ServerConfig.resolve(
                java.util.Map.of(
                    "port", "0",
                    "in-memory", "true",
                    "max-body-bytes", "65536",
                    "max-batch", "10",
                    "max-selector-length", "100",
                    "max-queues", "5"),
                java.util.Map.of()));
    http = new Http(server.uri());
    http.post("/v1/queues", "{\"name\":\"q\"}");
    http.post("/v1/queues", "{\"name\":\"full\",\"maxDepth\":1}");
    http.post("/v1/queues/full/messages", "{\"body\":\"only\"}");
    http.post("/v1/queues", "{\"name\":\"g.fifo\"}");
  }

  @AfterAll
  static void stop() {
    http.close();
    server.stop();
  }

  @AfterEach
  void serverStillServes() {
    assertEquals(200, http.get("/health").status());
    assertEquals(201, http.post("/v1/queues/q/messages", "{\"body\":\"ok\"}").status());
  }

  static Stream<Arguments> cases() {
    String big = "x".repeat(70_000);
    StringBuilder batch = new StringBuilder("{\"messages\":[");
    for (int i = 0; i < 11; i++) {
      batch.append(i == 0 ? "" : ",").append("{\"body\":\"m\"}");
    }
    batch.append("]}");
    String receipts = "{\"receipts\":[" + "\"r\",".repeat(10) + "\"r\"]}";
    return Stream.of(
        bad("POST", "/v1/queues/q/messages", "{\"body\":", 400, "MALFORMED_JSON"),
        bad("POST", "/v1/queues/q/messages", "{\"body\":\"a\"} trailing", 400, "MALFORMED_JSON"),
        bad(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\":\"a\",\"body\":\"b\"}",
            400,
            "MALFORMED_JSON"),
        bad("POST", "/v1/queues/q/messages", "[1,2]", 400, "INVALID_ARGUMENT"),
        bad("POST", "/v1/queues/q/messages", "{\"body\":42}", 400, "INVALID_ARGUMENT"),
        bad(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\":\"a\",\"priority\":\"5\"}",
            400,
            "INVALID_ARGUMENT"),
        bad(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\":\"a\",\"priority\":1.5}",
            400,
            "INVALID_ARGUMENT"),
        bad(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\":\"a\",\"delaySeconds\":-1}",
            400,
            "INVALID_ARGUMENT"),
        bad(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\":\"a\",\"attributes\":{\"x\":true}}",
            400,
            "INVALID_ARGUMENT"),
        bad(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\":\"a\",\"colour\":\"red\"}",
            400,
            "UNKNOWN_FIELD"),
        bad("POST", "/v1/queues/q/messages", "{}", 400, "INVALID_ARGUMENT"),
        bad("POST", "/v1/queues/q/receive", "{\"maxMessages\":1,\"wait\":3}", 400, "UNKNOWN_FIELD"),
        bad("POST", "/v1/queues/q/receive", "{\"maxMessages\":0}", 400, "INVALID_ARGUMENT"),
        bad("POST", "/v1/queues/q/receive", "{\"waitTimeSeconds\":21}", 400, "INVALID_ARGUMENT"),
        bad("POST", "/v1/queues/q/receive", "{\"selector\":\"lang = \"}", 400, "INVALID_SELECTOR"),
        bad(
            "POST",
            "/v1/queues/q/receive",
            "{\"selector\":\"" + "a = 1 AND ".repeat(12) + "b = 2\"}",
            400,
            "INVALID_SELECTOR"),
        bad("GET", "/v1/queues/q/messages?selector=%28%28", null, 400, "INVALID_SELECTOR"),
        bad("GET", "/v1/queues/q/messages?limit=ten", null, 400, "INVALID_ARGUMENT"),
        bad("GET", "/v1/queues/q/messages?colour=red", null, 400, "UNKNOWN_FIELD"),
        bad("POST", "/v1/queues", "{\"name\":\"bad name\"}", 400, "INVALID_ARGUMENT"),
        bad(
            "POST",
            "/v1/queues",
            "{\"name\":\"v\",\"visibilityTimeoutSeconds\":50000}",
            400,
            "INVALID_ARGUMENT"),
        bad("POST", "/v1/queues", "{\"name\":\"v\",\"order\":\"random\"}", 400, "INVALID_ARGUMENT"),
        bad(
            "POST",
            "/v1/queues",
            "{\"name\":\"v\",\"deadLetter\":{\"target\":\"q\"}}",
            400,
            "INVALID_ARGUMENT"),
        bad(
            "POST",
            "/v1/queues",
            "{\"name\":\"v\",\"deadLetter\":{\"target\":\"q\",\"maxReceiveCount\":3,\"x\":1}}",
            400,
            "UNKNOWN_FIELD"),
        bad("GET", "/v1/queues/nope", null, 404, "QUEUE_NOT_FOUND"),
        bad("POST", "/v1/queues/nope/messages", "{\"body\":\"a\"}", 404, "QUEUE_NOT_FOUND"),
        bad("POST", "/v1/queues/nope/receive", "{}", 404, "QUEUE_NOT_FOUND"),
        bad("GET", "/v1/queues/q/messages/not-an-id", null, 404, "MESSAGE_NOT_FOUND"),
        bad("POST", "/v1/queues/q/leases/garbage/ack", null, 400, "RECEIPT_INVALID"),
        bad("POST", "/v1/queues/q/leases/garbage/release", "{}", 400, "RECEIPT_INVALID"),
        bad("POST", "/v1/queues/q/leases/garbage/extend", "{}", 400, "INVALID_ARGUMENT"),
        bad(
            "POST",
            "/v1/queues/q/messages",
            "{\"body\":\"" + big + "\"}",
            413,
            "PAYLOAD_TOO_LARGE"),
        bad("POST", "/v1/queues/q/messages/batch", batch.toString(), 413, "BATCH_TOO_LARGE"),
        bad("POST", "/v1/queues/q/messages/batch", "{\"messages\":[]}", 400, "INVALID_ARGUMENT"),
        bad("POST", "/v1/queues/q/acks", receipts, 413, "BATCH_TOO_LARGE"),
        bad("POST", "/v1/queues/q/acks", "{\"receipts\":[]}", 400, "INVALID_ARGUMENT"),
        bad("POST", "/v1/queues/q/acks", "{}", 400, "INVALID_ARGUMENT"),
        bad("POST", "/v1/queues/q/acks", "{\"receipts\":\"r\"}", 400, "INVALID_ARGUMENT"),
        bad("POST", "/v1/queues/q/acks", "{\"receipts\":[\"r\",7]}", 400, "INVALID_ARGUMENT"),
        bad("POST", "/v1/queues/q/acks", "{\"receipts\":[\"r\"],\"x\":1}", 400, "UNKNOWN_FIELD"),
        bad("POST", "/v1/queues/q/acks", "{\"receipts\":[\"r\"", 400, "MALFORMED_JSON"),
        bad("POST", "/v1/queues/nope/acks", "{\"receipts\":[\"r\"]}", 404, "QUEUE_NOT_FOUND"),
        bad("GET", "/v1/queues/q/acks", null, 405, "METHOD_NOT_ALLOWED"),
        bad("POST", "/v1/noop", big, 413, "PAYLOAD_TOO_LARGE"),
        bad("POST", "/v1/noop?x=1", null, 400, "UNKNOWN_FIELD"),
        bad("POST", "/v1/noop?answerBytes=9", null, 400, "INVALID_ARGUMENT"),
        bad("POST", "/v1/noop?answerBytes=1048577", null, 400, "INVALID_ARGUMENT"),
        bad("POST", "/v1/noop?answerBytes=big", null, 400, "INVALID_ARGUMENT"),
        bad("POST", "/v1/queues/full/messages", "{\"body\":\"more\"}", 429, "QUEUE_FULL"),
        bad("POST", "/v1/queues/g.fifo/messages", "{\"body\":\"a\"}", 400, "INVALID_ARGUMENT"),
        bad("GET", "/v2/nothing", null, 404, "NOT_FOUND"),
        bad("PUT", "/v1/queues/q", "{}", 405, "METHOD_NOT_ALLOWED"),
        bad("DELETE", "/v1/queues/q/leases/x/ack", null, 405, "METHOD_NOT_ALLOWED"));
  }

  private static Arguments bad(String method, String path, String body, int status, String code) {
    return Arguments.of(method, path, body, status, code);
  }

  @ParameterizedTest(name = "{0} {1} -> {3} {4}")
  @MethodSource("cases")
  void badInput_answersDocumentedStatusAndCode(
      String method, String path, String body, int status, String code) {
    Http.Answer a = http.send(method, path, body);
    assertEquals(status, a.status(), a.toString());
    assertEquals(code, a.code(), a.toString());
    assertTrue(a.json().get("message").asText().length() > 5, a.toString());
    assertTrue(
        a.raw().headers().firstValue("content-type").orElse("").startsWith("application/json"));
    if (status == 429) {
      assertEquals("1", a.raw().headers().firstValue("retry-after").orElse(""));
    }
  }

  @Test
  void tooManyQueues_isRefusedWithConflict() {
    for (int i = 0; i < 5; i++) {
      http.post("/v1/queues", "{\"name\":\"many" + i + "\"}");
    }
    Http.Answer a = http.post("/v1/queues", "{\"name\":\"one-too-many\"}");
    assertEquals(409, a.status(), a.toString());
    assertEquals("TOO_MANY_QUEUES", a.code());
    for (int i = 0; i < 5; i++) {
      http.send("DELETE", "/v1/queues/many" + i, null);
    }
  }

  @Test
  void staleReceipt_isAConflict() {
    http.post("/v1/queues/q/purge", null);
    http.post("/v1/queues/q/messages", "{\"body\":\"s\"}");
    String r1 = http.post("/v1/queues/q/receive", "{}").json().at("/messages/0/receipt").asText();
    http.post("/v1/queues/q/leases/" + r1 + "/extend", "{\"visibilityTimeoutSeconds\":0}");
    http.post("/v1/queues/q/receive", "{}");
    Http.Answer a = http.post("/v1/queues/q/leases/" + r1 + "/ack", null);
    assertEquals(409, a.status(), a.toString());
    assertEquals("RECEIPT_STALE", a.code());
  }

  @Test
  void sqsQueryFormThatCannotBeDecoded_isMalformedQueryString_notAnInternalError() {
    Http.Answer a =
        http.send(
            "POST",
            "/",
            "Action=ReceiveMessage&QueueUrl=%ZZ",
            java.util.Map.of("Content-Type", "application/x-www-form-urlencoded"));
    assertEquals(400, a.status(), a.toString());
    assertTrue(a.text().contains("<Code>MalformedQueryString</Code>"), a.toString());
  }
}
