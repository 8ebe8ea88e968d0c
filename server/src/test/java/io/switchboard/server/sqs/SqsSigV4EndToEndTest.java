package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.model.AmazonSQSException;
import com.amazonaws.services.sqs.model.MessageAttributeValue;
import com.amazonaws.services.sqs.model.ReceiveMessageRequest;
import com.amazonaws.services.sqs.model.SendMessageRequest;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.auth.AccessKeys;
import io.switchboard.server.config.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * SigV4 verification switched on ({@code sqs-access-keys}), through both SDKs: the right key works
 * over both protocols, a wrong secret or an unknown key is refused with the AWS code and status,
 * and nothing a refused request asked for happens. Requests no SDK sends (unsigned, or signed 20
 * minutes ago) go over plain HTTP.
 */
class SqsSigV4EndToEndTest {

  private static final String KEY_ID = "AKIDSWITCHBOARD";
  private static final String SECRET = "s3cr3t/with+base64=chars";
  private static SwitchboardServer server;

  @BeforeAll
  static void start() {
    server =
        SwitchboardServer.start(
            ServerConfig.forTests().withAccessKeys(AccessKeys.of(Map.of(KEY_ID, SECRET))));
  }

  @AfterAll
  static void stop() {
    server.stop();
  }

  private static SqsClient v2(String keyId, String secret) {
    return SqsClients.v2(server.uri(), keyId, secret);
  }

  private static AmazonSQS v1(String keyId, String secret) {
    return SqsClients.v1(server.uri(), keyId, secret);
  }

  @Test
  void v2_rightKeyWorks_wrongSecretAndUnknownKeyAreRefused() {
    try (SqsClient right = v2(KEY_ID, SECRET);
        SqsClient wrong = v2(KEY_ID, "not-it");
        SqsClient unknown = v2("AKIDNOBODY", SECRET)) {
      String url = right.createQueue(b -> b.queueName("signed-v2")).queueUrl();
      right.sendMessage(b -> b.queueUrl(url).messageBody("hello"));

      SqsException bad =
          assertThrows(SqsException.class, () -> wrong.purgeQueue(b -> b.queueUrl(url)));
      assertEquals("SignatureDoesNotMatch", bad.awsErrorDetails().errorCode());
      assertEquals(403, bad.statusCode());
      SqsException who =
          assertThrows(SqsException.class, () -> unknown.purgeQueue(b -> b.queueUrl(url)));
      assertEquals("InvalidClientTokenId", who.awsErrorDetails().errorCode());
      assertEquals(403, who.statusCode());

      assertEquals("hello", right.receiveMessage(b -> b.queueUrl(url)).messages().get(0).body());
    }
  }

  @Test
  void v1_rightKeyWorks_wrongSecretAndUnknownKeyAreRefused() {
    AmazonSQS right = v1(KEY_ID, SECRET);
    AmazonSQS wrong = v1(KEY_ID, "not-it");
    AmazonSQS unknown = v1("AKIDNOBODY", SECRET);
    try {
      String url = right.createQueue("signed-v1").getQueueUrl();
      // attributes and a body with characters that form encoding escapes: the signed body is the
      // body received, byte for byte
      right.sendMessage(
          new SendMessageRequest(url, "a+b=c&d é")
              .withMessageAttributes(
                  Map.of(
                      "k",
                      new MessageAttributeValue().withDataType("String").withStringValue("v w"))));

      AmazonSQSException bad =
          assertThrows(AmazonSQSException.class, () -> wrong.purgeQueue(purge(url)));
      assertEquals("SignatureDoesNotMatch", bad.getErrorCode());
      assertEquals(403, bad.getStatusCode());
      AmazonSQSException who =
          assertThrows(AmazonSQSException.class, () -> unknown.purgeQueue(purge(url)));
      assertEquals("InvalidClientTokenId", who.getErrorCode());
      assertEquals(403, who.getStatusCode());

      assertEquals(
          "a+b=c&d é",
          right
              .receiveMessage(new ReceiveMessageRequest(url).withMessageAttributeNames("All"))
              .getMessages()
              .get(0)
              .getBody());
    } finally {
      right.shutdown();
      wrong.shutdown();
      unknown.shutdown();
    }
  }

  private static com.amazonaws.services.sqs.model.PurgeQueueRequest purge(String url) {
    return new com.amazonaws.services.sqs.model.PurgeQueueRequest(url);
  }

