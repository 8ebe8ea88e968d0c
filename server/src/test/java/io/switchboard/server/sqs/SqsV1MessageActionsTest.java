package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.model.AmazonSQSException;
import com.amazonaws.services.sqs.model.BatchEntryIdsNotDistinctException;
import com.amazonaws.services.sqs.model.ChangeMessageVisibilityBatchRequest;
import com.amazonaws.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import com.amazonaws.services.sqs.model.ChangeMessageVisibilityBatchResult;
import com.amazonaws.services.sqs.model.CreateQueueRequest;
import com.amazonaws.services.sqs.model.DeleteMessageBatchRequest;
import com.amazonaws.services.sqs.model.DeleteMessageBatchRequestEntry;
import com.amazonaws.services.sqs.model.DeleteMessageBatchResult;
import com.amazonaws.services.sqs.model.EmptyBatchRequestException;
import com.amazonaws.services.sqs.model.InvalidBatchEntryIdException;
import com.amazonaws.services.sqs.model.Message;
import com.amazonaws.services.sqs.model.MessageAttributeValue;
import com.amazonaws.services.sqs.model.ReceiptHandleIsInvalidException;
import com.amazonaws.services.sqs.model.ReceiveMessageRequest;
import com.amazonaws.services.sqs.model.SendMessageBatchRequest;
import com.amazonaws.services.sqs.model.SendMessageBatchRequestEntry;
import com.amazonaws.services.sqs.model.SendMessageBatchResult;
import com.amazonaws.services.sqs.model.SendMessageRequest;
import com.amazonaws.services.sqs.model.SendMessageResult;
import com.amazonaws.services.sqs.model.TooManyEntriesInBatchRequestException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Message actions through the stock AWS SDK for Java v1 at its last query-protocol release, so
 * every call here is form-encoded {@code Action=...} answered in XML. SDK v1 checks
 * MD5OfMessageBody and MD5OfMessageAttributes of every send and receive ({@code
 * MessageMD5ChecksumHandler}) and fails the call on a mismatch, so every successful call here also
 * checks the digests as they survive the XML.
 */
class SqsV1MessageActionsTest {

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

  private static String queue(String name) {
    return sqs.createQueue(name).getQueueUrl();
  }

  private static String fifo(String name, boolean contentBasedDedup) {
    return sqs.createQueue(
            new CreateQueueRequest(name)
                .addAttributesEntry("FifoQueue", "true")
                .addAttributesEntry(
                    "ContentBasedDeduplication", Boolean.toString(contentBasedDedup)))
        .getQueueUrl();
  }

  private static MessageAttributeValue string(String type, String value) {
    return new MessageAttributeValue().withDataType(type).withStringValue(value);
  }

  private static List<Message> receive(ReceiveMessageRequest r) {
    return sqs.receiveMessage(r).getMessages();
  }

  @Test
  void sendReceiveDelete_xmlSpecialCharacters_survive_md5Verified() {
    String url = queue("v1-plain");
    String body = "héllo ✓ <b>&amp;</b> \"q\" 'a'\r\nline\ttab";
    SendMessageResult sent = sqs.sendMessage(url, body);
    assertNull(sent.getMD5OfMessageAttributes());

    List<Message> got = receive(new ReceiveMessageRequest(url));
    assertEquals(1, got.size());
    assertEquals(body, got.get(0).getBody());
    assertEquals(sent.getMessageId(), got.get(0).getMessageId());
    sqs.deleteMessage(url, got.get(0).getReceiptHandle());
    AmazonSQSException gone =
        assertThrows(
            AmazonSQSException.class,
            () -> sqs.changeMessageVisibility(url, got.get(0).getReceiptHandle(), 0));
    assertEquals("InvalidParameterValue", gone.getErrorCode()); // as SQS, for a deleted message
    assertTrue(receive(new ReceiveMessageRequest(url)).isEmpty());
  }

