package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.model.AddPermissionRequest;
import com.amazonaws.services.sqs.model.AmazonSQSException;
import com.amazonaws.services.sqs.model.ChangeMessageVisibilityBatchRequest;
import com.amazonaws.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import com.amazonaws.services.sqs.model.CreateQueueRequest;
import com.amazonaws.services.sqs.model.DeleteMessageBatchRequest;
import com.amazonaws.services.sqs.model.DeleteMessageBatchRequestEntry;
import com.amazonaws.services.sqs.model.GetQueueUrlRequest;
import com.amazonaws.services.sqs.model.Message;
import com.amazonaws.services.sqs.model.MessageSystemAttributeValue;
import com.amazonaws.services.sqs.model.ReceiveMessageRequest;
import com.amazonaws.services.sqs.model.SendMessageBatchRequest;
import com.amazonaws.services.sqs.model.SendMessageBatchRequestEntry;
import com.amazonaws.services.sqs.model.SendMessageRequest;
import com.amazonaws.services.sqs.model.TagQueueRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The defects of {@link SqsFidelityTest} through the stock AWS SDK for Java v1 at its last
 * query-protocol release: form-encoded requests answered in XML.
 */
class SqsV1FidelityTest {

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

  private static AmazonSQSException refused(Executable call) {
    return assertThrows(AmazonSQSException.class, call);
  }

  private static void assertUuid(String id) {
    assertEquals(id, UUID.fromString(id).toString());
  }

  private static String notVisible(String url) {
    return sqs.getQueueAttributes(url, List.of("ApproximateNumberOfMessagesNotVisible"))
        .getAttributes()
        .get("ApproximateNumberOfMessagesNotVisible");
  }

  @Test
  void missingRequestId_xmlAnswersAndErrorsCarryItInBodyAndHeader() throws Exception {
    GetQueueUrlRequest ok = new GetQueueUrlRequest("v1-request-ids");
    sqs.createQueue("v1-request-ids");
    sqs.getQueueUrl(ok);
    assertUuid(sqs.getCachedResponseMetadata(ok).getRequestId());
    AmazonSQSException e = refused(() -> sqs.getQueueUrl("v1-no-such-queue"));
    assertUuid(e.getRequestId());

    HttpResponse<String> raw =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            fixture.server.uri()
                                + "/?Action=GetQueueUrl&QueueName=v1-no-such-queue"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    String header = raw.headers().firstValue("x-amzn-RequestId").orElseThrow();
    assertUuid(header);
    assertTrue(raw.body().contains("<RequestId>" + header + "</RequestId>"), raw.body());
  }

  @Test
  void staleReceiptHandle_refused_nowSucceedsAndLeavesTheMessageWithItsLatestReceiver() {
    String url = sqs.createQueue("v1-stale").getQueueUrl();
    sqs.sendMessage(url, "again");
    Message first =
        sqs.receiveMessage(new ReceiveMessageRequest(url).withVisibilityTimeout(0))
            .getMessages()
            .get(0);
    Message second =
        sqs.receiveMessage(new ReceiveMessageRequest(url).withVisibilityTimeout(300))
            .getMessages()
            .get(0);
    assertNotEquals(first.getReceiptHandle(), second.getReceiptHandle());

    sqs.deleteMessage(url, first.getReceiptHandle());
    // through an earlier handle it applies to the message (SqsV1BehaviourTest): it stays hidden
    sqs.changeMessageVisibility(url, first.getReceiptHandle(), 600);
    assertEquals(
        1,
        sqs.deleteMessageBatch(
                new DeleteMessageBatchRequest(url)
                    .withEntries(new DeleteMessageBatchRequestEntry("d", first.getReceiptHandle())))
            .getSuccessful()
            .size());
    assertEquals(
        1,
        sqs.changeMessageVisibilityBatch(
                new ChangeMessageVisibilityBatchRequest(
                    url,
                    List.of(
                        new ChangeMessageVisibilityBatchRequestEntry("c", first.getReceiptHandle())
                            .withVisibilityTimeout(600))))
            .getSuccessful()
            .size());
    assertEquals("1", notVisible(url));
    sqs.deleteMessage(url, second.getReceiptHandle());
    assertEquals("0", notVisible(url));
  }

  @Test
  void fifoDelaySecondsZero_refused_nowAccepted() {
    String url =
        sqs.createQueue(
                new CreateQueueRequest("v1-delay-zero.fifo")
                    .withAttributes(
                        Map.of("FifoQueue", "true", "ContentBasedDeduplication", "true")))
            .getQueueUrl();
    sqs.sendMessage(new SendMessageRequest(url, "a").withMessageGroupId("g").withDelaySeconds(0));
    assertTrue(
        sqs.sendMessageBatch(
                new SendMessageBatchRequest(url)
                    .withEntries(
                        new SendMessageBatchRequestEntry("e", "b")
                            .withMessageGroupId("g")
                            .withDelaySeconds(0)))
            .getFailed()
            .isEmpty());
  }