  @Test
  void unsignedRequest_isMissingAuthenticationToken_inEachProtocolsShape() throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> query =
          http.send(
              HttpRequest.newBuilder(URI.create(server.uri() + "/?Action=ListQueues"))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(403, query.statusCode());
      assertTrue(query.body().contains("<Code>MissingAuthenticationToken</Code>"), query.body());

      HttpResponse<String> json =
          http.send(
              HttpRequest.newBuilder(URI.create(server.uri() + "/"))
                  .header("X-Amz-Target", "AmazonSQS.ListQueues")
                  .POST(HttpRequest.BodyPublishers.ofString("{}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(403, json.statusCode());
      assertTrue(json.body().contains("MissingAuthenticationToken"), json.body());
      assertEquals(
          "MissingAuthenticationToken;Sender",
          json.headers().firstValue("x-amzn-query-error").orElseThrow());
    }
  }

  /** A query request over GET, signed in its {@code Authorization} header, as SQS takes one. */
  private static HttpResponse<String> signedGet(String path, String query) throws Exception {
    Instant now = Instant.now();
    Map<String, List<String>> h = new LinkedHashMap<>();
    h.put("host", List.of(server.uri().getAuthority()));
    h.put("x-amz-date", List.of(SigV4Requests.amzDate(now)));
    String authorization =
        SigV4Requests.authorization(KEY_ID, SECRET, "GET", path, query, h, new byte[0]);
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(
          HttpRequest.newBuilder(URI.create(server.uri() + path + "?" + query))
              .header("X-Amz-Date", SigV4Requests.amzDate(now))
              .header("Authorization", authorization)
              .GET()
              .build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }

  @Test
  void signedGet_sendsReceivesAndDeletesAQueue_asSqsTakesQueryRequests() throws Exception {
    String url;
    try (SqsClient sdk = v2(KEY_ID, SECRET)) {
      url = sdk.createQueue(b -> b.queueName("by-get")).queueUrl();
    }
    String path = URI.create(url).getRawPath();

    HttpResponse<String> sent =
        signedGet(path, "Action=SendMessage&MessageBody=over%20GET&Version=2012-11-05");
    assertEquals(200, sent.statusCode(), sent.body());
    assertTrue(sent.body().contains("<MessageId>"), sent.body());
    HttpResponse<String> received =
        signedGet(path, "Action=ReceiveMessage&Version=2012-11-05&VisibilityTimeout=0");
    assertEquals(200, received.statusCode(), received.body());
    assertTrue(received.body().contains("<Body>over GET</Body>"), received.body());

    HttpResponse<String> listHere = signedGet(path, "Action=ListQueues&Version=2012-11-05");
    assertEquals(400, listHere.statusCode(), listHere.body());
    assertTrue(listHere.body().contains("<Code>InvalidAction</Code>"), listHere.body());
    assertTrue(
        listHere.body().contains("The action ListQueues is not valid for this endpoint."),
        listHere.body());

    HttpResponse<String> deleted = signedGet(path, "Action=DeleteQueue&Version=2012-11-05");
    assertEquals(200, deleted.statusCode(), deleted.body());
    try (SqsClient sdk = v2(KEY_ID, SECRET)) {
      assertTrue(sdk.listQueues(b -> b.queueNamePrefix("by-get")).queueUrls().isEmpty());
    }
  }

  @Test
  void requestSignedTwentyMinutesAgo_isRequestExpired_andCreatesNothing() throws Exception {
    Instant past = Instant.now().minus(Duration.ofMinutes(20));
    String host = server.uri().getAuthority();
    String body = "Action=CreateQueue&QueueName=too-late&Version=2012-11-05";
    Map<String, List<String>> h = new LinkedHashMap<>();
    h.put("content-type", List.of("application/x-www-form-urlencoded"));
    h.put("host", List.of(host));
    h.put("x-amz-date", List.of(SigV4Requests.amzDate(past)));
    String authorization =
        SigV4Requests.authorization(
            KEY_ID, SECRET, "POST", "/", "", h, body.getBytes(StandardCharsets.UTF_8));
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(server.uri() + "/"))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .header("X-Amz-Date", SigV4Requests.amzDate(past))
                  .header("Authorization", authorization)
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(400, r.statusCode());
      assertTrue(r.body().contains("<Code>RequestExpired</Code>"), r.body());
    }
    try (SqsClient right = v2(KEY_ID, SECRET)) {
      assertTrue(right.listQueues(b -> b.queueNamePrefix("too-late")).queueUrls().isEmpty());
    }
  }
}
