package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Answer shapes and error codes (docs/sqs.md, "Compatibility matrix"), through the stock AWS SDK
 * for Java v2 (the JSON protocol) and raw JSON requests where the SDK hides the detail: one test
 * per place Switchboard answered differently from Amazon SQS. {@link SqsV1ShapesTest} has the same
 * through the query protocol.
 */
class SqsShapesTest {

  @RegisterExtension static final SqsServer fixture = new SqsServer();
  private static final SqsClient sqs = fixture.sqs;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @AfterAll
  static void closeHttp() {
    HTTP.close();
  }

  private static String queue(String name) {
    return sqs.createQueue(b -> b.queueName(name)).queueUrl();
  }

  private static String fifo(String name, boolean contentBased) {
    return sqs.createQueue(
            b ->
                b.queueName(name)
                    .attributesWithStrings(
                        Map.of(
                            "FifoQueue",
                            "true",
                            "ContentBasedDeduplication",
                            Boolean.toString(contentBased))))
        .queueUrl();
  }

  /** The refusal, with its query code (what SDK v2 reports) and text as SQS words them. */
  private static SqsException refused(String code, String text, Executable call) {
    SqsException e = assertThrows(SqsException.class, call);
    assertEquals(code, e.awsErrorDetails().errorCode(), e.getMessage());
    if (text != null) {
      assertEquals(text, e.awsErrorDetails().errorMessage());
    }
    return e;
  }

  private record Raw(int status, Map<String, List<String>> headers, JsonNode body) {
    String queryError() {
      return headers.getOrDefault("x-amzn-query-error", List.of("")).get(0);
    }
  }