  @Test
  void attributes_roundTripExactly_withLabels_md5Verified() {
    String url = queue("v1-typed");
    Map<String, MessageAttributeValue> attrs =
        Map.of(
            "region", string("String", "eu-west & <north>"),
            "count", string("Number.int", "007.50"),
            "blob",
                new MessageAttributeValue()
                    .withDataType("Binary.gzip")
                    .withBinaryValue(ByteBuffer.wrap(new byte[] {0, 1, 2, (byte) 255})));
    SendMessageResult sent =
        sqs.sendMessage(
            new SendMessageRequest(url, "typed").withMessageAttributes(attrs).withDelaySeconds(0));
    assertNotNull(sent.getMD5OfMessageAttributes());

    Message all =
        receive(
                new ReceiveMessageRequest(url)
                    .withMessageAttributeNames("All")
                    .withVisibilityTimeout(0))
            .get(0);
    assertEquals(attrs, all.getMessageAttributes());
    assertEquals(sent.getMD5OfMessageAttributes(), all.getMD5OfMessageAttributes());

    Message some =
        receive(new ReceiveMessageRequest(url).withMessageAttributeNames("re.*", "count")).get(0);
    assertEquals(
        Map.of("region", attrs.get("region"), "count", attrs.get("count")),
        some.getMessageAttributes());
  }

  @Test
  void receive_systemAttributes() {
    String url = queue("v1-sysattrs");
    long before = System.currentTimeMillis();
    sqs.sendMessage(url, "x");
    receive(new ReceiveMessageRequest(url).withVisibilityTimeout(0));
    Map<String, String> a =
        receive(
                new ReceiveMessageRequest(url)
                    .withAttributeNames(
                        "ApproximateReceiveCount",
                        "SentTimestamp",
                        "ApproximateFirstReceiveTimestamp"))
            .get(0)
            .getAttributes();
    assertEquals("2", a.get("ApproximateReceiveCount"));
    long sentAt = Long.parseLong(a.get("SentTimestamp"));
    long firstReceive = Long.parseLong(a.get("ApproximateFirstReceiveTimestamp"));
    assertTrue(sentAt >= before - 1000 && firstReceive >= sentAt, a.toString());
    assertEquals(3, a.size());
  }

  @Test
  void changeMessageVisibility_zeroMakesItAvailable_thenTheSameReceiptMayHideItAgain() {
    String url = queue("v1-visibility");
    sqs.sendMessage(url, "x");
    Message m = receive(new ReceiveMessageRequest(url)).get(0);
    assertTrue(receive(new ReceiveMessageRequest(url)).isEmpty());

    sqs.changeMessageVisibility(url, m.getReceiptHandle(), 0);
    // Not received since: the handle is still the message's latest, as in SQS (docs/sqs.md,
    // "Messages").
    sqs.changeMessageVisibility(url, m.getReceiptHandle(), 10);
    assertTrue(receive(new ReceiveMessageRequest(url)).isEmpty());
    sqs.changeMessageVisibility(url, m.getReceiptHandle(), 0);
    assertEquals(1, receive(new ReceiveMessageRequest(url)).size());
    ReceiptHandleIsInvalidException invalid =
        assertThrows(
            ReceiptHandleIsInvalidException.class, () -> sqs.deleteMessage(url, "not-a-receipt"));
    assertEquals(400, invalid.getStatusCode());
    assertEquals("ReceiptHandleIsInvalid", invalid.getErrorCode());
  }

