package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.model.AmazonSQSException;
import com.amazonaws.services.sqs.model.CreateQueueRequest;
import com.amazonaws.services.sqs.model.InvalidAttributeNameException;
import com.amazonaws.services.sqs.model.ListQueuesRequest;
import com.amazonaws.services.sqs.model.ListQueuesResult;
import com.amazonaws.services.sqs.model.QueueDoesNotExistException;
import com.amazonaws.services.sqs.model.QueueNameExistsException;
import com.amazonaws.services.sqs.model.ReceiveMessageRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Queue actions through the stock AWS SDK for Java v1 (query protocol). SDK v1 posts every call
 * that names a queue to the queue's URL and drops the {@code QueueUrl} parameter, so these tests
 * also cover the path-implied queue.
 */
class SqsV1QueueActionsTest {

  private static SqsServer fixture;
  private static AmazonSQS sqs;

  @BeforeAll
  static void start() {
    fixture = new SqsServer();
    sqs = SqsClients.v1(fixture);
  }

  @AfterAll
  static void stop() {
    sqs.shutdown();
    fixture.close();
  }

  @Test
  void createQueue_returnsUrl_thatGetQueueUrlFinds() {
    String url = sqs.createQueue("v1-orders").getQueueUrl();
    assertEquals(fixture.url("v1-orders"), url);
    assertEquals(url, sqs.getQueueUrl("v1-orders").getQueueUrl());
  }

  @Test
  void createQueue_sameAttributes_returnsExisting_otherAttributes_queueNameExists() {
    CreateQueueRequest create =
        new CreateQueueRequest("v1-same").addAttributesEntry("VisibilityTimeout", "60");
    String url = sqs.createQueue(create).getQueueUrl();
    assertEquals(url, sqs.createQueue(create).getQueueUrl());
    QueueNameExistsException e =
        assertThrows(
            QueueNameExistsException.class,
            () ->
                sqs.createQueue(
                    new CreateQueueRequest("v1-same")
                        .addAttributesEntry("VisibilityTimeout", "61")));
    assertEquals("QueueAlreadyExists", e.getErrorCode());
  }

  @Test
  void getQueueAttributes_all_reportsConfigCountsAndArn() {
    String url =
        sqs.createQueue(
                new CreateQueueRequest("v1-attrs").addAttributesEntry("VisibilityTimeout", "45"))
            .getQueueUrl();
    sqs.sendMessage(url, "x");
    Map<String, String> a = sqs.getQueueAttributes(url, List.of("All")).getAttributes();
    assertEquals("45", a.get("VisibilityTimeout"));
    assertEquals("0", a.get("DelaySeconds"));
    assertEquals("345600", a.get("MessageRetentionPeriod"));
    assertEquals("1048576", a.get("MaximumMessageSize"));
    assertEquals("1", a.get("ApproximateNumberOfMessages"));
    assertEquals("arn:aws:sqs:us-east-1:000000000000:v1-attrs", a.get("QueueArn"));
    assertNull(a.get("FifoQueue"));
    assertTrue(sqs.getQueueAttributes(url, List.of()).getAttributes().isEmpty());
  }

  @Test
  void setQueueAttributes_changesConfig_andUnknownNameIsRefused() {
    String url = sqs.createQueue("v1-settable").getQueueUrl();
    sqs.setQueueAttributes(url, Map.of("VisibilityTimeout", "120", "DelaySeconds", "5"));
    assertEquals(
        Map.of("VisibilityTimeout", "120", "DelaySeconds", "5"),
        sqs.getQueueAttributes(url, List.of("VisibilityTimeout", "DelaySeconds")).getAttributes());
    assertThrows(
        InvalidAttributeNameException.class,
        () -> sqs.setQueueAttributes(url, Map.of("NoSuchThing", "1")));
    AmazonSQSException outOfRange =
        assertThrows(
            AmazonSQSException.class,
            () -> sqs.setQueueAttributes(url, Map.of("VisibilityTimeout", "50000")));
    assertTrue(
        outOfRange.getErrorCode().startsWith("InvalidAttributeValue"), outOfRange.getErrorCode());
    assertEquals(
        "120",
        sqs.getQueueAttributes(url, List.of("VisibilityTimeout"))
            .getAttributes()
            .get("VisibilityTimeout"));
  }

