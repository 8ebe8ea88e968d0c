package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.model.ListQueuesRequest;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.queue.QueueInfo;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Regions and the account: a queue lives in the region the client signed for and is not seen from
 * another, its URL and ARN carry the region and the configured account ({@code sqs-account-id}),
 * and a URL or ARN of another account or region names no queue. Through SDK v2 (JSON) and SDK v1
 * (query, which posts to the queue URL's path), on a server whose account is 123456789012.
 */
class SqsRegionsTest {

  private static final String ACCOUNT = "123456789012";
  private static SwitchboardServer server;
  private static SqsClient us;
  private static SqsClient eu;
  private static AmazonSQS usV1;
  private static AmazonSQS euV1;

  @BeforeAll
  static void start() {
    server =
        SwitchboardServer.start(
            ServerConfig.resolve(
                Map.of("port", "0", "in-memory", "true", "sqs-account-id", ACCOUNT), Map.of()));
    us = SqsClients.v2(server.uri(), "us-east-1", "fake", "fake");
    eu = SqsClients.v2(server.uri(), "eu-west-1", "fake", "fake");
    usV1 = SqsClients.v1(server.uri(), "us-east-1", "fake", "fake");
    euV1 = SqsClients.v1(server.uri(), "eu-west-1", "fake", "fake");
  }

  @AfterAll
  static void stop() {
    us.close();
    eu.close();
    usV1.shutdown();
    euV1.shutdown();
    server.stop();
  }

  private static String create(SqsClient sqs, String name) {
    return sqs.createQueue(b -> b.queueName(name)).queueUrl();
  }

  private static List<String> bodies(SqsClient sqs, String url) {
    return sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10)).messages().stream()
        .map(Message::body)
        .toList();
  }

  private static String arn(SqsClient sqs, String url) {
    return sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.QUEUE_ARN))
        .attributes()
        .get(QueueAttributeName.QUEUE_ARN);
  }

  // ---- SDK v2 ------------------------------------------------------------------------------

  @Test
  void sameName_inTwoRegions_twoQueues_withIndependentContents() {
    String usUrl = create(us, "orders");
    String euUrl = create(eu, "orders");
    assertFalse(usUrl.equals(euUrl));
    us.sendMessage(b -> b.queueUrl(usUrl).messageBody("from us"));
    eu.sendMessage(b -> b.queueUrl(euUrl).messageBody("from eu"));
    assertEquals(List.of("from eu"), bodies(eu, euUrl));
    assertEquals(List.of("from us"), bodies(us, usUrl));
    assertEquals(usUrl, us.getQueueUrl(b -> b.queueName("orders")).queueUrl());
    assertEquals(euUrl, eu.getQueueUrl(b -> b.queueName("orders")).queueUrl());
  }

  @Test
  void urlAndArn_carryRegionAndConfiguredAccount() {
    String usUrl = create(us, "carried");
    String euUrl = create(eu, "carried");
    assertEquals(server.uri() + "/" + ACCOUNT + "/carried", usUrl);
    assertEquals(server.uri() + "/queue/eu-west-1/" + ACCOUNT + "/carried", euUrl);
    assertEquals("arn:aws:sqs:us-east-1:" + ACCOUNT + ":carried", arn(us, usUrl));
    assertEquals("arn:aws:sqs:eu-west-1:" + ACCOUNT + ":carried", arn(eu, euUrl));
    String id = eu.sendMessage(b -> b.queueUrl(euUrl).messageBody("x")).messageId();
    Message m =
        eu.receiveMessage(b -> b.queueUrl(euUrl).messageSystemAttributeNamesWithStrings("SenderId"))
            .messages()
            .get(0);
    assertEquals(id, m.messageId());
    assertEquals(ACCOUNT, m.attributesAsStrings().get("SenderId"));
  }

  @Test
  void listQueues_showsOnlyTheRegionsQueues() {
    create(us, "listed-us");
    create(eu, "listed-eu");
    create(eu, "listed-both");
    create(us, "listed-both");
    assertEquals(
        List.of(
            server.uri() + "/" + ACCOUNT + "/listed-both",
            server.uri() + "/" + ACCOUNT + "/listed-us"),
        us.listQueues(b -> b.queueNamePrefix("listed-")).queueUrls());
    String eu1 = server.uri() + "/queue/eu-west-1/" + ACCOUNT + "/";
    assertEquals(
        List.of(eu1 + "listed-both", eu1 + "listed-eu"),
        eu.listQueues(b -> b.queueNamePrefix("listed-")).queueUrls());
    assertTrue(
        us.listQueues(b -> b.queueNamePrefix("_")).queueUrls().isEmpty(),
        "the default region must not show other regions' queues by their engine names");
  }

  /**
   * Pages of two queues walk a region's queues once each, in order, with the next token of SQS,
   * although the engine holds the other regions' queues among them (under {@code __region__name},
   * sorting between the default region's upper- and lower-case names).
   */
  @Test
  void listQueuesPages_walkTheRegionsQueuesOnce_steppingOverOtherRegions() {
    SqsClient ap = SqsClients.v2(server.uri(), "ap-south-1", "fake", "fake");
    try (ap;
        SwitchboardClient nativeApi = SwitchboardClient.create(server.uri())) {
      for (String n : List.of("Walk-A", "Walk-B", "walk-c", "walk-d", "walk-e")) {
        create(us, n);
      }
      for (int i = 0; i < 7; i++) {
        create(eu, "walk-" + i);
        create(ap, "walk-" + i);
      }
      List<String> engine = nativeApi.listQueues("").stream().map(QueueInfo::name).toList();
      assertEquals(
          engine.stream().filter(n -> !n.startsWith("__")).map(n -> urlIn(null, n)).toList(),
          walk(us, ""));
      assertEquals(
          engine.stream()
              .filter(n -> n.startsWith("__eu-west-1__"))
              .map(n -> urlIn("eu-west-1", n.substring("__eu-west-1__".length())))
              .toList(),
          walk(eu, ""));
      assertEquals(
          java.util.stream.IntStream.range(0, 7)
              .mapToObj(i -> urlIn("ap-south-1", "walk-" + i))
              .toList(),
          walk(ap, "walk-"));
    }
  }

  private static String urlIn(String region, String name) {
    return server.uri() + (region == null ? "" : "/queue/" + region) + "/" + ACCOUNT + "/" + name;
  }

  /** Every URL of ListQueues' pages of two, following NextToken; no page is empty but the last. */
  private static List<String> walk(SqsClient sqs, String prefix) {
    List<String> out = new java.util.ArrayList<>();
    String token = null;
    do {
      String t = token;
      var page = sqs.listQueues(b -> b.queueNamePrefix(prefix).maxResults(2).nextToken(t));
      out.addAll(page.queueUrls());
      token = page.nextToken();
      assertTrue(token == null || page.queueUrls().size() == 2, "a full page before a token");
    } while (token != null);
    return out;
  }

  @Test
  void anotherRegionsQueue_doesNotExist_byNameOrUrl() {
    String euUrl = create(eu, "eu-only");
    assertThrows(
        QueueDoesNotExistException.class, () -> us.getQueueUrl(b -> b.queueName("eu-only")));
    assertThrows(
        QueueDoesNotExistException.class,
        () -> us.sendMessage(b -> b.queueUrl(euUrl).messageBody("x")));
    assertThrows(QueueDoesNotExistException.class, () -> us.deleteQueue(b -> b.queueUrl(euUrl)));
    // The bare name in the us-east-1 URL form, from us-east-1: still no such queue there.
    assertThrows(
        QueueDoesNotExistException.class,
        () -> us.purgeQueue(b -> b.queueUrl(server.uri() + "/" + ACCOUNT + "/eu-only")));
    assertTrue(bodies(eu, euUrl).isEmpty(), "nothing a refused request asked for happens");
  }

  @Test
  void anotherAccountsUrlOrArn_doesNotExist() {
    String euUrl = create(eu, "mine");
    String other = euUrl.replace(ACCOUNT, "000000000000");
    assertThrows(
        QueueDoesNotExistException.class,
        () -> eu.sendMessage(b -> b.queueUrl(other).messageBody("x")));
    assertThrows(
        QueueDoesNotExistException.class,
        () -> eu.getQueueUrl(b -> b.queueName("mine").queueOwnerAWSAccountId("000000000000")));
    create(eu, "mine-dlq");
    SqsException e =
        assertThrows(
            SqsException.class,
            () ->
                eu.setQueueAttributes(
                    b ->
                        b.queueUrl(euUrl)
                            .attributesWithStrings(
                                Map.of(
                                    "RedrivePolicy",
                                    "{\"deadLetterTargetArn\":\"arn:aws:sqs:eu-west-1:000000000000:"
                                        + "mine-dlq\",\"maxReceiveCount\":1}"))));
    assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode());
    assertTrue(e.getMessage().contains("Dead letter target does not exist"), e.getMessage());
  }

  @Test
  void redrivePolicy_resolvesTheTargetInTheSourcesRegion() {
    String euDlq = create(eu, "work-dlq");
    String usDlq = create(us, "work-dlq");
    String euArn = arn(eu, euDlq);
    String policy = "{\"deadLetterTargetArn\":\"" + euArn + "\",\"maxReceiveCount\":1}";
    String work =
        eu.createQueue(
                b -> b.queueName("work").attributesWithStrings(Map.of("RedrivePolicy", policy)))
            .queueUrl();
    eu.sendMessage(b -> b.queueUrl(work).messageBody("poison"));
    Message m = eu.receiveMessage(b -> b.queueUrl(work)).messages().get(0);
    eu.changeMessageVisibility(
        b -> b.queueUrl(work).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
    assertTrue(eu.receiveMessage(b -> b.queueUrl(work)).messages().isEmpty());
    assertEquals(List.of("poison"), bodies(eu, euDlq));
    assertTrue(bodies(us, usDlq).isEmpty());
    assertEquals(
        List.of(work),
        eu.listDeadLetterSourceQueues(b -> b.queueUrl(euDlq)).queueUrls(),
        "the eu-west-1 dead-letter queue's sources");
    assertTrue(us.listDeadLetterSourceQueues(b -> b.queueUrl(usDlq)).queueUrls().isEmpty());
    String shown =
        eu.getQueueAttributes(
                b -> b.queueUrl(work).attributeNames(QueueAttributeName.REDRIVE_POLICY))
            .attributes()
            .get(QueueAttributeName.REDRIVE_POLICY);
    assertTrue(shown.contains(euArn), shown);
    // From us-east-1, the eu-west-1 ARN names no queue.
    SqsException e =
        assertThrows(
            SqsException.class,
            () ->
                us.createQueue(
                    b ->
                        b.queueName("work")
                            .attributesWithStrings(Map.of("RedrivePolicy", policy))));
    assertTrue(e.getMessage().contains("Dead letter target does not exist"), e.getMessage());
  }

  @Test
  void defaultRegion_refusesNamesReservedForOtherRegions() {
    SqsException e =
        assertThrows(
            SqsException.class, () -> us.createQueue(b -> b.queueName("__eu-west-1__sneaky")));
    assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode());
    assertTrue(e.getMessage().contains("reserved for the queues of other regions"), e.getMessage());
  }

  @Test
  void otherRegion_nameTooLongForTheEngine_isRefusedWithTheLimit() {
    String name = "n".repeat(70);
    SqsException e = assertThrows(SqsException.class, () -> eu.createQueue(b -> b.queueName(name)));
    assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode());
    assertTrue(e.getMessage().contains("must be 1..67 characters"), e.getMessage());
    assertTrue(e.getMessage().contains(name), e.getMessage());
    assertEquals(67, create(eu, "n".repeat(67)).length() - eu1Prefix().length());
  }

  private static String eu1Prefix() {
    return server.uri() + "/queue/eu-west-1/" + ACCOUNT + "/";
  }

  @Test
  void nativeApi_seesDefaultRegionQueuesByName_andOthersUnderTheirReservedName() {
    create(us, "native-plain");
    create(eu, "native-plain");
    try (SwitchboardClient nativeApi = SwitchboardClient.create(server.uri())) {
      assertEquals(
          List.of("__eu-west-1__native-plain", "native-plain"),
          nativeApi.listQueues("").stream()
              .map(QueueInfo::name)
              .filter(n -> n.endsWith("native-plain"))
              .sorted()
              .toList());
    }
  }

  @Test
  void unsignedRequest_isInTheRegionItsHostNames_orTheDefault() throws IOException {
    String body = "{\"QueueName\":\"hosted\"}";
    String hosted = unsigned("sqs.eu-west-1.localhost:" + server.port(), "CreateQueue", body);
    assertTrue(
        hosted.contains(
            "\"QueueUrl\":\"http://sqs.eu-west-1.localhost:"
                + server.port()
                + "/"
                + ACCOUNT
                + "/hosted\""),
        hosted);
    assertEquals(eu1Prefix() + "hosted", eu.getQueueUrl(b -> b.queueName("hosted")).queueUrl());
    assertThrows(
        QueueDoesNotExistException.class, () -> us.getQueueUrl(b -> b.queueName("hosted")));
    String plain = unsigned("127.0.0.1:" + server.port(), "GetQueueUrl", body);
    assertTrue(plain.contains("QueueDoesNotExist"), plain);
  }

  @Test
  void signedForAMalformedRegion_isRefused_andNothingIsCreated() throws IOException {
    String answer =
        request(
            "127.0.0.1:" + server.port(),
            "Authorization: AWS4-HMAC-SHA256 Credential=fake/20261125/EU_WEST_1/sqs/aws4_request,"
                + " SignedHeaders=host, Signature=00\r\n",
            "CreateQueue",
            "{\"QueueName\":\"badly-signed\"}");
    assertTrue(answer.startsWith("HTTP/1.1 403"), answer);
    assertTrue(answer.contains("SignatureDoesNotMatch"), answer);
    assertTrue(answer.contains("'EU_WEST_1'"), answer);
    assertTrue(us.listQueues(b -> b.queueNamePrefix("badly-signed")).queueUrls().isEmpty());
  }

  /** An unsigned JSON request with the given Host header, over a plain socket; the raw answer. */
  private static String unsigned(String host, String action, String json) throws IOException {
    return request(host, "", action, json);
  }

  /** A JSON request with the given Host and extra header lines; the raw answer. */
  private static String request(String host, String extraHeaders, String action, String json)
      throws IOException {
    byte[] payload = json.getBytes(StandardCharsets.UTF_8);
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST / HTTP/1.1\r\nHost: "
                  + host
                  + "\r\n"
                  + extraHeaders
                  + "X-Amz-Target: AmazonSQS."
                  + action
                  + "\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: "
                  + payload.length
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(payload);
      out.flush();
      // Read the head, then Content-Length bytes: the server may keep the connection open.
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("connection closed in the head: " + head);
        }
        head.write(b);
      }
      String headers = head.toString(StandardCharsets.US_ASCII);
      int length = 0;
      for (String line : headers.split("\r\n")) {
        if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
          length = Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
        }
      }
      return headers + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }
  }

  // ---- SDK v1 (query protocol, posted to the queue URL's path) -----------------------------

  @Test
  void v1_sameName_inTwoRegions_twoQueues_withIndependentContents() {
    String usUrl = usV1.createQueue("v1-orders").getQueueUrl();
    String euUrl = euV1.createQueue("v1-orders").getQueueUrl();
    assertEquals(server.uri() + "/" + ACCOUNT + "/v1-orders", usUrl);
    assertEquals(eu1Prefix() + "v1-orders", euUrl);
    usV1.sendMessage(usUrl, "from us");
    euV1.sendMessage(euUrl, "from eu");
    assertEquals("from eu", euV1.receiveMessage(euUrl).getMessages().get(0).getBody());
    assertEquals("from us", usV1.receiveMessage(usUrl).getMessages().get(0).getBody());
    assertEquals(
        "arn:aws:sqs:eu-west-1:" + ACCOUNT + ":v1-orders",
        euV1.getQueueAttributes(euUrl, List.of("QueueArn")).getAttributes().get("QueueArn"));
    assertEquals(
        "arn:aws:sqs:us-east-1:" + ACCOUNT + ":v1-orders",
        usV1.getQueueAttributes(usUrl, List.of("QueueArn")).getAttributes().get("QueueArn"));
  }

  @Test
  void v1_listQueues_perRegion_andAnotherRegionsUrl_doesNotExist() {
    String euUrl = euV1.createQueue("v1-listed-eu").getQueueUrl();
    usV1.createQueue("v1-listed-us");
    assertEquals(
        List.of(euUrl), euV1.listQueues(new ListQueuesRequest("v1-listed-")).getQueueUrls());
    assertEquals(
        List.of(server.uri() + "/" + ACCOUNT + "/v1-listed-us"),
        usV1.listQueues(new ListQueuesRequest("v1-listed-")).getQueueUrls());
    assertThrows(
        com.amazonaws.services.sqs.model.QueueDoesNotExistException.class,
        () -> usV1.sendMessage(euUrl, "x"));
    assertThrows(
        com.amazonaws.services.sqs.model.QueueDoesNotExistException.class,
        () -> usV1.getQueueUrl("v1-listed-eu"));
  }
}
