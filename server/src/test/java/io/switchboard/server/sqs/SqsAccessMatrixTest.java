package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.AwsSigning;
import io.switchboard.server.ServerConfig;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Every SQS action this endpoint serves × {no signature, a wrong secret, a key lacking the action's
 * access, a key with it}: {@code MissingAuthenticationToken}, {@code SignatureDoesNotMatch}, {@code
 * AccessDenied} (403), and anything but those. The actions come from the endpoint's own list, so a
 * new action is covered without editing this test, and one without an access mapping fails it.
 */
class SqsAccessMatrixTest {

  private static final String QUEUE = "matrix-q";
  private static SwitchboardServer server;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    server.keys().put(Principal.admin("AKADMIN", "admin-secret"));
    for (Action a : List.of(Action.values())) {
      if (a.onQueues()) {
        server.keys().put(key("HAS-" + a.name(), EnumSet.of(a)));
        Set<Action> others = EnumSet.allOf(Action.class);
        others.remove(a);
        others.remove(Action.ADMIN);
        others.remove(Action.ROUTING_AGENT);
        server.keys().put(key("LACKS-" + a.name(), others));
      }
    }
  }

  @AfterAll
  static void stop() {
    server.stop();
  }

  private static Principal key(String id, Set<Action> actions) {
    return new Principal(
        id, "s-" + id, Optional.empty(), List.of(new Grant(actions, "*")), Optional.empty());
  }

  private record Answer(int status, String body) {
    String code() {
      int at = body.indexOf("com.amazonaws.sqs#");
      return at < 0 ? "" : body.substring(at + 18, body.indexOf('"', at));
    }
  }

  /** A JSON-protocol request naming {@link #QUEUE} every way an action may name a queue. */
  private static Answer call(String action, Optional<String> keyId, Optional<String> secret)
      throws Exception {
    String account = server.config().sqsAccount().id();
    String body =
        switch (action) {
          case "CreateQueue", "GetQueueUrl" -> "{\"QueueName\":\"" + QUEUE + "\"}";
          case "ListQueues" -> "{}";
          case "StartMessageMoveTask", "ListMessageMoveTasks" ->
              "{\"SourceArn\":\"arn:aws:sqs:us-east-1:" + account + ":" + QUEUE + "\"}";
          case "CancelMessageMoveTask" -> "{\"TaskHandle\":\"bm8tc3VjaC10YXNr\"}";
          default -> "{\"QueueUrl\":\"" + server.uri() + "/" + account + "/" + QUEUE + "\"}";
        };
    URI uri = server.uri().resolve("/");
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Type", "application/x-amz-json-1.0");
    headers.put("X-Amz-Target", "AmazonSQS." + action);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    if (keyId.isPresent()) {
      headers =
          AwsSigning.sign("POST", uri, bytes, headers, keyId.get(), secret.orElseThrow(), "sqs");
    }
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofByteArray(bytes));
    headers.forEach(b::header);
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body());
  }

  @Test
  void everyServedAction_hasAnAccessMapping() {
    assertEquals(new TreeSet<>(SqsApi.actions()), new TreeSet<>(SqsAction.ACCESS.keySet()));
  }

  @Test
  void everyAction_isRefusedWithoutAValidKeyOrGrant_andAdmittedWithIt() throws Exception {
    for (String action : new TreeSet<>(SqsApi.actions())) {
      Action needed = SqsAction.ACCESS.get(action);
      Answer none = call(action, Optional.empty(), Optional.empty());
      assertEquals("MissingAuthenticationToken", none.code(), action + " -> " + none);
      Answer wrong = call(action, Optional.of("AKADMIN"), Optional.of("not-the-secret"));
      assertEquals("SignatureDoesNotMatch", wrong.code(), action + " -> " + wrong);
      String lacks = "LACKS-" + needed.name();
      Answer denied = call(action, Optional.of(lacks), Optional.of("s-" + lacks));
      assertEquals(403, denied.status(), action + " -> " + denied);
      assertEquals("AccessDeniedException", denied.code(), action + " -> " + denied);
      assertTrue(denied.body().contains(needed.wireName()), action + " -> " + denied);
      String has = "HAS-" + needed.name();
      Answer admitted = call(action, Optional.of(has), Optional.of("s-" + has));
      assertFalse(
          Set.of("AccessDeniedException", "MissingAuthenticationToken", "SignatureDoesNotMatch")
              .contains(admitted.code()),
          action + " -> " + admitted);
    }
  }

  @Test
  void aKeyForSomeQueues_reachesThoseOnly_throughTheSdk() {
    server
        .keys()
        .put(
            new Principal(
                "ORDERS",
                "orders-secret",
                Optional.of("orders service"),
                List.of(Grant.parse("queue:send,queue:admin,queue:browse on orders-*")),
                Optional.empty()));
    try (SqsClient sqs =
        SqsClient.builder()
            .endpointOverride(server.uri())
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create("ORDERS", "orders-secret")))
            .build()) {
      String url = sqs.createQueue(r -> r.queueName("orders-1")).queueUrl();
      sqs.sendMessage(r -> r.queueUrl(url).messageBody("hello"));
      SqsException receive =
          assertThrows(SqsException.class, () -> sqs.receiveMessage(r -> r.queueUrl(url)));
      assertEquals("AccessDenied", receive.awsErrorDetails().errorCode());
      assertEquals(403, receive.statusCode());
      SqsException other =
          assertThrows(SqsException.class, () -> sqs.createQueue(r -> r.queueName("billing")));
      assertEquals("AccessDenied", other.awsErrorDetails().errorCode());
      assertTrue(other.getMessage().contains("queue 'billing'"), other.getMessage());
    }
  }
}