  /** One JSON-protocol request, as an SDK sends it. */
  private static Raw raw(String action, String body) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(fixture.server.uri() + "/"))
                .header("X-Amz-Target", "AmazonSQS." + action)
                .header("Content-Type", "application/x-amz-json-1.0")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return new Raw(r.statusCode(), r.headers().map(), JSON.readTree(r.body()));
  }

  private static String quoted(String s) {
    return JSON.getNodeFactory().textNode(s).toString();
  }

  // ---- Shapes: empty lists left out -------------------------------------------------------------

  @Test
  void emptyListsInAnswers_wereSentAsEmptyArrays_nowLeftOut() throws Exception {
    String url = queue("shapes-empty");
    String q = quoted(url);
    assertEquals("{}", raw("ReceiveMessage", "{\"QueueUrl\":" + q + "}").body().toString());
    assertEquals(
        "{}", raw("ListQueues", "{\"QueueNamePrefix\":\"no-such-prefix\"}").body().toString());
    assertEquals("{}", raw("ListQueueTags", "{\"QueueUrl\":" + q + "}").body().toString());
    assertEquals(
        "{}", raw("ListDeadLetterSourceQueues", "{\"QueueUrl\":" + q + "}").body().toString());
    JsonNode sent =
        raw(
                "SendMessageBatch",
                "{\"QueueUrl\":" + q + ",\"Entries\":[{\"Id\":\"a\",\"MessageBody\":\"x\"}]}")
            .body();
    // a batch answer's two lists stay, empty or not (botocore's model requires both)
    assertTrue(sent.has("Successful"), sent.toString());
    assertEquals("[]", sent.get("Failed").toString(), sent.toString());
    JsonNode deleted =
        raw(
                "DeleteMessageBatch",
                "{\"QueueUrl\":" + q + ",\"Entries\":[{\"Id\":\"a\",\"ReceiptHandle\":\"junk\"}]}")
            .body();
    assertTrue(deleted.has("Failed"), deleted.toString());
    assertEquals("[]", deleted.get("Successful").toString(), deleted.toString());

    // SDKs read an absent list as an empty one
    sqs.purgeQueue(b -> b.queueUrl(url));
    assertFalse(sqs.receiveMessage(b -> b.queueUrl(url)).hasMessages());
    assertTrue(sqs.listQueues(b -> b.queueNamePrefix("no-such-prefix")).queueUrls().isEmpty());
  }

  // ---- Shapes: JSON error types ---------------------------------------------------------------

  @Test
  void jsonErrorTypes_wereTheQueryCodes_nowTheSqsJsonModelsExceptionNames() throws Exception {
    String q = quoted(queue("shapes-types"));
    Raw invalid = raw("ReceiveMessage", "{\"QueueUrl\":" + q + ",\"MaxNumberOfMessages\":11}");
    assertEquals(400, invalid.status());
    assertEquals(
        "com.amazonaws.sqs#InvalidParameterValueException", invalid.body().get("__type").asText());
    assertEquals("InvalidParameterValue;Sender", invalid.queryError());

    Raw missing = raw("SendMessage", "{\"QueueUrl\":" + q + "}");
    assertEquals(
        "com.amazonaws.sqs#MissingRequiredParameterException",
        missing.body().get("__type").asText());
    assertEquals("MissingParameter;Sender", missing.queryError());

    Raw noQueue = raw("GetQueueUrl", "{\"QueueName\":\"shapes-no-such-queue\"}");
    assertEquals("com.amazonaws.sqs#QueueDoesNotExist", noQueue.body().get("__type").asText());
    assertEquals("AWS.SimpleQueueService.NonExistentQueue;Sender", noQueue.queryError());
    assertEquals("The specified queue does not exist.", noQueue.body().get("message").asText());

    Raw unknown = raw("CreateTopic", "{}");
    assertEquals(
        "com.amazonaws.sqs#UnknownOperationException", unknown.body().get("__type").asText());
    assertEquals("InvalidAction;Sender", unknown.queryError());

    // SDK v2 reads the query code for errorCode() and the type for the exception class
    refused(
        "InvalidParameterValue",
        "Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10,"
            + " if provided.",
        () ->
            sqs.receiveMessage(
                b -> b.queueUrl(fixture.url("shapes-types")).maxNumberOfMessages(11)));
    assertThrows(
        QueueDoesNotExistException.class,
        () -> sqs.getQueueUrl(b -> b.queueName("shapes-no-such-queue")));
  }

  @Test
  void purgeQueueInProgress_was400_now403AsTheSqsModel() {
    String url = queue("shapes-purge");
    sqs.purgeQueue(b -> b.queueUrl(url));
    SqsException e =
        refused(
            "AWS.SimpleQueueService.PurgeQueueInProgress",
            null,
            () -> sqs.purgeQueue(b -> b.queueUrl(url)));
    assertEquals(403, e.statusCode());
  }

  // ---- Shapes: policies, encryption ---------------------------------------------------------

  @Test
  void addPermissionPolicyVersion_was2012_now2008AsSqsWritesIt() throws Exception {
    String url = queue("shapes-permission");
    sqs.addPermission(
        b ->
            b.queueUrl(url)
                .label("readers")
                .awsAccountIds("000000000000")
                .actions("ReceiveMessage"));
    String policy =
        sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.POLICY))
            .attributes()
            .get(QueueAttributeName.POLICY);
    assertEquals("2008-10-17", JSON.readTree(policy).get("Version").asText());
  }

  private static Map<QueueAttributeName, String> sse(String url) {
    return sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL))
        .attributes();
  }

  @Test
  void sqsManagedSse_wasAbsentByDefault_nowTrueAndExclusiveWithAKmsKey() {
    String url = queue("shapes-sse");
    assertEquals("true", sse(url).get(QueueAttributeName.SQS_MANAGED_SSE_ENABLED));
    assertFalse(sse(url).containsKey(QueueAttributeName.KMS_MASTER_KEY_ID));

    // SSE-KMS replaces SSE-SQS
    sqs.setQueueAttributes(
        b ->
            b.queueUrl(url)
                .attributes(
                    Map.of(
                        QueueAttributeName.KMS_MASTER_KEY_ID,
                        "alias/aws/sqs",
                        QueueAttributeName.KMS_DATA_KEY_REUSE_PERIOD_SECONDS,
                        "600")));
    Map<QueueAttributeName, String> kms = sse(url);
    assertEquals("false", kms.get(QueueAttributeName.SQS_MANAGED_SSE_ENABLED));
    assertEquals("alias/aws/sqs", kms.get(QueueAttributeName.KMS_MASTER_KEY_ID));
    assertEquals("600", kms.get(QueueAttributeName.KMS_DATA_KEY_REUSE_PERIOD_SECONDS));

    // both at once is refused, and changes nothing
    refused(
        "InvalidAttributeName",
        "You can use one type of server-side encryption (SSE) at one time. You can either enable"
            + " KMS SSE or SQS SSE.",
        () ->
            sqs.setQueueAttributes(
                b ->
                    b.queueUrl(url)
                        .attributesWithStrings(
                            Map.of("SqsManagedSseEnabled", "true", "KmsMasterKeyId", "k"))));
    assertEquals(kms, sse(url));

    // and SSE-SQS (any case) replaces SSE-KMS
    sqs.setQueueAttributes(
        b -> b.queueUrl(url).attributesWithStrings(Map.of("SqsManagedSseEnabled", "True")));
    Map<QueueAttributeName, String> back = sse(url);
    assertEquals("true", back.get(QueueAttributeName.SQS_MANAGED_SSE_ENABLED));
    assertFalse(back.containsKey(QueueAttributeName.KMS_MASTER_KEY_ID));
    assertFalse(back.containsKey(QueueAttributeName.KMS_DATA_KEY_REUSE_PERIOD_SECONDS));
  }

  // ---- Codes and validation -----------------------------------------------------------------

  @Test
  void emptyMessageBody_wasInvalidParameterValue_nowMissingParameter() {
    String url = queue("shapes-empty-body");
    refused(
        "MissingParameter",
        "The request must contain the parameter MessageBody.",
        () -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("")));
  }

  @Test
  void invalidBodyCharacters_wereInvalidParameterValue_nowInvalidMessageContents()
      throws Exception {
    String url = queue("shapes-bad-chars");
    refused(
        "InvalidMessageContents",
        "Invalid binary character '#x1' was found in the message body, the set of allowed"
            + " characters is #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to"
            + " #x10FFFF",
        () -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("a\u0001b")));
    Raw r = raw("SendMessage", "{\"QueueUrl\":" + quoted(url) + ",\"MessageBody\":\"\\u0000\"}");
    assertEquals("com.amazonaws.sqs#InvalidMessageContents", r.body().get("__type").asText());
    assertEquals("InvalidMessageContents;Sender", r.queryError());
  }

  @Test
  void emptyBatch_isEmptyBatchRequest() {
    String url = queue("shapes-empty-batch");
    refused(
        "AWS.SimpleQueueService.EmptyBatchRequest",
        "There should be at least one SendMessageBatchRequestEntry in the request.",
        () -> sqs.sendMessageBatch(b -> b.queueUrl(url).entries(List.of())));
    refused(
        "AWS.SimpleQueueService.EmptyBatchRequest",
        "There should be at least one DeleteMessageBatchRequestEntry in the request.",
        () -> sqs.deleteMessageBatch(b -> b.queueUrl(url).entries(List.of())));
  }

  @Test
  void changeVisibilityOfADeletedMessage_wasReceiptHandleIsInvalid_nowInvalidParameterValue() {
    String url = queue("shapes-cmv-deleted");
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("gone"));
    Message m = sqs.receiveMessage(b -> b.queueUrl(url)).messages().get(0);
    sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(m.receiptHandle()));
    refused(
        "InvalidParameterValue",
        "Value "
            + m.receiptHandle()
            + " for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not"
            + " available for visibility timeout change.",
        () ->
            sqs.changeMessageVisibility(
                b -> b.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(10)));
    // the batch entry fails alike
    var failed =
        sqs.changeMessageVisibilityBatch(
                b ->
                    b.queueUrl(url)
                        .entries(
                            e -> e.id("c").receiptHandle(m.receiptHandle()).visibilityTimeout(10)))
            .failed();
    assertEquals("InvalidParameterValue", failed.get(0).code());
  }

  @Test
  void fifoNameAndFlagMismatches_areInvalidParameterValue_andAStandardQueueKnowsNoFifoQueue() {
    String nameRule =
        "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length";
    refused(
        "InvalidParameterValue",
        nameRule,
        () -> sqs.createQueue(b -> b.queueName("shapes-flagless.fifo")));
    refused(
        "InvalidParameterValue",
        nameRule,
        () ->
            sqs.createQueue(
                b ->
                    b.queueName("shapes-false.fifo")
                        .attributesWithStrings(Map.of("FifoQueue", "false"))));
    refused(
        "InvalidParameterValue",
        "The name of a FIFO queue can only include alphanumeric characters, hyphens, or"
            + " underscores, must end with .fifo suffix and be 1 to 80 in length.",
        () ->
            sqs.createQueue(
                b ->
                    b.queueName("shapes-plain")
                        .attributesWithStrings(Map.of("FifoQueue", "true"))));
    refused(
        "InvalidAttributeName",
        "Unknown Attribute FifoQueue.",
        () ->
            sqs.createQueue(
                b ->
                    b.queueName("shapes-plain")
                        .attributesWithStrings(Map.of("FifoQueue", "false"))));
    refused(
        "InvalidAttributeName",
        "Unknown Attribute ContentBasedDeduplication.",
        () ->
            sqs.createQueue(
                b ->
                    b.queueName("shapes-plain")
                        .attributesWithStrings(Map.of("ContentBasedDeduplication", "false"))));
    assertThrows(
        QueueDoesNotExistException.class, () -> sqs.getQueueUrl(b -> b.queueName("shapes-plain")));
  }

  @Test
  void rangeTexts_asSqsWordsEachParameter() {
    String url = queue("shapes-ranges");
    refused(
        "InvalidParameterValue",
        "Value -1 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if"
            + " provided.",
        () -> sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(-1)));
    refused(
        "InvalidParameterValue",
        "Value 43201 for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <="
            + " 43200, if provided.",
        () -> sqs.receiveMessage(b -> b.queueUrl(url).visibilityTimeout(43_201)));
    refused(
        "InvalidParameterValue",
        "Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <="
            + " 900.",
        () -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("x").delaySeconds(901)));
    refused(
        "InvalidParameterValue",
        "One or more parameters are invalid. Reason: Message must be shorter than 1048576 bytes.",
        () -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("x".repeat(1_048_577))));
  }

  @Test
  void
      attributeValueErrors_queueAttributesInvalidAttributeValue_redrivePolicyInvalidParameterValue() {
    String url = queue("shapes-attribute-values");
    SqsException e =
        refused(
            "InvalidAttributeValue",
            null,
            () ->
                sqs.setQueueAttributes(
                    b -> b.queueUrl(url).attributesWithStrings(Map.of("DelaySeconds", "901"))));
    assertTrue(
        e.awsErrorDetails()
            .errorMessage()
            .startsWith("Invalid value for the parameter DelaySeconds"),
        e.getMessage());
    for (String[] c :
        new String[][] {
          {"not json", "Redrive policy is not a valid JSON map."},
          {
            "{\"maxReceiveCount\":3}",
            "Redrive policy does not contain mandatory attribute: deadLetterTargetArn."
          },
          {
            "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:shapes-attribute-values\","
                + "\"maxReceiveCount\":1001}",
            "Invalid value for maxReceiveCount: 1001, valid values are from 1 to 1000 both inclusive."
          }
        }) {
      refused(
          "InvalidParameterValue",
          "Value " + c[0] + " for parameter RedrivePolicy is invalid. Reason: " + c[1],
          () ->
              sqs.setQueueAttributes(
                  b -> b.queueUrl(url).attributesWithStrings(Map.of("RedrivePolicy", c[0]))));
    }
    assertFalse(
        sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL))
            .attributesAsStrings()
            .containsKey("RedrivePolicy"));
  }

  @Test
  void booleanAttributes_wereCaseSensitive_nowAnyCase() {
    String url =
        sqs.createQueue(
                b ->
                    b.queueName("shapes-case.fifo")
                        .attributesWithStrings(
                            Map.of("FifoQueue", "True", "ContentBasedDeduplication", "TRUE")))
            .queueUrl();
    Map<QueueAttributeName, String> a =
        sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL))
            .attributes();
    assertEquals("true", a.get(QueueAttributeName.FIFO_QUEUE));
    assertEquals("true", a.get(QueueAttributeName.CONTENT_BASED_DEDUPLICATION));
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("no dedup id").messageGroupId("g"));
  }

  // ---- SQS rejects, Switchboard accepted ----------------------------------------------------

  @Test
  void invalidMessageGroupIdOnAStandardQueue_wasAccepted_nowRefused() {
    String url = queue("shapes-group-id");
    refused(
        "InvalidParameterValue",
        "Value bad group for parameter MessageGroupId is invalid. Reason: MessageGroupId can only"
            + " include alphanumeric and punctuation characters. 1 to 128 in length.",
        () -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("x").messageGroupId("bad group")));
  }

  private static MessageAttributeValue string(String value) {
    return MessageAttributeValue.builder().dataType("String").stringValue(value).build();
  }

  @Test
  void emptyOrInvalidStringAttributeValues_wereAccepted_nowRefused() {
    String url = queue("shapes-attr-values");
    refused(
        "InvalidParameterValue",
        "Message (user) attribute 'color' must contain a non-empty value of type 'String'.",
        () ->
            sqs.sendMessage(
                b ->
                    b.queueUrl(url)
                        .messageBody("x")
                        .messageAttributes(Map.of("color", string("")))));
    refused(
        "InvalidParameterValue",
        "The message attribute 'blob' must contain non-empty message attribute value for message"
            + " attribute type 'Binary'.",
        () ->
            sqs.sendMessage(
                b ->
                    b.queueUrl(url)
                        .messageBody("x")
                        .messageAttributes(
                            Map.of(
                                "blob",
                                MessageAttributeValue.builder()
                                    .dataType("Binary")
                                    .binaryValue(SdkBytes.fromByteArray(new byte[0]))
                                    .build()))));
    SqsException bad =
        refused(
            "InvalidParameterValue",
            null,
            () ->
                sqs.sendMessage(
                    b ->
                        b.queueUrl(url)
                            .messageBody("x")
                            .messageAttributes(Map.of("color", string("a\u0000b")))));
    assertTrue(bad.awsErrorDetails().errorMessage().contains("'#x0'"), bad.getMessage());
  }

  @Test
  void fifoBatchEntryWithoutDedupOrGroupId_failedTheEntry_nowFailsTheRequest() {
    String url = fifo("shapes-batch.fifo", false);
    refused(
        "InvalidParameterValue",
        "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId"
            + " provided explicitly",
        () ->
            sqs.sendMessageBatch(
                b ->
                    b.queueUrl(url)
                        .entries(
                            SendMessageBatchRequestEntry.builder()
                                .id("ok")
                                .messageBody("x")
                                .messageGroupId("g")
                                .messageDeduplicationId("d")
                                .build(),
                            SendMessageBatchRequestEntry.builder()
                                .id("no-dedup")
                                .messageBody("y")
                                .messageGroupId("g")
                                .build())));
    refused(
        "InvalidParameterValue", // as SQS in a batch (a single send's is MissingParameter)
        "The request must contain the parameter MessageGroupId.",
        () ->
            sqs.sendMessageBatch(
                b ->
                    b.queueUrl(url)
                        .entries(
                            SendMessageBatchRequestEntry.builder()
                                .id("no-group")
                                .messageBody("y")
                                .messageDeduplicationId("d")
                                .build())));
    // nothing of either request was sent
    assertFalse(sqs.receiveMessage(b -> b.queueUrl(url)).hasMessages());
  }

  @Test
  void getQueueAttributesOfADeletedQueueWithNoNames_answeredEmpty_nowQueueDoesNotExist() {
    String url = queue("shapes-deleted");
    sqs.deleteQueue(b -> b.queueUrl(url));
    assertThrows(
        QueueDoesNotExistException.class, () -> sqs.getQueueAttributes(b -> b.queueUrl(url)));
  }

  // ---- SQS accepts, Switchboard refused -----------------------------------------------------

  @Test
  void createQueueOfAnExistingNameWithNoAttributes_wasQueueNameExists_nowItsUrl() {
    String url =
        sqs.createQueue(
                b ->
                    b.queueName("shapes-existing")
                        .attributes(Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "120")))
            .queueUrl();
    assertEquals(url, queue("shapes-existing"));
    // different attributes are still refused
    refused(
        "QueueAlreadyExists",
        null,
        () ->
            sqs.createQueue(
                b ->
                    b.queueName("shapes-existing")
                        .attributes(Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "60"))));
  }

  @Test
  void messageAttributeNames_areAsciiLettersDigitsAndUnderscoreHyphenPeriod_asSqsDocumentsThem() {
    String url = queue("shapes-attr-names");
    Map<String, MessageAttributeValue> sent =
        Map.of("Size_2.x", string("L"), "tenant-id", string("t1"), "A0", string("v"));
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("x").messageAttributes(sent));
    Message m =
        sqs.receiveMessage(b -> b.queueUrl(url).messageAttributeNames("All")).messages().get(0);
    assertEquals(sent, m.messageAttributes()); // and SDK v2 checked the MD5 of them

    for (String name : List.of("préférence", "名前", "a b", "a/b")) {
      SqsException e =
          assertThrows(
              SqsException.class,
              () ->
                  sqs.sendMessage(
                      b ->
                          b.queueUrl(url)
                              .messageBody("x")
                              .messageAttributes(Map.of(name, string("v")))),
              name);
      assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode(), name);
      assertTrue(e.awsErrorDetails().errorMessage().contains("A-Z, a-z, 0-9"), name);
    }
  }
}
