package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Regression (docs/operations.md, "Limits"): a number out of a field's range — far too big,
 * negative, or a fraction where whole seconds are expected — is a 400 naming the field, on every
 * surface and for every numeric field of a duration; never arithmetic overflow and a 500.
 */
class OutOfRangeNumbersTest {

  /** Long.MAX_VALUE, a negative, a fraction, and a number no integer type holds. */
  private static final List<String> VALUES = List.of("9223372036854775807", "-1", "1.5", "1e30");

  private static SwitchboardServer server;
  private static Http http;
  private static String sqsQueueUrl;

  @BeforeAll
  static void start() {
    server =
        SwitchboardServer.start(
            ServerConfig.resolve(Map.of("port", "0", "in-memory", "true"), Map.of()));
    http = new Http(server.uri());
    http.post("/v1/queues", "{\"name\":\"q\"}");
    sqsQueueUrl = sqs("CreateQueue", "{\"QueueName\":\"sq\"}").json().get("QueueUrl").asText();
  }

  @AfterAll
  static void stop() {
    http.close();
    server.stop();
  }

  @AfterEach
  void serverStillServes() {
    assertEquals(200, http.get("/health").status());
  }

  static Stream<Arguments> nativeFields() {
    List<Arguments> out = new ArrayList<>();
    for (String v : VALUES) {
      out.add(nat("POST", "/v1/queues/q/messages", "{\"body\":\"b\",\"delaySeconds\":%s}", v));
      out.add(nat("POST", "/v1/queues/q/messages", "{\"body\":\"b\",\"timeToLiveSeconds\":%s}", v));
      out.add(nat("POST", "/v1/queues/q/receive", "{\"visibilityTimeoutSeconds\":%s}", v));
      out.add(nat("POST", "/v1/queues/q/receive", "{\"waitTimeSeconds\":%s}", v));
      out.add(nat("POST", "/v1/queues/q/receive", "{\"maxMessages\":%s}", v));
      for (String field :
          List.of(
              "visibilityTimeoutSeconds",
              "delaySeconds",
              "retentionSeconds",
              "receiveWaitSeconds",
              "historyRetentionSeconds")) {
        out.add(nat("PATCH", "/v1/queues/q", "{\"" + field + "\":%s}", v));
        out.add(nat("POST", "/v1/queues", "{\"name\":\"n\",\"" + field + "\":%s}", v));
      }
    }
    return out.stream();
  }

  private static Arguments nat(String method, String path, String body, String value) {
    return Arguments.of(method, path, body.formatted(value));
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("nativeFields")
  void nativeApi_outOfRangeNumber_isInvalidArgument_notAnInternalError(
      String method, String path, String body) {
    Http.Answer a = http.send(method, path, body);
    assertEquals(400, a.status(), a.toString());
    assertEquals("INVALID_ARGUMENT", a.code(), a.toString());
    // the engine names the duration without its wire unit: delaySeconds -> delay
    String field = body.replaceAll(".*\"(\\w+)\":[-0-9.e]+}$", "$1").replace("Seconds", "");
    assertTrue(a.json().get("message").asText().contains(field), a.toString());
  }

  static Stream<Arguments> sqsFields() {
    List<Arguments> out = new ArrayList<>();
    for (String v : VALUES) {
      out.add(sqsCase("SendMessage", "\"MessageBody\":\"b\",\"DelaySeconds\":%s", v));
      out.add(sqsCase("ReceiveMessage", "\"VisibilityTimeout\":%s", v));
      out.add(sqsCase("ReceiveMessage", "\"WaitTimeSeconds\":%s", v));
      out.add(sqsCase("ReceiveMessage", "\"MaxNumberOfMessages\":%s", v));
      out.add(
          sqsCase(
              "SendMessageBatch",
              "\"Entries\":[{\"Id\":\"a\",\"MessageBody\":\"b\",\"DelaySeconds\":%s}]",
              v));
      for (String attribute :
          List.of(
              "VisibilityTimeout",
              "DelaySeconds",
              "MessageRetentionPeriod",
              "ReceiveMessageWaitTimeSeconds",
              "MaximumMessageSize")) {
        out.add(sqsCase("SetQueueAttributes", "\"Attributes\":{\"" + attribute + "\":\"%s\"}", v));
      }
    }
    return out.stream();
  }

  private static Arguments sqsCase(String action, String members, String value) {
    return Arguments.of(action, members.formatted(value));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("sqsFields")
  void sqsApi_outOfRangeNumber_isA400_notAnInternalError(String action, String members) {
    Http.Answer a = sqs(action, "{\"QueueUrl\":\"" + sqsQueueUrl + "\"," + members + "}");
    assertFalse(a.text().contains("InternalError"), a.toString());
    if (action.endsWith("Batch")) { // a bad entry fails alone, as SQS answers it
      assertEquals(200, a.status(), a.toString());
      assertEquals("InvalidParameterValue", a.json().at("/Failed/0/Code").asText(), a.toString());
    } else {
      assertEquals(400, a.status(), a.toString());
      assertTrue(a.json().path("__type").asText().contains("Invalid"), a.toString());
    }
  }

  private static Http.Answer sqs(String action, String body) {
    return http.send(
        "POST",
        "/",
        body,
        Map.of(
            "X-Amz-Target", "AmazonSQS." + action, "Content-Type", "application/x-amz-json-1.0"));
  }
}
