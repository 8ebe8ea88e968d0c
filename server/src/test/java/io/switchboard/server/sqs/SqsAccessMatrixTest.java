package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.AwsSigning;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
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

  /** A JSON-protocol request of {@code action} with {@code body}, signed by {@code keyId}. */
  private static Answer json(String action, String body, String keyId) throws Exception {
    URI uri = server.uri().resolve("/");
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Type", "application/x-amz-json-1.0");
    headers.put("X-Amz-Target", "AmazonSQS." + action);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    headers = AwsSigning.sign("POST", uri, bytes, headers, keyId, "s-" + keyId, "sqs");
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofByteArray(bytes));
    headers.forEach(b::header);
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body());
  }

  /** As the admin, through the JSON protocol; must succeed. */
  private static Answer admin(String action, String body) throws Exception {
    Answer a = json(action, body, "AKADMIN-SQ");
    assertEquals(200, a.status(), action + " " + body + " -> " + a);
    return a;
  }

  /** The same through the native API (what SQS cannot say: onExpire). */
  private static void nativeAdmin(String method, String path, String body) throws Exception {
    HttpRequest r =
        HttpRequest.newBuilder(server.uri().resolve(path))
            .method(method, HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json")
            .header(
                "Authorization",
                "Basic "
                    + java.util.Base64.getEncoder()
                        .encodeToString("AKADMIN:admin-secret".getBytes(StandardCharsets.UTF_8)))
            .build();
    HttpResponse<String> a = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
    assertTrue(a.statusCode() < 300, path + " -> " + a.body());
  }

  private static String arn(String queue) {
    return "arn:aws:sqs:us-east-1:" + server.config().sqsAccount().id() + ":" + queue;
  }

  private static String url(String queue) {
    return server.uri() + "/" + server.config().sqsAccount().id() + "/" + queue;
  }

  private static String redrivePolicy(String target) {
    return "\"RedrivePolicy\":\"{\\\"deadLetterTargetArn\\\":\\\""
        + arn(target)
        + "\\\",\\\"maxReceiveCount\\\":\\\"3\\\"}\"";
  }

  private static void create(String queue, String attributes) throws Exception {
    admin(
        "CreateQueue",
        "{\"QueueName\":\""
            + queue
            + "\""
            + (attributes.isEmpty() ? "" : ",\"Attributes\":{" + attributes + "}")
            + "}");
  }

  /** One SQS action naming a second queue: setup as the admin, then the action's body. */
  private record SecondQueue(String action, java.util.concurrent.Callable<String> setup) {}

  private static List<SecondQueue> secondQueueActions() {
    return List.of(
        new SecondQueue(
            "CreateQueue",
            () -> {
              create("svault-1", "");
              return "{\"QueueName\":\"ssq1-a\",\"Attributes\":{"
                  + redrivePolicy("svault-1")
                  + "}}";
            }),
        new SecondQueue(
            "SetQueueAttributes",
            () -> {
              create("svault-2", "");
              create("ssq2-a", "");
              return "{\"QueueUrl\":\""
                  + url("ssq2-a")
                  + "\",\"Attributes\":{"
                  + redrivePolicy("svault-2")
                  + "}}";
            }),
        new SecondQueue(
            "StartMessageMoveTask",
            () -> {
              create("svault-3", "");
              create("ssq3-dlq", "");
              create("ssq3-src", redrivePolicy("ssq3-dlq"));
              return "{\"SourceArn\":\""
                  + arn("ssq3-dlq")
                  + "\",\"DestinationArn\":\""
                  + arn("svault-3")
                  + "\"}";
            }));
  }

  private static void secondQueueKeys() {
    server.keys().put(Principal.admin("AKADMIN-SQ", "s-AKADMIN-SQ"));
    for (String id : List.of("SQ-LACKS", "SQ-HAS")) {
      List<Grant> grants = new java.util.ArrayList<>();
      grants.add(Grant.parse("queue:admin,queue:send,queue:receive,queue:browse on ssq*"));
      if (id.equals("SQ-HAS")) {
        grants.add(Grant.parse("queue:send on svault-*"));
      }
      server.keys().put(new Principal(id, "s-" + id, Optional.empty(), grants, Optional.empty()));
    }
  }

  @Test
  void everyActionNamingASecondQueue_needsSendOnIt_whateverItsGrantsOnTheFirst() throws Exception {
    secondQueueKeys();
    for (SecondQueue row : secondQueueActions()) {
      String body = row.setup().call();
      Answer denied = json(row.action(), body, "SQ-LACKS");
      assertEquals(403, denied.status(), row.action() + " -> " + denied);
      assertEquals("AccessDeniedException", denied.code(), row.action() + " -> " + denied);
      assertTrue(
          denied.body().contains("SQ-LACKS")
              && denied.body().matches("(?s).*queue:send on queue 'svault-\\d'.*"),
          row.action() + " names the key, the right and the queue -> " + denied);
      Answer admitted = json(row.action(), body, "SQ-HAS");
      assertEquals(200, admitted.status(), row.action() + " -> " + admitted);
    }
  }

  /**
   * Receiving from, and sending to, a queue with a dead-letter target needs nothing on the target,
   * as on AWS: the moves there are checked against the key that set the target.
   */
  @Test
  void aConsumerAndAProducerOfAQueueWithARedrivePolicy_needOnlyTheirOwnQueue() throws Exception {
    server.keys().put(Principal.admin("AKADMIN-SQ", "s-AKADMIN-SQ"));
    for (String[] key :
        List.of(
            new String[] {"SQ-RECEIVER", "queue:receive on ssq4-a"},
            new String[] {"SQ-SENDER", "queue:send on ssq5-a"})) {
      server
          .keys()
          .put(
              new Principal(
                  key[0],
                  "s-" + key[0],
                  Optional.empty(),
                  List.of(Grant.parse(key[1])),
                  Optional.empty()));
    }
    create("svault-4", "");
    create("ssq4-a", redrivePolicy("svault-4"));
    admin("SendMessage", "{\"QueueUrl\":\"" + url("ssq4-a") + "\",\"MessageBody\":\"b\"}");
    Answer received =
        json("ReceiveMessage", "{\"QueueUrl\":\"" + url("ssq4-a") + "\"}", "SQ-RECEIVER");
    assertEquals(200, received.status(), received.toString());
    assertTrue(received.body().contains("\"ReceiptHandle\""), received.toString());

    create("svault-5", "");
    nativeAdmin(
        "POST",
        "/v1/queues",
        "{\"name\":\"ssq5-a\",\"onExpire\":\"deadLetter\",\"deadLetter\":{\"target\":\"svault-5\",\"maxReceiveCount\":3}}");
    Answer sent =
        json(
            "SendMessage",
            "{\"QueueUrl\":\"" + url("ssq5-a") + "\",\"MessageBody\":\"b\"}",
            "SQ-SENDER");
    assertEquals(200, sent.status(), sent.toString());
    Answer batch =
        json(
            "SendMessageBatch",
            "{\"QueueUrl\":\""
                + url("ssq5-a")
                + "\",\"Entries\":[{\"Id\":\"1\",\"MessageBody\":\"b\"}]}",
            "SQ-SENDER");
    assertEquals(200, batch.status(), batch.toString());
  }

  /** A move task back to the sources checks each message's source as it moves it. */
  @Test
  void aMoveTaskBackToTheSources_stopsAtASourceTheKeyMayNotSendTo() throws Exception {
    secondQueueKeys();
    create("ssq7-dlq", "");
    create("svault-7", redrivePolicy("ssq7-dlq") + ",\"VisibilityTimeout\":\"0\"");
    admin("SendMessage", "{\"QueueUrl\":\"" + url("svault-7") + "\",\"MessageBody\":\"b\"}");
    for (int i = 0; i < 4; i++) { // the fourth receive finds it in the dead-letter queue
      admin("ReceiveMessage", "{\"QueueUrl\":\"" + url("svault-7") + "\"}");
    }
    String source = "{\"SourceArn\":\"" + arn("ssq7-dlq") + "\"}";
    Answer started = json("StartMessageMoveTask", source, "SQ-LACKS");
    assertEquals(200, started.status(), started.toString());
    Answer tasks = json("ListMessageMoveTasks", source, "SQ-LACKS");
    assertTrue(tasks.body().contains("\"Status\":\"FAILED\""), tasks.toString());
    assertTrue(tasks.body().contains("queue:send on queue 'svault-7'"), tasks.toString());
    Answer attributes =
        admin(
            "GetQueueAttributes",
            "{\"QueueUrl\":\""
                + url("ssq7-dlq")
                + "\",\"AttributeNames\":[\"ApproximateNumberOfMessages\"]}");
    assertTrue(
        attributes.body().contains("\"ApproximateNumberOfMessages\":\"1\""), attributes.toString());
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
