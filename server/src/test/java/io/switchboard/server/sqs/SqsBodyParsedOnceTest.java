package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.QueueEngine;
import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.server.config.SqsAccount;
import io.switchboard.server.security.sigv4.SqsHttpRequest;
import io.switchboard.time.Clock;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Regression (the performance round, docs/benchmarks.md): a JSON-protocol request's body was parsed
 * twice, once to read its action ahead ({@link SqsAction}, for metrics and long polls) and again to
 * serve it. The tree read ahead is now what the endpoint serves; a body the read-ahead could not
 * read is still parsed, and refused, when served.
 */
class SqsBodyParsedOnceTest {

  private static final String BASE = "http://127.0.0.1:9324";

  private final SqsEndpoint endpoint =
      SqsEndpoint.create(
          QueueEngine.inMemory(), new MemoryKeyRing(), SqsAccount.DEFAULT, Clock.system());

  private static SqsHttpRequest json(String action, String body) {
    return new SqsHttpRequest(
        "POST",
        "/",
        "",
        Map.of(
            "x-amz-target", List.of("AmazonSQS." + action),
            "content-type", List.of("application/x-amz-json-1.0")),
        body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void bodyParsedTwice_theTreeReadAheadIsTheOneServed() {
    endpoint.handle(json("CreateQueue", "{\"QueueName\":\"once\"}"), BASE, "r1");
    String url = BASE + "/000000000000/once";
    SqsHttpRequest send =
        json("SendMessage", "{\"QueueUrl\":\"" + url + "\",\"MessageBody\":\"read ahead\"}");
    SqsAction action = endpoint.action(send, BASE);
    assertTrue(action.json().isPresent(), "the body read ahead is kept: " + action);

    // served with the action read ahead, the request's bytes are not parsed again: a request
    // whose bytes were replaced after the read-ahead still sends what was read
    SqsHttpRequest sameHeadersOtherBytes =
        json("SendMessage", "{\"QueueUrl\":\"" + url + "\",\"MessageBody\":\"not this\"}");
    SqsApi.Answer sent = endpoint.handle(sameHeadersOtherBytes, BASE, "r2", action);
    assertEquals(200, sent.status(), new String(sent.body(), StandardCharsets.UTF_8));

    SqsApi.Answer received =
        endpoint.handle(
            json("ReceiveMessage", "{\"QueueUrl\":\"" + url + "\",\"WaitTimeSeconds\":0}"),
            BASE,
            "r3");
    String answer = new String(received.body(), StandardCharsets.UTF_8);
    assertTrue(answer.contains("\"read ahead\""), answer);
  }

  @Test
  void bodyNotJson_notReadAhead_refusedWhenServed() {
    SqsHttpRequest bad = json("SendMessage", "{not json");
    SqsAction action = endpoint.action(bad, BASE);
    assertEquals(Optional.empty(), action.json());
    SqsApi.Answer answer = endpoint.handle(bad, BASE, "r4", action);
    assertEquals(400, answer.status());
    String text = new String(answer.body(), StandardCharsets.UTF_8);
    assertTrue(text.contains("SerializationException"), text);
  }
}
