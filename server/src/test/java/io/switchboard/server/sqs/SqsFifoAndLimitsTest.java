package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.QueueEngine;
import io.switchboard.time.ManualClock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.PurgeQueueInProgressException;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * FIFO and protocol details through SDK v2 on a manual clock: ReceiveRequestAttemptId,
 * PurgeQueueInProgress, and the attribute rules of SQS (FifoThroughputLimit, DeduplicationScope,
 * RedriveAllowPolicy, LastModifiedTimestamp, message attribute names).
 */
class SqsFifoAndLimitsTest {

  private static final String ARN = "arn:aws:sqs:us-east-1:000000000000:";
  private static final ManualClock CLOCK = ManualClock.create();
  private static SqsServer fixture;
  private static SqsClient sqs;

  @BeforeAll
  static void start() {
    fixture = new SqsServer(config -> QueueEngine.builder().clock(CLOCK).build());
    sqs = fixture.sqs;
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  private static String fifo(String name, Map<String, String> attributes) {
    Map<String, String> all = new java.util.HashMap<>(attributes);
    all.put("FifoQueue", "true");
    all.put("ContentBasedDeduplication", "true");
    return sqs.createQueue(b -> b.queueName(name).attributesWithStrings(all)).queueUrl();
  }

  private static String errorCode(Runnable call) {
    return assertThrows(SqsException.class, call::run).awsErrorDetails().errorCode();
  }

  private static ReceiveMessageResponse receive(String url, String attempt) {
    return sqs.receiveMessage(
        b ->
            b.queueUrl(url)
                .maxNumberOfMessages(10)
                .visibilityTimeout(30)
                .receiveRequestAttemptId(attempt)
                .messageSystemAttributeNames(MessageSystemAttributeName.SEQUENCE_NUMBER));
  }

  @Test
  void receiveRequestAttemptId_retryReturnsSameMessagesAndReceipts() {
    String url = fifo("attempt.fifo", Map.of());
    for (String body : List.of("a", "b", "c")) {
      sqs.sendMessage(b -> b.queueUrl(url).messageBody(body).messageGroupId("g"));
    }
    List<Message> first = receive(url, "try-1").messages();
    assertEquals(3, first.size());
    CLOCK.advanceSeconds(20);
    List<Message> retry = receive(url, "try-1").messages();
    assertEquals(first, retry);
    // The retry restarted the 30 s visibility timeout: 20 s later they are still leased.
    CLOCK.advanceSeconds(20);
    assertTrue(receive(url, "other").messages().isEmpty());
    // Once one of them is deleted the attempt cannot be repeated; a retry is a new receive.
    sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(first.get(0).receiptHandle()));
    CLOCK.advanceSeconds(31);
    List<Message> fresh = receive(url, "try-1").messages();
    assertEquals(List.of("b", "c"), fresh.stream().map(Message::body).toList());
    assertNotEquals(first.get(1).receiptHandle(), fresh.get(0).receiptHandle());
  }

