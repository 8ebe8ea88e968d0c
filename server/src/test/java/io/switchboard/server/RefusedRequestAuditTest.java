package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.switchboard.server.auth.AccessKeys;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Refusals the audit log missed or let a client inflate: a cross-origin refusal (403 {@code
 * CROSS_ORIGIN}) is one audit line like every 401 and 403; an access key id no key can have (over
 * 128 characters, a control character) is refused as any unknown key, not as a bad "system record
 * key"; and what an audit line copies from the request is bounded, with a marker saying so.
 */
class RefusedRequestAuditTest {

  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger audit = (Logger) LoggerFactory.getLogger(Audit.LOGGER);
  private SwitchboardServer server;
  private Http http;

  @BeforeEach
  void start() {
    lines.start();
    audit.addAppender(lines);
    audit.setLevel(Level.INFO);
    server =
        SwitchboardServer.start(
            ServerConfig.forTests().withAccessKeys(AccessKeys.parse("AKADMIN:admin-pw")));
    http = new Http(server.uri());
    lines.list.clear();
  }

  @AfterEach
  void stop() {
    http.close();
    server.stop();
    audit.detachAppender(lines);
    audit.setLevel(null);
  }

  private static String basic(String id, String secret) {
    return "Basic "
        + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
  }

  /** Everything an audit line says: the message and every key-value pair. */
  private List<String> logged() {
    return lines.list.stream()
        .map(
            e ->
                e.getFormattedMessage()
                    + " "
                    + e.getKeyValuePairs().stream()
                        .map(kv -> kv.key + "=" + kv.value)
                        .collect(Collectors.joining(" ")))
        .toList();
  }

  @Test
  void aCrossOriginRefusal_isAudited_withTheKeyItNamedAndTheRequestId() {
    Http.Answer refused =
        http.send(
            "GET",
            "/v1/queues",
            null,
            Map.of(
                "Origin", "https://evil.example", "Authorization", basic("AKADMIN", "admin-pw")));

    assertEquals(403, refused.status(), refused.text());
    assertTrue(refused.text().contains("CROSS_ORIGIN"), refused.text());
    List<String> logged = logged();
    assertEquals(1, logged.size(), logged.toString());
    String line = logged.get(0);
    assertTrue(line.contains("event=refused") && line.contains("status=403"), line);
    assertTrue(line.contains("key=AKADMIN"), line);
    assertTrue(line.contains("evil.example"), line);
    assertTrue(
        line.contains(refused.raw().headers().firstValue("X-Request-Id").orElseThrow()), line);
    assertFalse(line.contains("admin-pw"), line);
  }

  @Test
  void aCrossOriginRefusal_withoutCredentials_isAuditedAsAnonymous() {
    Http.Answer refused =
        http.send("GET", "/v1/queues", null, Map.of("Origin", "https://evil.example"));
    assertEquals(403, refused.status(), refused.text());
    List<String> logged = logged();
    assertEquals(1, logged.size(), logged.toString());
    assertTrue(logged.get(0).contains("key=anonymous"), logged.get(0));
  }

  @Test
  void anOverlongKeyId_isAnUnknownKey_401_andAudited() {
    String id = "A".repeat(600);
    Http.Answer refused =
        http.send("GET", "/v1/queues", null, Map.of("Authorization", basic(id, "x")));

    assertEquals(401, refused.status(), refused.text());
    assertTrue(refused.text().contains("UNAUTHENTICATED"), refused.text());
    assertFalse(refused.text().contains("system record"), refused.text());
    List<String> logged = logged();
    assertEquals(1, logged.size(), logged.toString());
    assertTrue(logged.get(0).contains("status=401"), logged.get(0));
    assertTrue(logged.get(0).contains("truncated: 600 characters"), logged.get(0));
  }

  @Test
  void aKeyIdWithAControlCharacter_isAnUnknownKey_401_andAuditedEscaped() {
    Http.Answer refused =
        http.send("GET", "/v1/queues", null, Map.of("Authorization", basic("AK\nFORGED", "x")));

    assertEquals(401, refused.status(), refused.text());
    assertTrue(refused.text().contains("UNAUTHENTICATED"), refused.text());
    List<String> logged = logged();
    assertEquals(1, logged.size(), logged.toString());
    assertTrue(logged.get(0).contains("key=AK\\nFORGED"), logged.get(0));
    assertFalse(logged.get(0).contains("\n"), logged.get(0));
  }

  @Test
  void anOverlongKeyId_onTheSqsEndpoint_isInvalidClientTokenId_inTheSqsShape_andAudited() {
    String authorization =
        "AWS4-HMAC-SHA256 Credential="
            + "A".repeat(600)
            + "/20261201/us-east-1/sqs/aws4_request, SignedHeaders=host;x-amz-date,"
            + " Signature=00";
    Http.Answer refused =
        http.send(
            "POST",
            "/",
            "{}",
            Map.of(
                "Authorization",
                authorization,
                "X-Amz-Date",
                "20261201T000000Z",
                "X-Amz-Target",
                "AmazonSQS.ListQueues",
                "Content-Type",
                "application/x-amz-json-1.0"));

    assertEquals(403, refused.status(), refused.text());
    assertTrue(refused.text().contains("InvalidClientTokenId"), refused.text());
    assertTrue(refused.raw().headers().firstValue("x-amzn-RequestId").isPresent());
    assertFalse(refused.text().contains("system record"), refused.text());
    List<String> logged = logged();
    assertEquals(1, logged.size(), logged.toString());
    assertTrue(logged.get(0).contains("status=403"), logged.get(0));
  }

  @Test
  void aHugeMalformedSignature_makesABoundedAuditLine_markedTruncated() {
    // 7 KB in the Credential, which the line copies as the key and the reason quotes
    String authorization =
        "AWS4-HMAC-SHA256 Credential=" + "K".repeat(7000) + ", SignedHeaders=host";
    Http.Answer nativeRefusal =
        http.send("GET", "/v1/queues", null, Map.of("Authorization", authorization));
    Http.Answer sqsRefusal =
        http.send(
            "POST",
            "/",
            "Action=ListQueues",
            Map.of(
                "Authorization",
                authorization,
                "Content-Type",
                "application/x-www-form-urlencoded"));

    assertEquals(401, nativeRefusal.status(), nativeRefusal.text());
    assertEquals(400, sqsRefusal.status(), sqsRefusal.text());
    List<String> logged = logged();
    assertEquals(2, logged.size(), logged.toString());
    for (String line : logged) {
      assertTrue(line.length() < 2_500, line.length() + " characters: " + line);
      assertTrue(line.contains("...[truncated: 7000 characters]"), line);
    }
    assertTrue(nativeRefusal.text().length() < 2_000, nativeRefusal.text());
    assertTrue(sqsRefusal.text().length() < 2_000, sqsRefusal.text());
  }
}
