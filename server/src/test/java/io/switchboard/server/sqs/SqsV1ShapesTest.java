package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.model.AmazonSQSException;
import com.amazonaws.services.sqs.model.ChangeMessageVisibilityBatchRequest;
import com.amazonaws.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import com.amazonaws.services.sqs.model.CreateQueueRequest;
import com.amazonaws.services.sqs.model.DeleteMessageBatchRequest;
import com.amazonaws.services.sqs.model.Message;
import com.amazonaws.services.sqs.model.MessageAttributeValue;
import com.amazonaws.services.sqs.model.QueueDoesNotExistException;
import com.amazonaws.services.sqs.model.ReceiveMessageRequest;
import com.amazonaws.services.sqs.model.SendMessageBatchRequest;
import com.amazonaws.services.sqs.model.SendMessageBatchRequestEntry;
import com.amazonaws.services.sqs.model.SendMessageRequest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * {@link SqsShapesTest} through the stock AWS SDK for Java v1 at its last query-protocol release
 * (form-encoded requests answered in XML), and raw query requests for what the SDK hides: empty
 * results, the query protocol's texts, JSON answers on {@code Accept: application/json}, requests
 * without an action and actions over GET.
 */
class SqsV1ShapesTest {

  private static SqsServer fixture;
  private static AmazonSQS sqs;
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() {
    fixture = new SqsServer();
    sqs = SqsClients.v1(fixture);
  }

  @AfterAll
  static void stop() {
    sqs.shutdown();
    fixture.close();
    HTTP.close();
  }

  private static AmazonSQSException refused(String code, String text, Executable call) {
    AmazonSQSException e = assertThrows(AmazonSQSException.class, call);
    assertEquals(code, e.getErrorCode(), e.getMessage());
    if (text != null) {
      assertEquals(text, e.getErrorMessage());
    }
    return e;
  }

