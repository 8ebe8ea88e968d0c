package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeNameForSends;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Where Switchboard answered differently from Amazon SQS through the stock AWS SDK for Java v2 (the
 * JSON protocol), one test per defect: request ids, stale receipt handles, FIFO {@code
 * DelaySeconds=0}, {@code AWSTraceHeader}, the encryption attributes, and error codes and texts.
 */
class SqsFidelityTest {

  @RegisterExtension static final SqsServer fixture = new SqsServer();
  private static final SqsClient sqs = fixture.sqs;

  private static String queue(String name) {
    return fixture.createQueue(name);
  }

  private static String fifo(String name) {
    return fixture.createFifoQueue(name);
  }

  private static SqsException refused(Executable call) {
    return assertThrows(SqsException.class, call);
  }

  private static String notVisible(String url) {
    return sqs.getQueueAttributes(
            b ->
                b.queueUrl(url)
                    .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
        .attributes()
        .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE);
  }

  private static void assertUuid(String id) {
    assertEquals(id, UUID.fromString(id).toString());
  }

  // ---- request ids ---------------------------------------------------------------------------

  @Test
  void missingRequestId_everyAnswerAndErrorCarriesAUuid() {
    String url = queue("request-ids");
    String first =
        sqs.sendMessage(b -> b.queueUrl(url).messageBody("x")).responseMetadata().requestId();
    String second = sqs.getQueueUrl(b -> b.queueName("request-ids")).responseMetadata().requestId();
    assertUuid(first);
    assertUuid(second);
    assertNotEquals(first, second);
    SqsException e = refused(() -> sqs.getQueueUrl(b -> b.queueName("no-such-queue")));
    assertUuid(e.requestId());
  }

  // ---- stale receipt handles -----------------------------------------------------------------

  @Test
  void staleReceiptHandle_refused_nowSucceedsAndLeavesTheMessageWithItsLatestReceiver() {
    String url = queue("stale-receipts");
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("again"));
    Message first = sqs.receiveMessage(b -> b.queueUrl(url).visibilityTimeout(0)).messages().get(0);
    Message second =
        sqs.receiveMessage(b -> b.queueUrl(url).visibilityTimeout(300)).messages().get(0);
    assertEquals(first.messageId(), second.messageId());
    assertNotEquals(first.receiptHandle(), second.receiptHandle());

    sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(first.receiptHandle()));
    // ChangeMessageVisibility through an earlier handle applies to the message, as SQS's servers
    // do (SqsBatchAndHandleTest): here it keeps it hidden, with its latest receiver
    sqs.changeMessageVisibility(
        b -> b.queueUrl(url).receiptHandle(first.receiptHandle()).visibilityTimeout(600));
    assertEquals(
        List.of("d"),
        sqs
            .deleteMessageBatch(
                b -> b.queueUrl(url).entries(e -> e.id("d").receiptHandle(first.receiptHandle())))
            .successful()
            .stream()
            .map(e -> e.id())
            .toList());
    assertEquals(
        List.of("c"),
        sqs
            .changeMessageVisibilityBatch(
                b ->
                    b.queueUrl(url)
                        .entries(
                            e ->
                                e.id("c")
                                    .receiptHandle(first.receiptHandle())
                                    .visibilityTimeout(600)))
            .successful()
            .stream()
            .map(e -> e.id())
            .toList());

    // Not deleted: still leased to the second receiver, who can delete it.
    assertEquals("1", notVisible(url));
    assertTrue(sqs.receiveMessage(b -> b.queueUrl(url)).messages().isEmpty());
    sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(second.receiptHandle()));
    assertEquals("0", notVisible(url));
  }

  @Test
  void invalidReceiptHandle_hasSqsText() {
    String url = queue("bad-receipt");
    SqsException e =
        refused(() -> sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle("garbage")));
    assertEquals("ReceiptHandleIsInvalid", e.awsErrorDetails().errorCode());
    assertEquals(
        "The input receipt handle \"garbage\" is not a valid receipt handle.",
        e.awsErrorDetails().errorMessage());
  }

  // ---- FIFO DelaySeconds=0 -------------------------------------------------------------------

  @Test
  void fifoDelaySecondsZero_refused_nowAccepted_nonZeroStillRefused() {
    String url = fifo("delay-zero.fifo");
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("a").messageGroupId("g").delaySeconds(0));
    var batch =
        sqs.sendMessageBatch(
            b ->
                b.queueUrl(url)
                    .entries(
                        SendMessageBatchRequestEntry.builder()
                            .id("e")
                            .messageBody("b")
                            .messageGroupId("g")
                            .delaySeconds(0)
                            .build()));
    assertEquals(1, batch.successful().size());
    assertTrue(batch.failed().isEmpty());
    SqsException e =
        refused(
            () ->
                sqs.sendMessage(
                    b -> b.queueUrl(url).messageBody("c").messageGroupId("g").delaySeconds(5)));
    assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode());
  }

  // ---- AWSTraceHeader ------------------------------------------------------------------------

  private static final String TRACE = "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1";

  private static void sendTraced(SqsClient client, String url) {
    client.sendMessage(
        b ->
            b.queueUrl(url)
                .messageBody("traced")
                .messageAttributes(
                    Map.of(
                        "k",
                        MessageAttributeValue.builder()
                            .dataType("String")
                            .stringValue("v")
                            .build()))
                .messageSystemAttributes(
                    Map.of(
                        MessageSystemAttributeNameForSends.AWS_TRACE_HEADER,
                        MessageSystemAttributeValue.builder()
                            .dataType("String")
                            .stringValue(TRACE)
                            .build())));
  }

  @Test
  void awsTraceHeader_notStored_nowReturnedWhenAskedAndHiddenFromMessageAttributes() {
    String url = queue("traced");
    sendTraced(sqs, url);
    Message m =
        sqs.receiveMessage(
                b ->
                    b.queueUrl(url)
                        .visibilityTimeout(0)
                        .messageSystemAttributeNames(MessageSystemAttributeName.AWS_TRACE_HEADER)
                        .messageAttributeNames("All"))
            .messages()
            .get(0);
    assertEquals(TRACE, m.attributes().get(MessageSystemAttributeName.AWS_TRACE_HEADER));
    assertEquals(List.of("k"), List.copyOf(m.messageAttributes().keySet()));

    Message all =
        sqs.receiveMessage(
                b ->
                    b.queueUrl(url)
                        .messageSystemAttributeNamesWithStrings("All")
                        .visibilityTimeout(0))
            .messages()
            .get(0);
    assertEquals(TRACE, all.attributes().get(MessageSystemAttributeName.AWS_TRACE_HEADER));

    Message none = sqs.receiveMessage(b -> b.queueUrl(url)).messages().get(0);
    assertFalse(none.hasAttributes() && !none.attributes().isEmpty());
  }

  @Test
  void awsTraceHeader_otherSystemAttributeNames_refused() {
    String url = queue("traced-bad");
    SqsException e =
        refused(
            () ->
                sqs.sendMessage(
                    b ->
                        b.queueUrl(url)
                            .messageBody("x")
                            .messageSystemAttributesWithStrings(
                                Map.of(
                                    "SenderId",
                                    MessageSystemAttributeValue.builder()
                                        .dataType("String")
                                        .stringValue("me")
                                        .build()))));
    assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode());
  }

  // ---- encryption attributes -----------------------------------------------------------------

  @Test
  void kmsAttributes_refusedAsUnknown_nowKeptAndReturned() {
    String url =
        sqs.createQueue(
                b ->
                    b.queueName("encrypted")
                        .attributes(
                            Map.of(
                                QueueAttributeName.KMS_MASTER_KEY_ID,
                                "alias/aws/sqs",
                                QueueAttributeName.KMS_DATA_KEY_REUSE_PERIOD_SECONDS,
                                "600")))
            .queueUrl();
    Map<QueueAttributeName, String> a =
        sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL))
            .attributes();
    assertEquals("alias/aws/sqs", a.get(QueueAttributeName.KMS_MASTER_KEY_ID));
    assertEquals("600", a.get(QueueAttributeName.KMS_DATA_KEY_REUSE_PERIOD_SECONDS));
    assertEquals("false", a.get(QueueAttributeName.SQS_MANAGED_SSE_ENABLED)); // SSE-KMS

    sqs.setQueueAttributes(
        b ->
            b.queueUrl(url).attributes(Map.of(QueueAttributeName.SQS_MANAGED_SSE_ENABLED, "true")));
    assertEquals(
        "true",
        sqs.getQueueAttributes(
                b -> b.queueUrl(url).attributeNames(QueueAttributeName.SQS_MANAGED_SSE_ENABLED))
            .attributes()
            .get(QueueAttributeName.SQS_MANAGED_SSE_ENABLED));

    for (String bad : List.of("59", "86401", "soon")) {
      SqsException e =
          refused(
              () ->
                  sqs.setQueueAttributes(
                      b ->
                          b.queueUrl(url)
                              .attributes(
                                  Map.of(
                                      QueueAttributeName.KMS_DATA_KEY_REUSE_PERIOD_SECONDS, bad))));
      assertEquals("InvalidAttributeValue", e.awsErrorDetails().errorCode(), bad);
    }
    SqsException notBool =
        refused(
            () ->
                sqs.setQueueAttributes(
                    b ->
                        b.queueUrl(url)
                            .attributes(
                                Map.of(QueueAttributeName.SQS_MANAGED_SSE_ENABLED, "yes"))));
    assertEquals("InvalidAttributeValue", notBool.awsErrorDetails().errorCode());
  }

  @Test
  void awsTraceHeaderAndKmsAttributes_surviveARestartOfTheDurableServer(@TempDir Path dir) {
    try (SqsServer durable = new SqsServer(dir)) {
      String url =
          durable
              .sqs
              .createQueue(
                  b ->
                      b.queueName("kept")
                          .attributes(Map.of(QueueAttributeName.KMS_MASTER_KEY_ID, "alias/k")))
              .queueUrl();
      sendTraced(durable.sqs, url);
    }
    try (SqsServer durable = new SqsServer(dir)) {
      String url = durable.url("kept");
      Map<QueueAttributeName, String> a =
          durable
              .sqs
              .getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL))
              .attributes();
      assertEquals("alias/k", a.get(QueueAttributeName.KMS_MASTER_KEY_ID));
      assertEquals("300", a.get(QueueAttributeName.KMS_DATA_KEY_REUSE_PERIOD_SECONDS));
      Message m =
          durable
              .sqs
              .receiveMessage(
                  b ->
                      b.queueUrl(url)
                          .messageSystemAttributeNames(MessageSystemAttributeName.AWS_TRACE_HEADER))
              .messages()
              .get(0);
      assertEquals(TRACE, m.attributes().get(MessageSystemAttributeName.AWS_TRACE_HEADER));
    }
  }

  // ---- error codes and texts -----------------------------------------------------------------

  @Test
  void fifoQueueOnNonFifoName_wasInvalidAttributeName_nowInvalidParameterValueWithSqsText() {
    SqsException e =
        refused(
            () ->
                sqs.createQueue(
                    b ->
                        b.queueName("not-fifo")
                            .attributes(Map.of(QueueAttributeName.FIFO_QUEUE, "true"))));
    assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode());
    assertEquals(
        "The name of a FIFO queue can only include alphanumeric characters, hyphens, or"
            + " underscores, must end with .fifo suffix and be 1 to 80 in length.",
        e.awsErrorDetails().errorMessage());
  }

  @Test
  void tagQueueWithoutTags_andUntagQueueWithoutKeys_succeeded_nowRefused() {
    String url = queue("tagless");
    SqsException noTags = refused(() -> sqs.tagQueue(b -> b.queueUrl(url).tags(Map.of())));
    assertEquals("MissingParameter", noTags.awsErrorDetails().errorCode());
    assertEquals(
        "The request must contain the parameter Tags.", noTags.awsErrorDetails().errorMessage());
    SqsException noKeys = refused(() -> sqs.untagQueue(b -> b.queueUrl(url).tagKeys(List.of())));
    assertEquals("InvalidParameterValue", noKeys.awsErrorDetails().errorCode());
    assertEquals(
        "Tag keys must be between 1 and 128 characters in length.",
        noKeys.awsErrorDetails().errorMessage());
  }

  @Test
  void addPermission_noAccountsAndTooManyActions_hadWrongCodes() {
    String url = queue("permitted");
    SqsException noAccounts =
        refused(
            () ->
                sqs.addPermission(
                    b ->
                        b.queueUrl(url)
                            .label("l")
                            .awsAccountIds(List.of())
                            .actions("SendMessage")));
    assertEquals("InvalidParameterValue", noAccounts.awsErrorDetails().errorCode());
    assertEquals(
        "Value [] for parameter PrincipalId is invalid. Reason: Unable to verify.",
        noAccounts.awsErrorDetails().errorMessage());
    SqsException noActions =
        refused(
            () ->
                sqs.addPermission(
                    b ->
                        b.queueUrl(url)
                            .label("l")
                            .awsAccountIds("111122223333")
                            .actions(List.of())));
    assertEquals(
        "The request must contain the parameter Actions.",
        noActions.awsErrorDetails().errorMessage());
    SqsException tooMany =
        refused(
            () ->
                sqs.addPermission(
                    b ->
                        b.queueUrl(url)
                            .label("l")
                            .awsAccountIds("111122223333")
                            .actions(
                                "SendMessage",
                                "ReceiveMessage",
                                "DeleteMessage",
                                "ChangeMessageVisibility",
                                "GetQueueAttributes",
                                "GetQueueUrl",
                                "PurgeQueue",
                                "ListQueueTags")));
    assertEquals(403, tooMany.statusCode());
    assertEquals("OverLimit", tooMany.awsErrorDetails().errorCode());
    assertEquals(
        "8 Actions were found, maximum allowed is 7.", tooMany.awsErrorDetails().errorMessage());
  }

  @Test
  void queueDoesNotExist_textNamedTheQueue_nowSqsTextForEveryAction() {
    String url = fixture.url("no-such-queue");
    List<Executable> calls =
        List.of(
            () -> sqs.getQueueUrl(b -> b.queueName("no-such-queue")),
            () -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("x")),
            () -> sqs.receiveMessage(b -> b.queueUrl(url)),
            () ->
                sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL)),
            () -> sqs.deleteQueue(b -> b.queueUrl(url)),
            () -> sqs.listQueueTags(b -> b.queueUrl(url)));
    for (Executable call : calls) {
      SqsException e = refused(call);
      // SDK v2 reports the legacy code (x-amzn-query-error), as against Amazon SQS
      assertEquals("AWS.SimpleQueueService.NonExistentQueue", e.awsErrorDetails().errorCode());
      assertEquals("The specified queue does not exist.", e.awsErrorDetails().errorMessage());
    }
  }

  @Test
  void invalidQueueName_hasSqsText() {
    SqsException e = refused(() -> sqs.createQueue(b -> b.queueName("no spaces!")));
    assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode());
    assertEquals(
        "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length",
        e.awsErrorDetails().errorMessage());
  }

  @Test
  void invalidBatchEntryId_textHadGot_nowSqsText() {
    String url = queue("batch-ids");
    SqsException e =
        refused(
            () ->
                sqs.sendMessageBatch(
                    b -> b.queueUrl(url).entries(e1 -> e1.id("not ok").messageBody("x"))));
    assertEquals(
        "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It"
            + " can be at most 80 letters long.",
        e.awsErrorDetails().errorMessage());
  }

  @Test
  void messageTooLarge_namesTheQueuesLimitInBytes() {
    String url =
        sqs.createQueue(
                b ->
                    b.queueName("small")
                        .attributes(Map.of(QueueAttributeName.MAXIMUM_MESSAGE_SIZE, "1024")))
            .queueUrl();
    String big = "x".repeat(1025);
    SqsException e = refused(() -> sqs.sendMessage(b -> b.queueUrl(url).messageBody(big)));
    assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode());
    assertEquals(
        "One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes.",
        e.awsErrorDetails().errorMessage());
    var batch =
        sqs.sendMessageBatch(b -> b.queueUrl(url).entries(e1 -> e1.id("big").messageBody(big)));
    assertEquals(
        "One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes.",
        batch.failed().get(0).message());
  }
}
