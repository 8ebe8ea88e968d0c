package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.model.ChangeMessageVisibilityBatchRequest;
import com.amazonaws.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import com.amazonaws.services.sqs.model.CreateQueueRequest;
import com.amazonaws.services.sqs.model.Message;
import com.amazonaws.services.sqs.model.PurgeQueueRequest;
import com.amazonaws.services.sqs.model.ReceiveMessageRequest;
import com.amazonaws.services.sqs.model.SendMessageRequest;
import io.switchboard.queue.QueueEngine;
import io.switchboard.time.ManualClock;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The behaviour of {@link SqsBehaviourTest} through the stock AWS SDK for Java v1 at its last
 * query-protocol release: form-encoded requests answered in XML.
 */
class SqsV1BehaviourTest {

  private static final ManualClock CLOCK = ManualClock.create();
  private static SqsServer fixture;
  private static AmazonSQS sqs;

  @BeforeAll
  static void start() {
    fixture = new SqsServer(config -> QueueEngine.builder().clock(CLOCK).build());
    sqs = SqsClients.v1(fixture);
  }

  @AfterAll
  static void stop() {
    sqs.shutdown();
    fixture.close();
  }

  private static String fifo(String name) {
    return sqs.createQueue(
            new CreateQueueRequest(name)
                .withAttributes(Map.of("FifoQueue", "true", "ContentBasedDeduplication", "true")))
        .getQueueUrl();
  }

  private static List<Message> receive(String url, int max) {
    return sqs.receiveMessage(
            new ReceiveMessageRequest(url)
                .withMaxNumberOfMessages(max)
                .withVisibilityTimeout(600)
                .withAttributeNames("All"))
        .getMessages();
  }

  private static List<String> bodies(List<Message> messages) {
    return messages.stream().map(Message::getBody).toList();
  }

  @Test
  void sequenceNumber_wasAShortCounter_now20DigitsIncreasingWithinAGroup() {
    String url = fifo("v1-sequence-numbers.fifo");
    List<String> sent = new ArrayList<>();
    for (String body : List.of("a", "b", "c")) {
      sent.add(
          sqs.sendMessage(new SendMessageRequest(url, body).withMessageGroupId("g"))
              .getSequenceNumber());
    }
    for (int i = 0; i < sent.size(); i++) {
      assertTrue(sent.get(i).matches("[0-9]{20,}"), sent.get(i));
      if (i > 0) {
        assertTrue(new BigInteger(sent.get(i)).compareTo(new BigInteger(sent.get(i - 1))) > 0);
      }
    }
    List<Message> got = receive(url, 10);
    assertEquals(sent, got.stream().map(m -> m.getAttributes().get("SequenceNumber")).toList());
  }

  @Test
  void changeVisibilityAfterLeaseExpired_wasMessageNotInflight_nowHidesItAgain() {
    String url = sqs.createQueue("v1-late-visibility").getQueueUrl();
    sqs.sendMessage(url, "slow");
    Message m =
        sqs.receiveMessage(new ReceiveMessageRequest(url).withVisibilityTimeout(10))
            .getMessages()
            .get(0);
    CLOCK.advanceSeconds(11);
    sqs.changeMessageVisibility(url, m.getReceiptHandle(), 60);
    assertTrue(receive(url, 10).isEmpty());
    var batch =
        sqs.changeMessageVisibilityBatch(
            new ChangeMessageVisibilityBatchRequest(
                url,
                List.of(
                    new ChangeMessageVisibilityBatchRequestEntry("1", m.getReceiptHandle())
                        .withVisibilityTimeout(0))));
    assertEquals(1, batch.getSuccessful().size());
    assertEquals(List.of("slow"), bodies(receive(url, 10)));
  }

  @Test
  void redrivePolicyNamingItself_wasRefused_nowAcceptedAndTheMessageStaysWithItsCountReset() {
    String arn = "arn:aws:sqs:us-east-1:000000000000:v1-own-dlq";
    String url =
        sqs.createQueue(
                new CreateQueueRequest("v1-own-dlq")
                    .withAttributes(
                        Map.of(
                            "RedrivePolicy",
                            "{\"deadLetterTargetArn\":\"" + arn + "\",\"maxReceiveCount\":1}")))
            .getQueueUrl();
    assertTrue(
        sqs.getQueueAttributes(url, List.of("RedrivePolicy"))
            .getAttributes()
            .get("RedrivePolicy")
            .contains(arn));
    sqs.sendMessage(url, "poison");
    for (int i = 0; i < 3; i++) {
      Message m =
          sqs.receiveMessage(
                  new ReceiveMessageRequest(url)
                      .withVisibilityTimeout(10)
                      .withAttributeNames("All"))
              .getMessages()
              .get(0);
      assertEquals("poison", m.getBody());
      assertEquals("1", m.getAttributes().get("ApproximateReceiveCount"));
      CLOCK.advanceSeconds(10);
    }
    sqs.setQueueAttributes(
        url,
        Map.of("RedrivePolicy", "{\"deadLetterTargetArn\":\"" + arn + "\",\"maxReceiveCount\":3}"));
    assertTrue(
        sqs.getQueueAttributes(url, List.of("RedrivePolicy"))
            .getAttributes()
            .get("RedrivePolicy")
            .contains("\"maxReceiveCount\":3"));
  }

