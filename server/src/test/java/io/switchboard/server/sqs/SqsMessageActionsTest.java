package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchEntryIdsNotDistinctException;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchResponse;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.EmptyBatchRequestException;
import software.amazon.awssdk.services.sqs.model.InvalidBatchEntryIdException;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiptHandleIsInvalidException;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;
import software.amazon.awssdk.services.sqs.model.SqsException;
import software.amazon.awssdk.services.sqs.model.TooManyEntriesInBatchRequestException;

/**
 * Message actions through the stock AWS SDK for Java v2. The SDK verifies MD5OfMessageBody and
 * MD5OfMessageAttributes of every send and receive and fails the call on a mismatch, so every
 * successful call here also checks the digests.
 */
class SqsMessageActionsTest {

  @RegisterExtension static final SqsServer fixture = new SqsServer();
  private static final SqsClient sqs = fixture.sqs;

  private static String queue(String name) {
    return sqs.createQueue(b -> b.queueName(name)).queueUrl();
  }

  private static String fifo(String name, boolean contentBasedDedup) {
    return sqs.createQueue(
            b ->
                b.queueName(name)
                    .attributes(
                        Map.of(
                            QueueAttributeName.FIFO_QUEUE,
                            "true",
                            QueueAttributeName.CONTENT_BASED_DEDUPLICATION,
                            Boolean.toString(contentBasedDedup))))
        .queueUrl();
  }

  private static MessageAttributeValue string(String type, String value) {
    return MessageAttributeValue.builder().dataType(type).stringValue(value).build();
  }