  @Test
  void listQueues_prefixAndPagination() {
    for (String n : List.of("v1page-a", "v1page-b", "v1page-c", "v1page-d", "v1page-e")) {
      sqs.createQueue(n);
    }
    assertEquals(5, sqs.listQueues("v1page-").getQueueUrls().size());
    List<String> seen = new ArrayList<>();
    String token = null;
    int pages = 0;
    do {
      ListQueuesResult r =
          sqs.listQueues(new ListQueuesRequest("v1page-").withMaxResults(2).withNextToken(token));
      seen.addAll(r.getQueueUrls());
      token = r.getNextToken();
      pages++;
    } while (token != null);
    assertEquals(3, pages);
    assertEquals(fixture.url("v1page-a"), seen.get(0));
    assertEquals(fixture.url("v1page-e"), seen.get(4));
  }

  @Test
  void deleteQueue_thenEveryCallOnIt_isNonExistentQueue() {
    String url = sqs.createQueue("v1-doomed").getQueueUrl();
    sqs.deleteQueue(url);
    QueueDoesNotExistException e =
        assertThrows(QueueDoesNotExistException.class, () -> sqs.getQueueUrl("v1-doomed"));
    assertEquals("AWS.SimpleQueueService.NonExistentQueue", e.getErrorCode());
    assertEquals(400, e.getStatusCode());
    assertEquals(AmazonSQSException.ErrorType.Client, e.getErrorType());
    assertThrows(QueueDoesNotExistException.class, () -> sqs.sendMessage(url, "x"));
    assertThrows(
        QueueDoesNotExistException.class, () -> sqs.receiveMessage(new ReceiveMessageRequest(url)));
    assertThrows(QueueDoesNotExistException.class, () -> sqs.deleteQueue(url));
  }

  @Test
  void purgeQueue_emptiesIt() {
    String url = sqs.createQueue("v1-purged").getQueueUrl();
    sqs.sendMessage(url, "x");
    sqs.purgeQueue(new com.amazonaws.services.sqs.model.PurgeQueueRequest(url));
    assertTrue(sqs.receiveMessage(url).getMessages().isEmpty());
  }

  @Test
  void invalidParameterValue_namesTheValue() {
    String url = sqs.createQueue("v1-invalid").getQueueUrl();
    AmazonSQSException e =
        assertThrows(
            AmazonSQSException.class,
            () -> sqs.receiveMessage(new ReceiveMessageRequest(url).withMaxNumberOfMessages(11)));
    assertEquals("InvalidParameterValue", e.getErrorCode());
    assertTrue(e.getErrorMessage().contains("11"), e.getErrorMessage());
  }

  @Test
  void rawQueryRequests_getAndPost_xmlShapes() throws Exception {
    sqs.createQueue("v1-raw");
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> get =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(
                          fixture.server.uri()
                              + "/?Action=GetQueueUrl&QueueName=v1-raw&Version=2012-11-05"))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, get.statusCode());
      assertTrue(
          get.body()
              .contains(
                  "<GetQueueUrlResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\">"
                      + "<GetQueueUrlResult><QueueUrl>"
                      + fixture.url("v1-raw")
                      + "</QueueUrl></GetQueueUrlResult>"),
          get.body());

      HttpResponse<String> missing =
          http.send(
              HttpRequest.newBuilder(URI.create(fixture.url("nope")))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .POST(HttpRequest.BodyPublishers.ofString("Action=SendMessage&MessageBody=x"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(400, missing.statusCode());
      assertEquals("text/xml", missing.headers().firstValue("Content-Type").orElseThrow());
      assertTrue(
          missing
              .body()
              .contains(
                  "<Error><Type>Sender</Type><Code>AWS.SimpleQueueService.NonExistentQueue</Code>"),
          missing.body());

      HttpResponse<String> noAction =
          http.send(
              HttpRequest.newBuilder(URI.create(fixture.server.uri() + "/"))
                  .POST(HttpRequest.BodyPublishers.ofString("QueueName=x"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(404, noAction.statusCode());
      assertTrue(
          noAction.body().contains("<Code>UnknownOperationException</Code>"), noAction.body());

      HttpResponse<String> notAQueuePath =
          http.send(
              HttpRequest.newBuilder(URI.create(fixture.server.uri() + "/not/aqueue"))
                  .POST(HttpRequest.BodyPublishers.ofString("Action=ListQueues"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(404, notAQueuePath.statusCode());
    }
  }
}