  @Test
  void receiveRequestAttemptId_windowIsFiveMinutes_andIdIsChecked() {
    String url = fifo("window.fifo", Map.of());
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("x").messageGroupId("g"));
    Message first = receive(url, "w").messages().get(0);
    for (int i = 0; i < 10; i++) {
      CLOCK.advanceSeconds(29);
      assertEquals(first, receive(url, "w").messages().get(0));
    }
    CLOCK.advanceSeconds(
        31); // 321 s after the first receive; its lease ran out 30 s after the last
    Message later = receive(url, "w").messages().get(0);
    assertNotEquals(first.receiptHandle(), later.receiptHandle());
    assertEquals("InvalidParameterValue", errorCode(() -> receive(url, "x".repeat(129))));
    assertEquals("InvalidParameterValue", errorCode(() -> receive(url, "no spaces")));
  }

  @Test
  void receiveRequestAttemptId_ignoredOnStandardQueues() {
    String url = sqs.createQueue(b -> b.queueName("attempt-standard")).queueUrl();
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("one"));
    assertEquals(1, receive(url, "same").messages().size());
    assertTrue(receive(url, "same").messages().isEmpty());
  }

  @Test
  void purgeQueue_secondWithinSixtySeconds_isPurgeQueueInProgress() {
    String url = sqs.createQueue(b -> b.queueName("purged")).queueUrl();
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("x"));
    sqs.purgeQueue(b -> b.queueUrl(url));
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("kept"));
    CLOCK.advanceSeconds(59);
    PurgeQueueInProgressException e =
        assertThrows(
            PurgeQueueInProgressException.class, () -> sqs.purgeQueue(b -> b.queueUrl(url)));
    assertEquals("AWS.SimpleQueueService.PurgeQueueInProgress", e.awsErrorDetails().errorCode());
    assertEquals("kept", sqs.receiveMessage(b -> b.queueUrl(url)).messages().get(0).body());
    CLOCK.advanceSeconds(1);
    sqs.purgeQueue(b -> b.queueUrl(url));
    // Another queue is not limited by this one's purge.
    String other = sqs.createQueue(b -> b.queueName("purged-other")).queueUrl();
    sqs.purgeQueue(b -> b.queueUrl(other));
  }

  @Test
  void fifoThroughputLimit_andDeduplicationScope_rules() {
    String url = fifo("limits.fifo", Map.of());
    Map<String, String> attrs = all(url);
    assertEquals("perQueue", attrs.get("FifoThroughputLimit"));
    assertEquals("queue", attrs.get("DeduplicationScope"));
    assertEquals(
        "InvalidAttributeValue",
        errorCode(() -> set(url, Map.of("FifoThroughputLimit", "perMessageGroupId"))));
    set(
        url,
        Map.of("DeduplicationScope", "messageGroup", "FifoThroughputLimit", "perMessageGroupId"));
    assertEquals("perMessageGroupId", all(url).get("FifoThroughputLimit"));
    assertEquals(
        "InvalidAttributeValue", errorCode(() -> set(url, Map.of("DeduplicationScope", "queue"))));
    assertEquals("messageGroup", all(url).get("DeduplicationScope"));
    assertEquals(
        "InvalidAttributeValue", errorCode(() -> set(url, Map.of("FifoThroughputLimit", "fast"))));
    assertEquals(
        "InvalidAttributeValue", errorCode(() -> set(url, Map.of("DeduplicationScope", "group"))));
    String standard = sqs.createQueue(b -> b.queueName("limits-standard")).queueUrl();
    assertEquals(
        "InvalidAttributeName",
        errorCode(() -> set(standard, Map.of("FifoThroughputLimit", "perQueue"))));
    assertTrue(!all(standard).containsKey("FifoThroughputLimit"));
  }

  @Test
  void redriveAllowPolicy_decidesWhoMayUseTheQueueAsDeadLetterQueue() {
    String dlq = sqs.createQueue(b -> b.queueName("allow-dlq")).queueUrl();
    String policy =
        "{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":[\"" + ARN + "allow-ok\"]}";
    set(dlq, Map.of("RedriveAllowPolicy", policy));
    assertEquals(policy, all(dlq).get("RedriveAllowPolicy"));
    String redrive = "{\"deadLetterTargetArn\":\"" + ARN + "allow-dlq\",\"maxReceiveCount\":3}";
    sqs.createQueue(
        b -> b.queueName("allow-ok").attributesWithStrings(Map.of("RedrivePolicy", redrive)));
    assertEquals(
        "InvalidParameterValue",
        errorCode(
            () ->
                sqs.createQueue(
                    b ->
                        b.queueName("allow-no")
                            .attributesWithStrings(Map.of("RedrivePolicy", redrive)))));
    set(dlq, Map.of("RedriveAllowPolicy", "{\"redrivePermission\":\"denyAll\"}"));
    String other = sqs.createQueue(b -> b.queueName("allow-other")).queueUrl();
    assertEquals(
        "InvalidParameterValue", errorCode(() -> set(other, Map.of("RedrivePolicy", redrive))));
    for (String bad :
        List.of(
            "{\"redrivePermission\":\"byQueue\"}",
            "{\"redrivePermission\":\"allowAll\",\"sourceQueueArns\":[\"" + ARN + "x\"]}",
            "{\"redrivePermission\":\"some\"}",
            "not json")) {
      assertEquals(
          "InvalidAttributeValue", errorCode(() -> set(dlq, Map.of("RedriveAllowPolicy", bad))));
    }
    set(dlq, Map.of("RedriveAllowPolicy", ""));
    set(other, Map.of("RedrivePolicy", redrive));
    assertTrue(!all(dlq).containsKey("RedriveAllowPolicy"));
  }

  @Test
  void lastModifiedTimestamp_movesOnlyWhenSomethingChanged() {
    String url = sqs.createQueue(b -> b.queueName("modified")).queueUrl();
    String created = all(url).get("CreatedTimestamp");
    assertEquals(created, all(url).get("LastModifiedTimestamp"));
    CLOCK.advanceSeconds(100);
    set(url, Map.of("VisibilityTimeout", "30")); // the default: nothing changes
    assertEquals(created, all(url).get("LastModifiedTimestamp"));
    set(url, Map.of("VisibilityTimeout", "31"));
    assertEquals(
        Long.parseLong(created) + 100, Long.parseLong(all(url).get("LastModifiedTimestamp")));
  }

  @Test
  void messageGroupIdOnStandardQueue_isAcceptedAndKept() {
    String url = sqs.createQueue(b -> b.queueName("standard-group")).queueUrl();
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("x").messageGroupId("g"));
    Message m =
        sqs.receiveMessage(
                b ->
                    b.queueUrl(url)
                        .messageSystemAttributeNames(MessageSystemAttributeName.MESSAGE_GROUP_ID))
            .messages()
            .get(0);
    assertEquals("x", m.body());
    assertEquals("g", m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID));
  }

  @Test
  void messageAttributeNames_followSqsRules() {
    String url = sqs.createQueue(b -> b.queueName("attr-names")).queueUrl();
    for (String bad :
        List.of("AWS.x", "amazon.y", ".lead", "trail.", "two..dots", "sp ace", "x".repeat(257))) {
      assertEquals(
          "InvalidParameterValue",
          errorCode(
              () ->
                  sqs.sendMessage(
                      b ->
                          b.queueUrl(url)
                              .messageBody("x")
                              .messageAttributes(
                                  Map.of(
                                      bad,
                                      MessageAttributeValue.builder()
                                          .dataType("String")
                                          .stringValue("v")
                                          .build())))),
          bad);
    }
    assertTrue(sqs.receiveMessage(b -> b.queueUrl(url)).messages().isEmpty());
  }

  private static void set(String url, Map<String, String> attributes) {
    sqs.setQueueAttributes(b -> b.queueUrl(url).attributesWithStrings(attributes));
  }

  private static Map<String, String> all(String url) {
    return sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL))
        .attributesAsStrings();
  }
}
