package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The audit log ({@code switchboard.audit}): one line per refused request with the key id, the
 * action, the resource and the request id, and one per key change; never a secret.
 */
class AuditLogTest {

  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger audit = (Logger) LoggerFactory.getLogger(Audit.LOGGER);
  private SwitchboardServer server;
  private Http http;

  @BeforeEach
  void start() {
    lines.start();
    audit.addAppender(lines);
    audit.setLevel(Level.INFO); // as the server's logback.xml sets it
    server =
        SwitchboardServer.start(
            ServerConfig.forTests()
                .withAccessKeys(io.switchboard.server.auth.AccessKeys.parse("AKADMIN:admin-pw")));
    http = new Http(server.uri());
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

  private static String text(ILoggingEvent e) {
    return e.getFormattedMessage()
        + " "
        + e.getKeyValuePairs().stream()
            .map(kv -> kv.key + "=" + kv.value)
            .collect(Collectors.joining(" "));
  }

  @Test
  void everyRefusal_isOneLine_withKeyActionResourceAndRequestId_neverTheSecret() {
    server
        .keys()
        .put(
            new Principal(
                "AKSEND",
                "send-pw",
                Optional.empty(),
                List.of(Grant.of("orders-*", Action.QUEUE_SEND)),
                Optional.empty()));
    lines.list.clear();

    Http.Answer wrong =
        http.send("GET", "/v1/queues", null, Map.of("Authorization", basic("AKADMIN", "guess-pw")));
    Http.Answer anonymous = http.get("/v1/queues/orders-1/stats");
    Http.Answer denied =
        http.send(
            "DELETE",
            "/v1/queues/orders-1",
            null,
            Map.of("Authorization", basic("AKSEND", "send-pw")));
    assertEquals(
        List.of(401, 401, 403), List.of(wrong.status(), anonymous.status(), denied.status()));

    List<String> logged = lines.list.stream().map(AuditLogTest::text).toList();
    assertEquals(3, logged.size(), logged.toString());
    assertTrue(logged.get(0).contains("key=AKADMIN"), logged.get(0));
    assertTrue(
        logged.get(0).contains(wrong.raw().headers().firstValue("X-Request-Id").orElseThrow()),
        logged.get(0));
    assertTrue(logged.get(1).contains("key=anonymous"), logged.get(1));
    assertTrue(
        logged.get(2).contains("key=AKSEND")
            && logged.get(2).contains("action=queue:admin")
            && logged.get(2).contains("resource=queue/orders-1")
            && logged.get(2).contains("status=403"),
        logged.get(2));
    for (String line : logged) {
      assertFalse(line.contains("guess-pw") || line.contains("send-pw"), line);
    }
  }

  @Test
  void keyChanges_areLogged_withoutTheSecret() {
    lines.list.clear();
    server.keys().put(Principal.admin("AKNEW", "new-pw"));
    server.keys().revoke("AKNEW");
    List<String> logged = lines.list.stream().map(AuditLogTest::text).toList();
    assertEquals(2, logged.size(), logged.toString());
    assertTrue(logged.get(0).contains("event=key-added") && logged.get(0).contains("AKNEW"));
    assertTrue(logged.get(1).contains("event=key-revoked") && logged.get(1).contains("AKNEW"));
    assertFalse(String.join(" ", logged).contains("new-pw"));
  }

  @Test
  void queuePolicyChanges_areLogged_withTheKeyThatMadeThem() {
    try (software.amazon.awssdk.services.sqs.SqsClient sqs =
        software.amazon.awssdk.services.sqs.SqsClient.builder()
            .endpointOverride(server.uri())
            .region(software.amazon.awssdk.regions.Region.US_EAST_1)
            .credentialsProvider(
                software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                    software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                        "AKADMIN", "admin-pw")))
            .build()) {
      String url = sqs.createQueue(r -> r.queueName("audited")).queueUrl();
      lines.list.clear();
      sqs.sendMessage(r -> r.queueUrl(url).messageBody("not a permission change"));
      sqs.addPermission(
          r ->
              r.queueUrl(url)
                  .label("senders")
                  .awsAccountIds(server.config().sqsAccount().id())
                  .actions("SendMessage"));
      sqs.removePermission(r -> r.queueUrl(url).label("senders"));
      List<String> logged = lines.list.stream().map(AuditLogTest::text).toList();
      assertEquals(2, logged.size(), logged.toString());
      assertTrue(
          logged.get(0).contains("event=permission-changed")
              && logged.get(0).contains("key=AKADMIN")
              && logged.get(0).contains("action=AddPermission")
              && logged.get(0).contains("resource=queue/audited"),
          logged.get(0));
      assertTrue(logged.get(1).contains("action=RemovePermission"), logged.get(1));
      assertFalse(String.join(" ", logged).contains("admin-pw"));
    }
  }

  @Test
  void aPolicyAttribute_isToldFromOtherAttributes() {
    assertTrue(namesPolicy("{\"Attributes\":{\"Policy\":\"{}\"}}", ""));
    assertTrue(
        namesPolicy("Action=SetQueueAttributes&Attribute.1.Name=Policy&Attribute.1.Value=x", ""));
    assertTrue(namesPolicy("", "Action=SetQueueAttributes&Attribute.2.Name=Policy"));
    assertFalse(namesPolicy("{\"Attributes\":{\"RedrivePolicy\":\"{}\"}}", ""));
    assertFalse(namesPolicy("Action=SetQueueAttributes&Attribute.1.Name=RedrivePolicy", ""));
  }

  private static boolean namesPolicy(String body, String query) {
    return io.switchboard.server.sqs.SqsEndpoint.namesPolicy(
        new io.switchboard.server.security.sigv4.SqsHttpRequest(
            "POST", "/", query, java.util.Map.of(), body.getBytes(StandardCharsets.UTF_8)));
  }
}
