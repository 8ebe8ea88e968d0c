package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Codes and texts Amazon SQS answers that tools match on, through the stock SDK v2 and raw query
 * requests as botocore sends them: empty lists of the query protocol, the deduplication id's text,
 * FIFO attributes on a standard queue, a FIFO batch entry without its group, an empty String
 * attribute, and SetQueueAttributes naming the queue's type.
 */
class SqsTextsAndCodesTest {

  @RegisterExtension static final SqsServer fixture = new SqsServer();
  private static final SqsClient sqs = fixture.sqs;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @AfterAll
  static void closeHttp() {
    HTTP.close();
  }

  private static SqsException refused(String code, String text, Executable call) {
    SqsException e = assertThrows(SqsException.class, call);
    assertEquals(code, e.awsErrorDetails().errorCode(), e.getMessage());
    assertEquals(text, e.awsErrorDetails().errorMessage());
    return e;
  }

  private static String fifo(String name) {
    return sqs.createQueue(
            b ->
                b.queueName(name)
                    .attributesWithStrings(
                        Map.of("FifoQueue", "true", "ContentBasedDeduplication", "true")))
        .queueUrl();
  }

  /** A query-protocol POST of {@code form} (in order, form-encoded), as botocore sends it. */
  private static HttpResponse<String> query(Map<String, String> form) throws Exception {
    String body =
        form.entrySet().stream()
            .map(
                e ->
                    URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)
                        + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
            .collect(Collectors.joining("&"));
    return HTTP.send(
        HttpRequest.newBuilder(fixture.server.uri())
            .header("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void queryEmptyEntries_wasAnotherError_nowEmptyBatchRequest() throws Exception {
    String url = fixture.createQueue("texts-empty-entries");
    for (String action :
        new String[] {"SendMessageBatch", "DeleteMessageBatch", "ChangeMessageVisibilityBatch"}) {
      var form = new LinkedHashMap<String, String>();
      form.put("Action", action);
      form.put("Version", "2012-11-05");
      form.put("QueueUrl", url);
      form.put("Entries", ""); // botocore's form of an empty list
      HttpResponse<String> r = query(form);
      assertEquals(400, r.statusCode(), r.body());
      assertTrue(
          r.body().contains("<Code>AWS.SimpleQueueService.EmptyBatchRequest</Code>"), r.body());
    }
  }

  @Test
  void queryEmptyMessageAttributeNames_wasRefused_nowAnOrdinaryReceive() throws Exception {
    String url = fixture.createQueue("texts-empty-names");
    sqs.sendMessage(
        b ->
            b.queueUrl(url)
                .messageBody("hello")
                .messageAttributes(
                    Map.of(
                        "color",
                        MessageAttributeValue.builder()
                            .dataType("String")
                            .stringValue("red")
                            .build())));
    var form = new LinkedHashMap<String, String>();
    form.put("Action", "ReceiveMessage");
    form.put("Version", "2012-11-05");
    form.put("QueueUrl", url);
    form.put("MessageAttributeNames", "");
    HttpResponse<String> r = query(form);
    assertEquals(200, r.statusCode(), r.body());
    assertTrue(r.body().contains("<Body>hello</Body>"), r.body());
    // no attribute names asked for: none returned, as an ordinary receive
    assertTrue(!r.body().contains("<MessageAttribute>"), r.body());
  }

  @Test
  void invalidDeduplicationId_wasAccepted_nowRefusedWithSqsText() {
    String url = fifo("texts-dedup.fifo");
    refused(
        "InvalidParameterValue",
        "Value group 123 for parameter MessageDeduplicationId is invalid. Reason:"
            + " MessageDeduplicationId can only include alphanumeric and punctuation characters."
            + " 1 to 128 in length.",
        () ->
            sqs.sendMessage(
                b ->
                    b.queueUrl(url)
                        .messageBody("x")
                        .messageGroupId("g")
                        .messageDeduplicationId("group 123")));
  }

  @Test
  void fifoAttributesOnStandardQueue_wereUnknownAttribute_nowSqsText() {
    refused(
        "InvalidAttributeName",
        "You can specify the DeduplicationScope only when FifoQueue is set to true.",
        () ->
            sqs.createQueue(
                b ->
                    b.queueName("texts-scope")
                        .attributesWithStrings(Map.of("DeduplicationScope", "queue"))));
    String url = fixture.createQueue("texts-standard");
    refused(
        "InvalidAttributeName",
        "You can specify the FifoThroughputLimit only when FifoQueue is set to true.",
        () ->
            sqs.setQueueAttributes(
                b ->
                    b.queueUrl(url)
                        .attributesWithStrings(Map.of("FifoThroughputLimit", "perQueue"))));
  }

  @Test
  void fifoBatchEntryWithoutGroup_wasMissingParameter_nowInvalidParameterValue() {
    String url = fifo("texts-batch-group.fifo");
    refused(
        "InvalidParameterValue",
        "The request must contain the parameter MessageGroupId.",
        () ->
            sqs.sendMessageBatch(
                b ->
                    b.queueUrl(url)
                        .entries(
                            SendMessageBatchRequestEntry.builder()
                                .id("a")
                                .messageBody("x")
                                .build())));
  }

  @Test
  void emptyStringAttribute_hadAnotherText_nowSqsText() {
    String url = fixture.createQueue("texts-empty-attribute");
    refused(
        "InvalidParameterValue",
        "Message (user) attribute 'ErrorDetails' must contain a non-empty value of type 'String'.",
        () ->
            sqs.sendMessage(
                b ->
                    b.queueUrl(url)
                        .messageBody("x")
                        .messageAttributes(
                            Map.of(
                                "ErrorDetails",
                                MessageAttributeValue.builder()
                                    .dataType("String")
                                    .stringValue("")
                                    .build()))));
  }

  @Test
  void setFifoQueueOnFifoQueue_wasRefused_nowTrueSucceedsAndFalseSaysTheTypeStays() {
    String url = fifo("texts-type.fifo");
    sqs.setQueueAttributes(b -> b.queueUrl(url).attributesWithStrings(Map.of("FifoQueue", "true")));
    refused(
        "InvalidAttributeValue",
        "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.",
        () ->
            sqs.setQueueAttributes(
                b -> b.queueUrl(url).attributesWithStrings(Map.of("FifoQueue", "false"))));
    assertEquals(
        "true",
        sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNamesWithStrings("FifoQueue"))
            .attributesAsStrings()
            .get("FifoQueue"));
  }

  @Test
  void noAction_wasJsonWhenAskedFor_nowXml404WhateverTheAccept() throws Exception {
    for (String accept : new String[] {"application/json", "text/xml", "*/*"}) {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(fixture.server.uri())
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .header("Accept", accept)
                  .POST(HttpRequest.BodyPublishers.ofString("Version=2012-11-05"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(404, r.statusCode(), r.body());
      assertEquals("text/xml", r.headers().firstValue("Content-Type").orElse(""), accept);
      assertTrue(r.body().contains("<Code>UnknownOperationException</Code>"), r.body());
    }
  }

  @Test
  void queueUrlWithoutQueuePath_wasInvalidParameterValue_nowNonExistentQueue() {
    for (String url : new String[] {fixture.server.uri().toString(), fixture.server.uri() + "/"}) {
      refused(
          "AWS.SimpleQueueService.NonExistentQueue",
          "The specified queue does not exist.",
          () -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("x")));
    }
  }
}