  @Test
  void sendMessageBatch_perEntryResults_md5Verified() {
    String url = queue("v1-batched");
    SendMessageBatchResult r =
        sqs.sendMessageBatch(
            new SendMessageBatchRequest(url)
                .withEntries(
                    new SendMessageBatchRequestEntry("a", "one"),
                    new SendMessageBatchRequestEntry("b_2", "two")
                        .withMessageAttributes(Map.of("k", string("String", "v"))),
                    new SendMessageBatchRequestEntry("bad-type", "three")
                        .withMessageAttributes(Map.of("k", string("Text", "v")))));
    assertEquals(List.of("a", "b_2"), r.getSuccessful().stream().map(e -> e.getId()).toList());
    assertNotNull(r.getSuccessful().get(1).getMD5OfMessageAttributes());
    assertEquals(1, r.getFailed().size());
    assertEquals("bad-type", r.getFailed().get(0).getId());
    assertEquals("InvalidParameterValue", r.getFailed().get(0).getCode());
    assertTrue(r.getFailed().get(0).getSenderFault());

    List<Message> got =
        receive(
            new ReceiveMessageRequest(url)
                .withMaxNumberOfMessages(10)
                .withMessageAttributeNames("All"));
    assertEquals(List.of("one", "two"), got.stream().map(Message::getBody).toList());

    DeleteMessageBatchResult deleted =
        sqs.deleteMessageBatch(
            new DeleteMessageBatchRequest(url)
                .withEntries(
                    new DeleteMessageBatchRequestEntry("d1", got.get(0).getReceiptHandle()),
                    new DeleteMessageBatchRequestEntry("d2", "garbage")));
    assertEquals(List.of("d1"), deleted.getSuccessful().stream().map(e -> e.getId()).toList());
    assertEquals("ReceiptHandleIsInvalid", deleted.getFailed().get(0).getCode());

    ChangeMessageVisibilityBatchResult changed =
        sqs.changeMessageVisibilityBatch(
            new ChangeMessageVisibilityBatchRequest()
                .withQueueUrl(url)
                .withEntries(
                    new ChangeMessageVisibilityBatchRequestEntry(
                            "c1", got.get(1).getReceiptHandle())
                        .withVisibilityTimeout(0),
                    new ChangeMessageVisibilityBatchRequestEntry("c2", "garbage")
                        .withVisibilityTimeout(0)));
    assertEquals(List.of("c1"), changed.getSuccessful().stream().map(e -> e.getId()).toList());
    assertEquals(List.of("c2"), changed.getFailed().stream().map(e -> e.getId()).toList());
    assertEquals("two", receive(new ReceiveMessageRequest(url)).get(0).getBody());
  }

  @Test
  void batchEntryRules_failTheWholeRequest_withLegacyCodes() {
    String url = queue("v1-batchrules");
    InvalidBatchEntryIdException badId =
        assertThrows(
            InvalidBatchEntryIdException.class,
            () ->
                sqs.sendMessageBatch(
                    url, List.of(new SendMessageBatchRequestEntry("no spaces!", "x"))));
    assertEquals("AWS.SimpleQueueService.InvalidBatchEntryId", badId.getErrorCode());
    assertThrows(
        BatchEntryIdsNotDistinctException.class,
        () ->
            sqs.sendMessageBatch(
                url,
                List.of(
                    new SendMessageBatchRequestEntry("same", "x"),
                    new SendMessageBatchRequestEntry("same", "y"))));
    assertThrows(
        TooManyEntriesInBatchRequestException.class,
        () ->
            sqs.sendMessageBatch(
                url,
                IntStream.range(0, 11)
                    .mapToObj(i -> new SendMessageBatchRequestEntry("e" + i, "x"))
                    .toList()));
    assertThrows(
        EmptyBatchRequestException.class,
        () -> sqs.deleteMessageBatch(new DeleteMessageBatchRequest(url)));
    assertTrue(receive(new ReceiveMessageRequest(url)).isEmpty());
  }