  @Test
  void sendReceiveDelete_withoutAttributes_md5Verified() {
    String url = queue("plain");
    SendMessageResponse sent = sqs.sendMessage(b -> b.queueUrl(url).messageBody("héllo ✓"));
    assertEquals(md5Hex("héllo ✓"), sent.md5OfMessageBody());
    assertNull(sent.md5OfMessageAttributes());

    List<Message> got = sqs.receiveMessage(b -> b.queueUrl(url)).messages();
    assertEquals(1, got.size());
    assertEquals("héllo ✓", got.get(0).body());
    assertEquals(sent.messageId(), got.get(0).messageId());
    sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(got.get(0).receiptHandle()));
    // as SQS: a deleted message's handle is InvalidParameterValue for ChangeMessageVisibility
    SqsException gone =
        assertThrows(
            SqsException.class,
            () ->
                sqs.changeMessageVisibility(
                    b ->
                        b.queueUrl(url)
                            .receiptHandle(got.get(0).receiptHandle())
                            .visibilityTimeout(0)));
    assertEquals("InvalidParameterValue", gone.awsErrorDetails().errorCode());
  }

  private static String md5Hex(String s) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void attributes_roundTripExactly_withLabels_md5Verified() {
    String url = queue("typed");
    Map<String, MessageAttributeValue> attrs =
        Map.of(
            "region", string("String", "eu-west"),
            "count", string("Number.int", "007.50"),
            "json", string("String.json", "{\"a\":1}"),
            "blob",
                MessageAttributeValue.builder()
                    .dataType("Binary.gzip")
                    .binaryValue(SdkBytes.fromByteArray(new byte[] {0, 1, 2, (byte) 255}))
                    .build());
    SendMessageResponse sent =
        sqs.sendMessage(b -> b.queueUrl(url).messageBody("typed").messageAttributes(attrs));
    assertNotNull(sent.md5OfMessageAttributes());

    Message all =
        sqs.receiveMessage(b -> b.queueUrl(url).messageAttributeNames("All").visibilityTimeout(0))
            .messages()
            .get(0);
    assertEquals(attrs, all.messageAttributes());
    assertEquals(sent.md5OfMessageAttributes(), all.md5OfMessageAttributes());

    Message some =
        sqs.receiveMessage(b -> b.queueUrl(url).messageAttributeNames("re.*", "count"))
            .messages()
            .get(0);
    assertEquals(
        Map.of("region", attrs.get("region"), "count", attrs.get("count")),
        some.messageAttributes());
  }

  @Test
  void receive_systemAttributes() {
    String url = queue("sysattrs");
    long before = System.currentTimeMillis();
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("x"));
    sqs.receiveMessage(b -> b.queueUrl(url).visibilityTimeout(0));
    Message m =
        sqs.receiveMessage(
                b ->
                    b.queueUrl(url)
                        .messageSystemAttributeNames(
                            MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT,
                            MessageSystemAttributeName.SENT_TIMESTAMP,
                            MessageSystemAttributeName.APPROXIMATE_FIRST_RECEIVE_TIMESTAMP))
            .messages()
            .get(0);
    Map<MessageSystemAttributeName, String> a = m.attributes();
    assertEquals("2", a.get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT));
    long sentAt = Long.parseLong(a.get(MessageSystemAttributeName.SENT_TIMESTAMP));
    long firstReceive =
        Long.parseLong(a.get(MessageSystemAttributeName.APPROXIMATE_FIRST_RECEIVE_TIMESTAMP));
    assertTrue(sentAt >= before - 1000 && firstReceive >= sentAt, a.toString());
    assertEquals(3, a.size());
  }

  @Test
  void changeMessageVisibility_zeroMakesItAvailable_thenTheSameReceiptMayHideItAgain() {
    String url = queue("visibility");
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("x"));
    Message m = sqs.receiveMessage(b -> b.queueUrl(url)).messages().get(0);
    assertTrue(sqs.receiveMessage(b -> b.queueUrl(url)).messages().isEmpty());

    sqs.changeMessageVisibility(
        b -> b.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
    // Not received since: the handle is still the message's latest, as in SQS (docs/sqs.md,
    // "Messages").
    sqs.changeMessageVisibility(
        b -> b.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(10));
    assertTrue(sqs.receiveMessage(b -> b.queueUrl(url)).messages().isEmpty());
    sqs.changeMessageVisibility(
        b -> b.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
    assertEquals(1, sqs.receiveMessage(b -> b.queueUrl(url)).messages().size());
    assertThrows(
        ReceiptHandleIsInvalidException.class,
        () -> sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle("not-a-receipt")));
  }

  @Test
  void sendMessageBatch_perEntryResults_md5Verified() {
    String url = queue("batched");
    SendMessageBatchResponse r =
        sqs.sendMessageBatch(
            b ->
                b.queueUrl(url)
                    .entries(
                        SendMessageBatchRequestEntry.builder().id("a").messageBody("one").build(),
                        SendMessageBatchRequestEntry.builder()
                            .id("b_2")
                            .messageBody("two")
                            .messageAttributes(Map.of("k", string("String", "v")))
                            .build(),
                        SendMessageBatchRequestEntry.builder()
                            .id("bad-type")
                            .messageBody("three")
                            .messageAttributes(Map.of("k", string("Text", "v")))
                            .build()));
    assertEquals(List.of("a", "b_2"), r.successful().stream().map(e -> e.id()).toList());
    assertEquals(1, r.failed().size());
    assertEquals("bad-type", r.failed().get(0).id());
    assertEquals("InvalidParameterValue", r.failed().get(0).code());
    assertTrue(r.failed().get(0).senderFault());

    List<Message> got =
        sqs.receiveMessage(
                b -> b.queueUrl(url).maxNumberOfMessages(10).messageAttributeNames("All"))
            .messages();
    assertEquals(List.of("one", "two"), got.stream().map(Message::body).toList());

    DeleteMessageBatchResponse deleted =
        sqs.deleteMessageBatch(
            b ->
                b.queueUrl(url)
                    .entries(
                        e -> e.id("d1").receiptHandle(got.get(0).receiptHandle()),
                        e -> e.id("d2").receiptHandle("garbage")));
    assertEquals(List.of("d1"), deleted.successful().stream().map(e -> e.id()).toList());
    assertEquals("ReceiptHandleIsInvalid", deleted.failed().get(0).code());

    ChangeMessageVisibilityBatchResponse changed =
        sqs.changeMessageVisibilityBatch(
            b ->
                b.queueUrl(url)
                    .entries(
                        e ->
                            e.id("c1")
                                .receiptHandle(got.get(1).receiptHandle())
                                .visibilityTimeout(0),
                        e -> e.id("c2").receiptHandle("garbage").visibilityTimeout(0)));
    assertEquals(List.of("c1"), changed.successful().stream().map(e -> e.id()).toList());
    assertEquals(List.of("c2"), changed.failed().stream().map(e -> e.id()).toList());
    assertEquals("two", sqs.receiveMessage(b -> b.queueUrl(url)).messages().get(0).body());
  }

  @Test
  void batchEntryRules_failTheWholeRequest() {
    String url = queue("batchrules");
    assertThrows(
        InvalidBatchEntryIdException.class,
        () ->
            sqs.sendMessageBatch(
                b -> b.queueUrl(url).entries(e -> e.id("no spaces!").messageBody("x"))));
    assertThrows(
        BatchEntryIdsNotDistinctException.class,
        () ->
            sqs.sendMessageBatch(
                b ->
                    b.queueUrl(url)
                        .entries(
                            e -> e.id("same").messageBody("x"),
                            e -> e.id("same").messageBody("y"))));
    assertThrows(
        TooManyEntriesInBatchRequestException.class,
        () ->
            sqs.sendMessageBatch(
                b ->
                    b.queueUrl(url)
                        .entries(
                            IntStream.range(0, 11)
                                .mapToObj(
                                    i ->
                                        SendMessageBatchRequestEntry.builder()
                                            .id("e" + i)
                                            .messageBody("x")
                                            .build())
                                .toList())));
    assertThrows(
        EmptyBatchRequestException.class,
        () -> sqs.deleteMessageBatch(b -> b.queueUrl(url).entries(List.of())));
    assertTrue(sqs.receiveMessage(b -> b.queueUrl(url)).messages().isEmpty());
  }

  @Test
  void fifo_needsGroupAndDedup_returnsSequenceNumber_dedupsRepeats() {
    String url = fifo("rules.fifo", false);
    SqsException noGroup =
        assertThrows(
            SqsException.class,
            () ->
                sqs.sendMessage(b -> b.queueUrl(url).messageBody("x").messageDeduplicationId("d")));
    assertEquals("MissingParameter", noGroup.awsErrorDetails().errorCode());
    SqsException noDedup =
        assertThrows(
            SqsException.class,
            () -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("x").messageGroupId("g")));
    assertEquals("InvalidParameterValue", noDedup.awsErrorDetails().errorCode());

    SendMessageResponse first =
        sqs.sendMessage(
            b -> b.queueUrl(url).messageBody("x").messageGroupId("g").messageDeduplicationId("d"));
    SendMessageResponse again =
        sqs.sendMessage(
            b -> b.queueUrl(url).messageBody("x").messageGroupId("g").messageDeduplicationId("d"));
    assertNotNull(first.sequenceNumber());
    assertEquals(first.messageId(), again.messageId());

    Message m =
        sqs.receiveMessage(
                b ->
                    b.queueUrl(url)
                        .maxNumberOfMessages(10)
                        .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
            .messages()
            .get(0);
    assertEquals("g", m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID));
    assertEquals(
        first.sequenceNumber(), m.attributes().get(MessageSystemAttributeName.SEQUENCE_NUMBER));
    assertEquals("d", m.attributes().get(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID));
  }

  /** Seed 003: a group's batch is taken whole, and a group in flight is skipped. */
  @Test
  void seed003_interleavedGroups_receiveTenThenTen() {
    String url = fifo("seed003.fifo", true);
    for (int i = 1; i <= 11; i++) {
      int n = i;
      sqs.sendMessage(b -> b.queueUrl(url).messageBody("A" + n).messageGroupId("A"));
      sqs.sendMessage(b -> b.queueUrl(url).messageBody("B" + n).messageGroupId("B"));
    }
    List<String> first = bodies(url);
    List<String> second = bodies(url);
    assertEquals(IntStream.rangeClosed(1, 10).mapToObj(i -> "A" + i).toList(), first);
    assertEquals(IntStream.rangeClosed(1, 10).mapToObj(i -> "B" + i).toList(), second);
  }

  private static List<String> bodies(String url) {
    return sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10)).messages().stream()
        .map(Message::body)
        .toList();
  }

  @Test
  void longPoll_returnsWhenAMessageArrives() throws Exception {
    String url = queue("longpoll");
    CompletableFuture<List<Message>> poll =
        CompletableFuture.supplyAsync(
            () -> sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(20)).messages());
    // Send only once the poll is parked in the engine, so the wake-up is what is tested.
    while (fixture.waitingReceivers("longpoll") == 0 && !poll.isDone()) {
      Thread.onSpinWait();
    }
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("wake"));
    List<Message> got = poll.get(5, TimeUnit.SECONDS);
    assertEquals("wake", got.get(0).body());
  }

  @Test
  void redrivePolicy_deadLettersAfterMaxReceiveCount() {
    String dlq = queue("work-dlq");
    String url =
        sqs.createQueue(
                b ->
                    b.queueName("work")
                        .attributesWithStrings(
                            Map.of(
                                "RedrivePolicy",
                                "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:work-dlq\","
                                    + "\"maxReceiveCount\":\"2\"}")))
            .queueUrl();
    assertTrue(
        sqs.getQueueAttributes(
                b -> b.queueUrl(url).attributeNames(QueueAttributeName.REDRIVE_POLICY))
            .attributes()
            .get(QueueAttributeName.REDRIVE_POLICY)
            .contains("work-dlq"));
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("poison"));
    for (int i = 0; i < 2; i++) {
      Message m = sqs.receiveMessage(b -> b.queueUrl(url)).messages().get(0);
      sqs.changeMessageVisibility(
          b -> b.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
    }
    assertTrue(sqs.receiveMessage(b -> b.queueUrl(url)).messages().isEmpty());
    Message dead =
        sqs.receiveMessage(
                b ->
                    b.queueUrl(dlq)
                        .messageSystemAttributeNames(
                            MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT))
            .messages()
            .get(0);
    assertEquals("poison", dead.body());
  }
}