  @Test
  void awsTraceHeader_notStored_nowReturned() {
    String url = sqs.createQueue("v1-traced").getQueueUrl();
    String trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1";
    sqs.sendMessage(
        new SendMessageRequest(url, "traced")
            .withMessageSystemAttributes(
                Map.of(
                    "AWSTraceHeader",
                    new MessageSystemAttributeValue()
                        .withDataType("String")
                        .withStringValue(trace))));
    Message m =
        sqs.receiveMessage(
                new ReceiveMessageRequest(url)
                    .withAttributeNames("AWSTraceHeader")
                    .withMessageAttributeNames("All"))
            .getMessages()
            .get(0);
    assertEquals(trace, m.getAttributes().get("AWSTraceHeader"));
    assertTrue(m.getMessageAttributes().isEmpty());
  }

  @Test
  void kmsAttributes_refusedAsUnknown_nowKeptAndReturned() {
    String url =
        sqs.createQueue(
                new CreateQueueRequest("v1-encrypted")
                    .withAttributes(
                        Map.of(
                            "KmsMasterKeyId",
                            "alias/aws/sqs",
                            "KmsDataKeyReusePeriodSeconds",
                            "86400",
                            "SqsManagedSseEnabled",
                            "false")))
            .getQueueUrl();
    assertEquals(
        Map.of(
            "KmsMasterKeyId",
            "alias/aws/sqs",
            "KmsDataKeyReusePeriodSeconds",
            "86400",
            "SqsManagedSseEnabled",
            "false"),
        sqs.getQueueAttributes(
                url,
                List.of("KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds", "SqsManagedSseEnabled"))
            .getAttributes());
    assertEquals(
        "InvalidAttributeValue",
        refused(() -> sqs.setQueueAttributes(url, Map.of("KmsDataKeyReusePeriodSeconds", "30")))
            .getErrorCode());
  }

  @Test
  void errorCodesAndTexts_asSqs() {
    AmazonSQSException fifoName =
        refused(
            () ->
                sqs.createQueue(
                    new CreateQueueRequest("v1-not-fifo")
                        .withAttributes(Map.of("FifoQueue", "true"))));
    assertEquals("InvalidParameterValue", fifoName.getErrorCode());
    assertTrue(fifoName.getErrorMessage().startsWith("The name of a FIFO queue"));

    String url = sqs.createQueue("v1-errors").getQueueUrl();
    AmazonSQSException noTags = refused(() -> sqs.tagQueue(new TagQueueRequest(url, Map.of())));
    assertEquals("MissingParameter", noTags.getErrorCode());

    AmazonSQSException noAccounts =
        refused(
            () ->
                sqs.addPermission(
                    new AddPermissionRequest()
                        .withQueueUrl(url)
                        .withLabel("l")
                        .withActions("SendMessage")));
    assertEquals("InvalidParameterValue", noAccounts.getErrorCode());
    AmazonSQSException tooMany =
        refused(
            () ->
                sqs.addPermission(
                    url,
                    "l",
                    List.of("111122223333"),
                    List.of(
                        "SendMessage",
                        "ReceiveMessage",
                        "DeleteMessage",
                        "ChangeMessageVisibility",
                        "GetQueueAttributes",
                        "GetQueueUrl",
                        "PurgeQueue",
                        "ListQueueTags")));
    assertEquals(403, tooMany.getStatusCode());
    assertEquals("OverLimit", tooMany.getErrorCode());
    assertEquals("8 Actions were found, maximum allowed is 7.", tooMany.getErrorMessage());

    AmazonSQSException missing = refused(() -> sqs.sendMessage(url + "-gone", "x"));
    assertEquals("AWS.SimpleQueueService.NonExistentQueue", missing.getErrorCode());
    assertEquals(
        "The specified queue does not exist for this wsdl version.", missing.getErrorMessage());

    AmazonSQSException receipt = refused(() -> sqs.deleteMessage(url, "garbage"));
    assertEquals(
        "The input receipt handle \"garbage\" is not a valid receipt handle.",
        receipt.getErrorMessage());

    AmazonSQSException batchId =
        refused(
            () ->
                sqs.sendMessageBatch(
                    new SendMessageBatchRequest(url)
                        .withEntries(new SendMessageBatchRequestEntry("not ok", "x"))));
    assertEquals("AWS.SimpleQueueService.InvalidBatchEntryId", batchId.getErrorCode());
    assertEquals(
        "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It"
            + " can be at most 80 letters long.",
        batchId.getErrorMessage());

    String small =
        sqs.createQueue(
                new CreateQueueRequest("v1-small")
                    .withAttributes(Map.of("MaximumMessageSize", "1024")))
            .getQueueUrl();
    assertEquals(
        "One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes.",
        refused(() -> sqs.sendMessage(small, "x".repeat(1025))).getErrorMessage());
  }
}