  @Test
  void fifo_needsGroupAndDedup_returnsSequenceNumber_dedupsRepeats() {
    String url = fifo("v1-rules.fifo", false);
    AmazonSQSException noGroup =
        assertThrows(
            AmazonSQSException.class,
            () ->
                sqs.sendMessage(new SendMessageRequest(url, "x").withMessageDeduplicationId("d")));
    assertEquals("MissingParameter", noGroup.getErrorCode());
    AmazonSQSException noDedup =
        assertThrows(
            AmazonSQSException.class,
            () -> sqs.sendMessage(new SendMessageRequest(url, "x").withMessageGroupId("g")));
    assertEquals("InvalidParameterValue", noDedup.getErrorCode());
    assertEquals(AmazonSQSException.ErrorType.Client, noDedup.getErrorType());

    SendMessageRequest send =
        new SendMessageRequest(url, "x").withMessageGroupId("g").withMessageDeduplicationId("d");
    SendMessageResult first = sqs.sendMessage(send);
    SendMessageResult again = sqs.sendMessage(send);
    assertNotNull(first.getSequenceNumber());
    assertEquals(first.getMessageId(), again.getMessageId());

    Map<String, String> a =
        receive(
                new ReceiveMessageRequest(url)
                    .withMaxNumberOfMessages(10)
                    .withAttributeNames("All"))
            .get(0)
            .getAttributes();
    assertEquals("g", a.get("MessageGroupId"));
    assertEquals(first.getSequenceNumber(), a.get("SequenceNumber"));
    assertEquals("d", a.get("MessageDeduplicationId"));
  }

  /** Seed 003: a group's batch is taken whole, and a group in flight is skipped. */
  @Test
  void seed003_interleavedGroups_receiveTenThenTen() {
    String url = fifo("v1-seed003.fifo", true);
    for (int i = 1; i <= 11; i++) {
      sqs.sendMessage(new SendMessageRequest(url, "A" + i).withMessageGroupId("A"));
      sqs.sendMessage(new SendMessageRequest(url, "B" + i).withMessageGroupId("B"));
    }
    List<String> first = bodies(url);
    List<String> second = bodies(url);
    assertEquals(IntStream.rangeClosed(1, 10).mapToObj(i -> "A" + i).toList(), first);
    assertEquals(IntStream.rangeClosed(1, 10).mapToObj(i -> "B" + i).toList(), second);
  }

  private static List<String> bodies(String url) {
    return receive(new ReceiveMessageRequest(url).withMaxNumberOfMessages(10)).stream()
        .map(Message::getBody)
        .toList();
  }

  @Test
  void longPoll_returnsWhenAMessageArrives() throws Exception {
    String url = queue("v1-longpoll");
    CompletableFuture<List<Message>> poll =
        CompletableFuture.supplyAsync(
            () -> receive(new ReceiveMessageRequest(url).withWaitTimeSeconds(20)));
    // Send only once the poll is parked in the engine, so the wake-up is what is tested.
    while (fixture.waitingReceivers("v1-longpoll") == 0 && !poll.isDone()) {
      Thread.onSpinWait();
    }
    sqs.sendMessage(url, "wake");
    List<Message> got = poll.get(5, TimeUnit.SECONDS);
    assertEquals("wake", got.get(0).getBody());
  }

  @Test
  void redrivePolicy_deadLettersAfterMaxReceiveCount() {
    String dlq = queue("v1-work-dlq");
    String url =
        sqs.createQueue(
                new CreateQueueRequest("v1-work")
                    .addAttributesEntry(
                        "RedrivePolicy",
                        "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:v1-work-dlq\","
                            + "\"maxReceiveCount\":\"2\"}"))
            .getQueueUrl();
    assertTrue(
        sqs.getQueueAttributes(url, List.of("RedrivePolicy"))
            .getAttributes()
            .get("RedrivePolicy")
            .contains("v1-work-dlq"));
    sqs.sendMessage(url, "poison");
    for (int i = 0; i < 2; i++) {
      Message m = receive(new ReceiveMessageRequest(url)).get(0);
      sqs.changeMessageVisibility(url, m.getReceiptHandle(), 0);
    }
    assertTrue(receive(new ReceiveMessageRequest(url)).isEmpty());
    Message dead =
        receive(new ReceiveMessageRequest(dlq).withAttributeNames("ApproximateReceiveCount"))
            .get(0);
    assertEquals("poison", dead.getBody());
    // the count travels with the message (two receives in the source) and counts this one
    assertEquals("3", dead.getAttributes().get("ApproximateReceiveCount"));
  }
}
