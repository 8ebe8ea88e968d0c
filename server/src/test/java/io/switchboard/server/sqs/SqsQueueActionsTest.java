package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.CreateQueueResponse;
import software.amazon.awssdk.services.sqs.model.InvalidAttributeNameException;
import software.amazon.awssdk.services.sqs.model.ListQueuesResponse;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.QueueNameExistsException;
import software.amazon.awssdk.services.sqs.model.SqsException;

/** Queue actions through the stock AWS SDK for Java v2 (JSON protocol). */
class SqsQueueActionsTest {

  @RegisterExtension static final SqsServer fixture = new SqsServer();
  private static final SqsClient sqs = fixture.sqs;

  @Test
  void createQueue_returnsUrl_thatGetQueueUrlFinds() {
    String url = sqs.createQueue(b -> b.queueName("orders")).queueUrl();
    assertEquals(fixture.url("orders"), url);
    assertEquals(url, sqs.getQueueUrl(b -> b.queueName("orders")).queueUrl());
  }

  @Test
  void createQueue_sameAttributes_returnsExisting_otherAttributes_queueNameExists() {
    Map<QueueAttributeName, String> attrs =
        Map.of(
            QueueAttributeName.VISIBILITY_TIMEOUT, "45",
            QueueAttributeName.DELAY_SECONDS, "2",
            QueueAttributeName.MESSAGE_RETENTION_PERIOD, "3600",
            QueueAttributeName.MAXIMUM_MESSAGE_SIZE, "2048",
            QueueAttributeName.RECEIVE_MESSAGE_WAIT_TIME_SECONDS, "1");
    CreateQueueResponse first = sqs.createQueue(b -> b.queueName("same").attributes(attrs));
    assertEquals(
        first.queueUrl(), sqs.createQueue(b -> b.queueName("same").attributes(attrs)).queueUrl());
    assertThrows(
        QueueNameExistsException.class,
        () ->
            sqs.createQueue(
                b ->
                    b.queueName("same")
                        .attributes(Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "46"))));
  }

  @Test
  void getQueueAttributes_all_reportsConfigCountsAndArn() {
    String url =
        sqs.createQueue(
                b ->
                    b.queueName("attrs")
                        .attributes(Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "45")))
            .queueUrl();
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("a"));
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("b"));
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("later").delaySeconds(600));
    sqs.receiveMessage(b -> b.queueUrl(url));

    Map<QueueAttributeName, String> a =
        sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL))
            .attributes();

    assertEquals("45", a.get(QueueAttributeName.VISIBILITY_TIMEOUT));
    assertEquals("0", a.get(QueueAttributeName.DELAY_SECONDS));
    assertEquals("345600", a.get(QueueAttributeName.MESSAGE_RETENTION_PERIOD));
    assertEquals("1048576", a.get(QueueAttributeName.MAXIMUM_MESSAGE_SIZE));
    assertEquals("0", a.get(QueueAttributeName.RECEIVE_MESSAGE_WAIT_TIME_SECONDS));
    assertEquals("1", a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
    assertEquals("1", a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE));
    assertEquals("1", a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED));
    assertEquals("arn:aws:sqs:us-east-1:000000000000:attrs", a.get(QueueAttributeName.QUEUE_ARN));
    long created = Long.parseLong(a.get(QueueAttributeName.CREATED_TIMESTAMP));
    assertTrue(Math.abs(created - System.currentTimeMillis() / 1000) < 60);
    assertNull(a.get(QueueAttributeName.FIFO_QUEUE));
  }

  @Test
  void setQueueAttributes_changesConfig_andUnknownNameIsRefused() {
    String url = sqs.createQueue(b -> b.queueName("settable")).queueUrl();
    sqs.setQueueAttributes(
        b ->
            b.queueUrl(url)
                .attributes(
                    Map.of(
                        QueueAttributeName.VISIBILITY_TIMEOUT, "120",
                        QueueAttributeName.DELAY_SECONDS, "5")));
    Map<QueueAttributeName, String> a =
        sqs.getQueueAttributes(
                b ->
                    b.queueUrl(url)
                        .attributeNames(
                            QueueAttributeName.VISIBILITY_TIMEOUT,
                            QueueAttributeName.DELAY_SECONDS))
            .attributes();
    assertEquals(
        Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "120", QueueAttributeName.DELAY_SECONDS, "5"),
        a);
    assertThrows(
        InvalidAttributeNameException.class,
        () ->
            sqs.setQueueAttributes(
                b -> b.queueUrl(url).attributesWithStrings(Map.of("NoSuchThing", "1"))));
  }

  @Test
  void listQueues_prefixAndPagination() {
    for (String n : List.of("page-a", "page-b", "page-c", "page-d", "page-e")) {
      sqs.createQueue(b -> b.queueName(n));
    }
    assertEquals(
        List.of(
            fixture.url("page-a"),
            fixture.url("page-b"),
            fixture.url("page-c"),
            fixture.url("page-d"),
            fixture.url("page-e")),
        sqs.listQueues(b -> b.queueNamePrefix("page-")).queueUrls());

    List<String> seen = new ArrayList<>();
    String token = null;
    int pages = 0;
    do {
      String t = token;
      ListQueuesResponse r =
          sqs.listQueues(b -> b.queueNamePrefix("page-").maxResults(2).nextToken(t));
      seen.addAll(r.queueUrls());
      token = r.nextToken();
      pages++;
    } while (token != null);
    assertEquals(3, pages);
    assertEquals(5, seen.size());
    assertEquals(fixture.url("page-e"), seen.get(4));
    // The SDK's paginator follows NextToken the same way.
    assertEquals(
        5,
        sqs.listQueuesPaginator(b -> b.queueNamePrefix("page-").maxResults(2)).queueUrls().stream()
            .count());
  }

  @Test
  void deleteQueue_thenEveryCallOnIt_isQueueDoesNotExist() {
    String url = sqs.createQueue(b -> b.queueName("doomed")).queueUrl();
    sqs.deleteQueue(b -> b.queueUrl(url));

    QueueDoesNotExistException e =
        assertThrows(
            QueueDoesNotExistException.class, () -> sqs.getQueueUrl(b -> b.queueName("doomed")));
    assertEquals(400, e.statusCode());
    assertThrows(
        QueueDoesNotExistException.class,
        () -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("x")));
    assertThrows(QueueDoesNotExistException.class, () -> sqs.receiveMessage(b -> b.queueUrl(url)));
    assertThrows(QueueDoesNotExistException.class, () -> sqs.deleteQueue(b -> b.queueUrl(url)));
  }

  @Test
  void queueUrl_acceptsFullUrlFromAnyHostPathAndBareName_butNotAnotherAccount() {
    sqs.createQueue(b -> b.queueName("forms"));
    sqs.sendMessage(b -> b.queueUrl("http://elsewhere:4566/000000000000/forms").messageBody("1"));
    sqs.sendMessage(b -> b.queueUrl("forms").messageBody("2"));
    sqs.sendMessage(b -> b.queueUrl("/000000000000/forms").messageBody("3"));
    assertThrows(
        QueueDoesNotExistException.class,
        () ->
            sqs.sendMessage(
                b -> b.queueUrl("http://elsewhere:4566/123456789012/forms").messageBody("4")));
    assertEquals(
        3,
        sqs.receiveMessage(b -> b.queueUrl(fixture.url("forms")).maxNumberOfMessages(10))
            .messages()
            .size());
  }

  @Test
  void purgeQueue_emptiesIt() {
    String url = sqs.createQueue(b -> b.queueName("purged")).queueUrl();
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("x"));
    sqs.purgeQueue(b -> b.queueUrl(url));
    assertTrue(sqs.receiveMessage(b -> b.queueUrl(url)).messages().isEmpty());
  }

  @Test
  void fifoQueue_needsFifoName_andReportsFifoAttributes() {
    String url =
        sqs.createQueue(
                b ->
                    b.queueName("jobs.fifo")
                        .attributes(
                            Map.of(
                                QueueAttributeName.FIFO_QUEUE, "true",
                                QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "true")))
            .queueUrl();
    Map<QueueAttributeName, String> a =
        sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL))
            .attributes();
    assertEquals("true", a.get(QueueAttributeName.FIFO_QUEUE));
    assertEquals("true", a.get(QueueAttributeName.CONTENT_BASED_DEDUPLICATION));

    SqsException e =
        assertThrows(
            SqsException.class,
            () ->
                sqs.createQueue(
                    b ->
                        b.queueName("notfifo")
                            .attributes(Map.of(QueueAttributeName.FIFO_QUEUE, "true"))));
    assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode());
    SqsException missingFlag =
        assertThrows(SqsException.class, () -> sqs.createQueue(b -> b.queueName("flagless.fifo")));
    assertEquals("InvalidParameterValue", missingFlag.awsErrorDetails().errorCode());
  }

  @Test
  void unknownAction_isInvalidAction() throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(fixture.server.uri() + "/"))
                  .header("X-Amz-Target", "AmazonSQS.CreateTopic")
                  .POST(HttpRequest.BodyPublishers.ofString("{}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(400, r.statusCode());
      assertTrue(r.body().contains("com.amazonaws.sqs#UnknownOperationException"), r.body());
      assertEquals("InvalidAction;Sender", r.headers().firstValue("x-amzn-query-error").get());
    }
  }

  @Test
  void rawRequest_errorShapeHasTypeAndQueryErrorHeader() throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(fixture.server.uri() + "/"))
                  .header("X-Amz-Target", "AmazonSQS.GetQueueUrl")
                  .header("Content-Type", "application/x-amz-json-1.0")
                  .header(
                      "Authorization",
                      "AWS4-HMAC-SHA256 Credential=fake/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=00")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"QueueName\":\"missing\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(400, r.statusCode());
      assertTrue(r.body().contains("\"__type\":\"com.amazonaws.sqs#QueueDoesNotExist\""), r.body());
      assertEquals(
          "AWS.SimpleQueueService.NonExistentQueue;Sender",
          r.headers().firstValue("x-amzn-query-error").orElseThrow());

      HttpResponse<String> noTarget =
          http.send(
              HttpRequest.newBuilder(URI.create(fixture.server.uri() + "/"))
                  .POST(HttpRequest.BodyPublishers.ofString("{}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(400, noTarget.statusCode());
      assertTrue(noTarget.body().contains("UnknownOperationException"), noTarget.body());
      assertFalse(fixture.server.routeTable().contains("POST /"));
    }
  }
}