  private static String form(Map<String, String> parameters) {
    StringBuilder b = new StringBuilder();
    parameters.forEach(
        (k, v) ->
            b.append(b.isEmpty() ? "" : "&")
                .append(k)
                .append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
    return b.toString();
  }

  private static HttpResponse<String> post(String body, String... headers) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(fixture.server.uri() + "/"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(String query) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(fixture.server.uri() + "/?" + query)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  // ---- Shapes -----------------------------------------------------------------------------------

  @Test
  void emptyResult_wasAnOpenAndCloseTag_nowAnEmptyElement() throws Exception {
    String url = sqs.createQueue("v1-shapes-empty").getQueueUrl();
    HttpResponse<String> r =
        post(form(Map.of("Action", "ReceiveMessage", "QueueUrl", url, "Version", "2012-11-05")));
    assertEquals(200, r.statusCode());
    assertTrue(r.body().contains("<ReceiveMessageResult/>"), r.body());
    HttpResponse<String> list =
        post(form(Map.of("Action", "ListQueues", "QueueNamePrefix", "no-such-prefix")));
    assertTrue(list.body().contains("<ListQueuesResult/>"), list.body());
    assertTrue(sqs.receiveMessage(url).getMessages().isEmpty());
  }

  @Test
  void missingQueue_hadTheJsonText_nowTheQueryProtocolsText() throws Exception {
    refused(
        "AWS.SimpleQueueService.NonExistentQueue",
        "The specified queue does not exist for this wsdl version.",
        () -> sqs.getQueueUrl("v1-shapes-no-such-queue"));
    assertThrows(
        QueueDoesNotExistException.class, () -> sqs.getQueueUrl("v1-shapes-no-such-queue"));
  }

  @Test
  void acceptJson_wasAnsweredInXml_nowInJson() throws Exception {
    String url = sqs.createQueue("v1-shapes-json").getQueueUrl();
    HttpResponse<String> ok =
        post(
            form(Map.of("Action", "GetQueueUrl", "QueueName", "v1-shapes-json")),
            "Accept",
            "application/json");
    assertEquals(200, ok.statusCode());
    assertEquals("application/json", ok.headers().firstValue("Content-Type").orElseThrow());
    JsonNode body = JSON.readTree(ok.body());
    assertEquals(
        url, body.path("GetQueueUrlResponse").path("GetQueueUrlResult").path("QueueUrl").asText());
    assertEquals(
        ok.headers().firstValue("x-amzn-RequestId").orElseThrow(),
        body.path("GetQueueUrlResponse").path("ResponseMetadata").path("RequestId").asText());

    HttpResponse<String> error =
        post(
            form(Map.of("Action", "GetQueueUrl", "QueueName", "v1-shapes-no-such-queue")),
            "Accept",
            "application/json");
    assertEquals(400, error.statusCode());
    JsonNode e = JSON.readTree(error.body()).path("Error");
    assertEquals("AWS.SimpleQueueService.NonExistentQueue", e.path("Code").asText());
    assertEquals("Sender", e.path("Type").asText());
    assertEquals(
        "The specified queue does not exist for this wsdl version.", e.path("Message").asText());
  }

  @Test
  void noAction_wasMissingAction_nowUnknownOperationException() throws Exception {
    HttpResponse<String> r = post(form(Map.of("Version", "2012-11-05")));
    assertEquals(404, r.statusCode());
    assertTrue(r.body().contains("<Code>UnknownOperationException</Code>"), r.body());
  }

  @Test
  void unknownOrStateChangingActionOverGet_wasAccessDenied_nowInvalidAction() throws Exception {
    HttpResponse<String> unknown = get("Action=CreateTopic&Name=t");
    assertEquals(400, unknown.statusCode());
    assertTrue(unknown.body().contains("<Code>InvalidAction</Code>"), unknown.body());
    assertTrue(
        unknown.body().contains("The action CreateTopic is not valid for this endpoint."),
        unknown.body());
    HttpResponse<String> changes = get("Action=CreateQueue&QueueName=v1-shapes-over-get");
    assertEquals(400, changes.statusCode());
    assertTrue(changes.body().contains("<Code>InvalidAction</Code>"), changes.body());
    refused(
        "AWS.SimpleQueueService.NonExistentQueue",
        null,
        () -> sqs.getQueueUrl("v1-shapes-over-get"));
  }

  @Test
  void addPermissionPolicyVersion_was2012_now2008() throws Exception {
    String url = sqs.createQueue("v1-shapes-permission").getQueueUrl();
    sqs.addPermission(url, "readers", List.of("000000000000"), List.of("ReceiveMessage"));
    String policy = sqs.getQueueAttributes(url, List.of("Policy")).getAttributes().get("Policy");
    assertEquals("2008-10-17", JSON.readTree(policy).get("Version").asText());
  }

  @Test
  void sqsManagedSse_wasAbsentByDefault_nowTrueAndExclusiveWithAKmsKey() {
    String url = sqs.createQueue("v1-shapes-sse").getQueueUrl();
    assertEquals(
        "true",
        sqs.getQueueAttributes(url, List.of("All")).getAttributes().get("SqsManagedSseEnabled"));
    refused(
        "InvalidAttributeName",
        "You can use one type of server-side encryption (SSE) at one time. You can either enable"
            + " KMS SSE or SQS SSE.",
        () ->
            sqs.setQueueAttributes(
                url, Map.of("SqsManagedSseEnabled", "true", "KmsMasterKeyId", "alias/aws/sqs")));
    sqs.setQueueAttributes(url, Map.of("KmsMasterKeyId", "alias/aws/sqs"));
    Map<String, String> a = sqs.getQueueAttributes(url, List.of("All")).getAttributes();
    assertEquals("false", a.get("SqsManagedSseEnabled"));
    assertEquals("300", a.get("KmsDataKeyReusePeriodSeconds"));
  }

  // ---- Codes and validation -----------------------------------------------------------------

  @Test
  void messageCodes_emptyBodyInvalidCharactersEmptyBatch_asSqs() {
    String url = sqs.createQueue("v1-shapes-codes").getQueueUrl();
    refused(
        "MissingParameter",
        "The request must contain the parameter MessageBody.",
        () -> sqs.sendMessage(url, ""));
    refused("InvalidMessageContents", null, () -> sqs.sendMessage(url, "a\u0001b"));
    refused(
        "AWS.SimpleQueueService.EmptyBatchRequest",
        "There should be at least one SendMessageBatchRequestEntry in the request.",
        () -> sqs.sendMessageBatch(new SendMessageBatchRequest(url)));
    refused(
        "AWS.SimpleQueueService.EmptyBatchRequest",
        null,
        () -> sqs.deleteMessageBatch(new DeleteMessageBatchRequest(url)));
  }

  @Test
  void changeVisibilityOfADeletedMessage_wasReceiptHandleIsInvalid_nowInvalidParameterValue() {
    String url = sqs.createQueue("v1-shapes-cmv").getQueueUrl();
    sqs.sendMessage(url, "gone");
    Message m = sqs.receiveMessage(url).getMessages().get(0);
    sqs.deleteMessage(url, m.getReceiptHandle());
    refused(
        "InvalidParameterValue",
        "Value "
            + m.getReceiptHandle()
            + " for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not"
            + " available for visibility timeout change.",
        () -> sqs.changeMessageVisibility(url, m.getReceiptHandle(), 10));
    assertEquals(
        "InvalidParameterValue",
        sqs.changeMessageVisibilityBatch(
                new ChangeMessageVisibilityBatchRequest(
                    url,
                    List.of(
                        new ChangeMessageVisibilityBatchRequestEntry("c", m.getReceiptHandle())
                            .withVisibilityTimeout(10))))
            .getFailed()
            .get(0)
            .getCode());
  }

  @Test
  void fifoNameAndFlagMismatches_asSqs() {
    refused(
        "InvalidParameterValue",
        "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length",
        () -> sqs.createQueue("v1-shapes-flagless.fifo"));
    refused(
        "InvalidParameterValue",
        null,
        () ->
            sqs.createQueue(
                new CreateQueueRequest("v1-shapes-plain")
                    .withAttributes(Map.of("FifoQueue", "true"))));
    refused(
        "InvalidAttributeName",
        "Unknown Attribute FifoQueue.",
        () ->
            sqs.createQueue(
                new CreateQueueRequest("v1-shapes-plain")
                    .withAttributes(Map.of("FifoQueue", "false"))));
  }

  @Test
  void rangeTexts_asSqsWordsEachParameter() {
    String url = sqs.createQueue("v1-shapes-ranges").getQueueUrl();
    refused(
        "InvalidParameterValue",
        "Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10,"
            + " if provided.",
        () -> sqs.receiveMessage(new ReceiveMessageRequest(url).withMaxNumberOfMessages(11)));
    refused(
        "InvalidParameterValue",
        "Value -1 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if"
            + " provided.",
        () -> sqs.receiveMessage(new ReceiveMessageRequest(url).withWaitTimeSeconds(-1)));
    refused(
        "InvalidParameterValue",
        "Value -1 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <="
            + " 900.",
        () -> sqs.sendMessage(new SendMessageRequest(url, "x").withDelaySeconds(-1)));
  }

  @Test
  void
      attributeValueErrors_queueAttributesInvalidAttributeValue_redrivePolicyInvalidParameterValue() {
    String url = sqs.createQueue("v1-shapes-attribute-values").getQueueUrl();
    AmazonSQSException e =
        refused(
            "InvalidAttributeValue",
            null,
            () -> sqs.setQueueAttributes(url, Map.of("VisibilityTimeout", "43201")));
    assertTrue(
        e.getErrorMessage().startsWith("Invalid value for the parameter VisibilityTimeout"),
        e.getErrorMessage());
    String noCount = "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:x\"}";
    refused(
        "InvalidParameterValue",
        "Value "
            + noCount
            + " for parameter RedrivePolicy is invalid. Reason: Redrive policy does not contain"
            + " mandatory attribute: maxReceiveCount.",
        () -> sqs.setQueueAttributes(url, Map.of("RedrivePolicy", noCount)));
    String zero =
        "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:v1-shapes-attribute-values\","
            + "\"maxReceiveCount\":0}";
    refused(
        "InvalidParameterValue",
        "Value "
            + zero
            + " for parameter RedrivePolicy is invalid. Reason: Invalid value for maxReceiveCount:"
            + " 0, valid values are from 1 to 1000 both inclusive.",
        () -> sqs.setQueueAttributes(url, Map.of("RedrivePolicy", zero)));
  }

  @Test
  void booleanAttributes_anyCase() {
    String url =
        sqs.createQueue(
                new CreateQueueRequest("v1-shapes-case.fifo")
                    .withAttributes(
                        Map.of("FifoQueue", "TRUE", "ContentBasedDeduplication", "True")))
            .getQueueUrl();
    sqs.sendMessage(new SendMessageRequest(url, "no dedup id").withMessageGroupId("g"));
    assertEquals(
        "true",
        sqs.getQueueAttributes(url, List.of("ContentBasedDeduplication"))
            .getAttributes()
            .get("ContentBasedDeduplication"));
  }

  // ---- SQS rejects, Switchboard accepted ----------------------------------------------------

  @Test
  void whatSqsRejects_isRefused() {
    String url = sqs.createQueue("v1-shapes-rejects").getQueueUrl();
    refused(
        "InvalidParameterValue",
        null,
        () -> sqs.sendMessage(new SendMessageRequest(url, "x").withMessageGroupId("bad group")));
    refused(
        "InvalidParameterValue",
        "Message (user) attribute 'color' must contain a non-empty value of type 'String'.",
        () ->
            sqs.sendMessage(
                new SendMessageRequest(url, "x")
                    .withMessageAttributes(
                        Map.of(
                            "color",
                            new MessageAttributeValue()
                                .withDataType("String")
                                .withStringValue("")))));
    String fifo =
        sqs.createQueue(
                new CreateQueueRequest("v1-shapes-rejects.fifo")
                    .withAttributes(Map.of("FifoQueue", "true")))
            .getQueueUrl();
    refused(
        "InvalidParameterValue",
        null,
        () ->
            sqs.sendMessageBatch(
                new SendMessageBatchRequest(fifo)
                    .withEntries(
                        new SendMessageBatchRequestEntry("a", "x").withMessageGroupId("g"))));
    refused(
        "InvalidParameterValue", // as SQS in a batch (a single send's is MissingParameter)
        null,
        () ->
            sqs.sendMessageBatch(
                new SendMessageBatchRequest(fifo)
                    .withEntries(
                        new SendMessageBatchRequestEntry("a", "x")
                            .withMessageDeduplicationId("d"))));
    sqs.deleteQueue(url);
    assertThrows(QueueDoesNotExistException.class, () -> sqs.getQueueAttributes(url, List.of()));
  }

  // ---- SQS accepts, Switchboard refused -----------------------------------------------------

  @Test
  void whatSqsAccepts_isAccepted() {
    String url =
        sqs.createQueue(
                new CreateQueueRequest("v1-shapes-existing")
                    .withAttributes(Map.of("VisibilityTimeout", "120")))
            .getQueueUrl();
    assertEquals(url, sqs.createQueue("v1-shapes-existing").getQueueUrl());

    Map<String, MessageAttributeValue> sent =
        Map.of(
            "preference",
            new MessageAttributeValue().withDataType("String").withStringValue("thé"),
            "name-2.x",
            new MessageAttributeValue().withDataType("String").withStringValue("値"));
    sqs.sendMessage(new SendMessageRequest(url, "x").withMessageAttributes(sent));
    List<Message> got =
        sqs.receiveMessage(new ReceiveMessageRequest(url).withMessageAttributeNames("All"))
            .getMessages();
    assertFalse(got.isEmpty());
    assertEquals(sent, got.get(0).getMessageAttributes());
  }
}