  @Test
  void purgeFifoQueue_keptDeduplicationIds_nowAMessageSentAgainIsDelivered() {
    String url = fifo("v1-purge-dedup.fifo");
    sqs.sendMessage(
        new SendMessageRequest(url, "x").withMessageGroupId("g").withMessageDeduplicationId("d"));
    sqs.purgeQueue(new PurgeQueueRequest(url));
    sqs.sendMessage(
        new SendMessageRequest(url, "x").withMessageGroupId("g").withMessageDeduplicationId("d"));
    assertEquals(List.of("x"), bodies(receive(url, 10)));
  }

  @Test
  void fairQueue_groupIdOnStandardQueue_wasDropped_nowReturnedAndQuietGroupsGoFirst() {
    String url = sqs.createQueue("v1-fair").getQueueUrl();
    for (int i = 0; i < 35; i++) {
      sqs.sendMessage(new SendMessageRequest(url, "noisy-" + i).withMessageGroupId("noisy"));
    }
    sqs.sendMessage(new SendMessageRequest(url, "quiet-0").withMessageGroupId("quiet"));
    List<Message> first = receive(url, 10);
    assertEquals("noisy", first.get(0).getAttributes().get("MessageGroupId"));
    assertNull(first.get(0).getAttributes().get("SequenceNumber"));
    receive(url, 10);
    receive(url, 10);
    assertEquals(List.of("quiet-0", "noisy-30"), bodies(receive(url, 2)));
  }

  @Test
  void fifoVisibilityZero_wholeBatch_groupBackAtOnceHeadFirst() {
    String url = fifo("v1-handed-back.fifo");
    for (int i = 1; i <= 4; i++) {
      for (String g : List.of("A", "B", "C")) {
        sqs.sendMessage(
            new SendMessageRequest(url, g.toLowerCase(Locale.ROOT) + i).withMessageGroupId(g));
      }
    }
    List<Message> a = receive(url, 3);
    assertEquals(List.of("a1", "a2", "a3"), bodies(a));
    assertEquals(List.of("b1", "b2", "b3"), bodies(receive(url, 3)));
    for (Message m : a) {
      sqs.changeMessageVisibility(url, m.getReceiptHandle(), 0);
    }
    // C, never received, goes before A, handed back; A comes back whole from its head
    assertEquals(List.of("c1", "c2", "c3", "c4", "a1"), bodies(receive(url, 5)));
    CLOCK.advanceSeconds(600);
    assertEquals(
        List.of("a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4", "c1", "c2"),
        bodies(receive(url, 10)),
        "after the leases end, every group from its head");
  }

  // ---- FIFO groups coming back, receipt handles (query protocol) -----------------------------

  private static void sendGrouped(String url, String... bodies) {
    for (String body : bodies) {
      sqs.sendMessage(
          new SendMessageRequest(url, body)
              .withMessageGroupId(body.substring(0, body.indexOf('-'))));
    }
  }

  @Test
  void fifoHeadHandedBackWhileTheNextIsInFlight_deliveredAgainAfterGroupsNeverReceived() {
    String url = fifo("v1-reopen-head.fifo");
    sendGrouped(url, "g1-m1", "g1-m2", "g2-m1");
    List<Message> g1 = receive(url, 2);
    assertEquals(List.of("g1-m1", "g1-m2"), bodies(g1));
    sqs.changeMessageVisibility(url, g1.get(0).getReceiptHandle(), 0);
    assertEquals(List.of("g2-m1", "g1-m1"), bodies(receive(url, 3)));
  }

  @Test
  void fifoDeleteWithExpiredHandle_invalidParameterValueWithSqsText() {
    String url = fifo("v1-expired-delete.fifo");
    sendGrouped(url, "g-1");
    Message m =
        sqs.receiveMessage(new ReceiveMessageRequest(url).withVisibilityTimeout(1))
            .getMessages()
            .get(0);
    CLOCK.advanceSeconds(1);
    com.amazonaws.services.sqs.model.AmazonSQSException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            com.amazonaws.services.sqs.model.AmazonSQSException.class,
            () -> sqs.deleteMessage(url, m.getReceiptHandle()));
    assertEquals(400, e.getStatusCode());
    assertEquals("InvalidParameterValue", e.getErrorCode());
    assertEquals(
        "Value "
            + m.getReceiptHandle()
            + " for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.",
        e.getErrorMessage());
  }

  @Test
  void changeVisibilityThroughEarlierHandle_appliesToTheMessage() {
    String url = sqs.createQueue("v1-cmv-earlier").getQueueUrl();
    sqs.sendMessage(url, "x");
    ReceiveMessageRequest shortLease = new ReceiveMessageRequest(url).withVisibilityTimeout(10);
    Message first = sqs.receiveMessage(shortLease).getMessages().get(0);
    CLOCK.advanceSeconds(10);
    sqs.receiveMessage(shortLease).getMessages().get(0);
    sqs.changeMessageVisibility(url, first.getReceiptHandle(), 0);
    assertEquals(List.of("x"), bodies(receive(url, 10)));
  }
}
