package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.QueueEngine;
import io.switchboard.time.ManualClock;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Behaviour that differed from Amazon SQS (docs/sqs.md, "Compatibility matrix"), through the stock
 * AWS SDK for Java v2 (JSON protocol) on a manual clock, one test per defect: SequenceNumber's
 * shape, ChangeMessageVisibility after the lease ran out, PurgeQueue and the deduplication ids,
 * fair queues, and FIFO groups handed back by a visibility of 0 or a lease end.
 */
class SqsBehaviourTest {

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

  private static String queue(String name) {
    return fixture.createQueue(name);
  }

  private static String fifo(String name) {
    return fixture.createFifoQueue(name);
  }

  private static List<Message> receive(String url, int max) {
    return sqs.receiveMessage(
            b ->
                b.queueUrl(url)
                    .maxNumberOfMessages(max)
                    .visibilityTimeout(600)
                    .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
        .messages();
  }

  private static List<String> bodies(List<Message> messages) {
    return messages.stream().map(Message::body).toList();
  }

  private static String sequenceOf(Message m) {
    return m.attributes().get(MessageSystemAttributeName.SEQUENCE_NUMBER);
  }

  private static void assertSequenceNumberShape(String s) {
    assertTrue(s.matches("[0-9]{20,}"), "a 20-digit (or longer) decimal string, got " + s);
  }

  // ---- SequenceNumber ------------------------------------------------------------------------

  @Test
  void sequenceNumber_wasAShortCounter_now20DigitsIncreasingWithinAGroup() {
    String url = fifo("sequence-numbers.fifo");
    List<String> sent = new ArrayList<>();
    for (String body : List.of("a", "b", "c")) {
      sent.add(
          sqs.sendMessage(b -> b.queueUrl(url).messageBody(body).messageGroupId("g"))
              .sequenceNumber());
    }
    sent.add(
        sqs.sendMessageBatch(
                b -> b.queueUrl(url).entries(e -> e.id("d").messageBody("d").messageGroupId("g")))
            .successful()
            .get(0)
            .sequenceNumber());
    for (int i = 0; i < sent.size(); i++) {
      assertSequenceNumberShape(sent.get(i));
      if (i > 0) {
        assertTrue(
            new BigInteger(sent.get(i)).compareTo(new BigInteger(sent.get(i - 1))) > 0,
            "increasing within the group: " + sent);
      }
    }
    List<Message> got = receive(url, 10);
    assertEquals(List.of("a", "b", "c", "d"), bodies(got));
    assertEquals(sent, got.stream().map(SqsBehaviourTest::sequenceOf).toList());
  }

  @Test
  void sequenceNumber_sameAfterARestartOfTheDurableServer(@TempDir Path dir) {
    String before;
    try (SqsServer durable = new SqsServer(dir)) {
      String url =
          durable
              .sqs
              .createQueue(
                  b ->
                      b.queueName("kept.fifo")
                          .attributesWithStrings(
                              Map.of("FifoQueue", "true", "ContentBasedDeduplication", "true")))
              .queueUrl();
      before =
          durable
              .sqs
              .sendMessage(b -> b.queueUrl(url).messageBody("x").messageGroupId("g"))
              .sequenceNumber();
    }
    try (SqsServer durable = new SqsServer(dir)) {
      String url = durable.url("kept.fifo");
      String after =
          durable
              .sqs
              .sendMessage(b -> b.queueUrl(url).messageBody("y").messageGroupId("g"))
              .sequenceNumber();
      List<Message> got =
          durable
              .sqs
              .receiveMessage(
                  b ->
                      b.queueUrl(url)
                          .maxNumberOfMessages(10)
                          .messageSystemAttributeNames(MessageSystemAttributeName.SEQUENCE_NUMBER))
              .messages();
      assertEquals(List.of(before, after), got.stream().map(SqsBehaviourTest::sequenceOf).toList());
      assertTrue(new BigInteger(after).compareTo(new BigInteger(before)) > 0);
    }
  }

  // ---- ChangeMessageVisibility after the lease ran out ---------------------------------------

  @Test
  void changeVisibilityAfterLeaseExpired_wasMessageNotInflight_nowHidesItAgain() {
    String url = queue("late-visibility");
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("slow"));
    Message m = sqs.receiveMessage(b -> b.queueUrl(url).visibilityTimeout(10)).messages().get(0);
    CLOCK.advanceSeconds(11);
    sqs.changeMessageVisibility(
        b -> b.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(60));
    assertTrue(receive(url, 10).isEmpty(), "hidden again for 60 s");
    CLOCK.advanceSeconds(60);
    List<Message> again = receive(url, 10);
    assertEquals(List.of("slow"), bodies(again));
    assertEquals(
        "2", again.get(0).attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT));
  }

  @Test
  void changeVisibilityBatchAfterLeaseExpired_succeeds() {
    String url = queue("late-visibility-batch");
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("slow"));
    Message m = sqs.receiveMessage(b -> b.queueUrl(url).visibilityTimeout(10)).messages().get(0);
    CLOCK.advanceSeconds(11);
    var answer =
        sqs.changeMessageVisibilityBatch(
            b ->
                b.queueUrl(url)
                    .entries(
                        e -> e.id("1").receiptHandle(m.receiptHandle()).visibilityTimeout(30)));
    assertEquals(1, answer.successful().size());
    assertTrue(answer.failed().isEmpty());
    assertTrue(receive(url, 10).isEmpty());
  }

  // ---- a redrive policy naming the queue itself ----------------------------------------------

  @Test
  void redrivePolicyNamingItself_wasRefused_nowAcceptedAndTheMessageStaysWithItsCountReset() {
    String arn = "arn:aws:sqs:us-east-1:000000000000:own-dlq";
    String policy = "{\"deadLetterTargetArn\":\"" + arn + "\",\"maxReceiveCount\":\"2\"}";
    String url =
        sqs.createQueue(
                b ->
                    b.queueName("own-dlq")
                        .attributes(Map.of(QueueAttributeName.REDRIVE_POLICY, policy)))
            .queueUrl();
    String stored =
        sqs.getQueueAttributes(
                b -> b.queueUrl(url).attributeNames(QueueAttributeName.REDRIVE_POLICY))
            .attributesAsStrings()
            .get("RedrivePolicy");
    assertTrue(stored.contains(arn), stored);
    assertEquals(List.of(url), sqs.listDeadLetterSourceQueues(b -> b.queueUrl(url)).queueUrls());
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("poison"));
    for (String count : List.of("1", "2", "1")) {
      Message m =
          sqs.receiveMessage(
                  b ->
                      b.queueUrl(url)
                          .visibilityTimeout(10)
                          .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
              .messages()
              .get(0);
      assertEquals("poison", m.body());
      assertEquals(count, m.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT));
      assertNull(m.attributes().get(MessageSystemAttributeName.DEAD_LETTER_QUEUE_SOURCE_ARN));
      CLOCK.advanceSeconds(10);
    }
  }

  @Test
  void setRedrivePolicyNamingItself_accepted() {
    String url = queue("own-dlq-later");
    String policy =
        "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:own-dlq-later\","
            + "\"maxReceiveCount\":5}";
    sqs.setQueueAttributes(
        b -> b.queueUrl(url).attributes(Map.of(QueueAttributeName.REDRIVE_POLICY, policy)));
    assertTrue(
        sqs.getQueueAttributes(
                b -> b.queueUrl(url).attributeNames(QueueAttributeName.REDRIVE_POLICY))
            .attributesAsStrings()
            .get("RedrivePolicy")
            .contains("own-dlq-later"));
  }

  // ---- PurgeQueue and deduplication ----------------------------------------------------------

  @Test
  void purgeFifoQueue_keptDeduplicationIds_nowAMessageSentAgainIsDelivered() {
    String url = fifo("purge-dedup.fifo");
    sqs.sendMessage(
        b -> b.queueUrl(url).messageBody("x").messageGroupId("g").messageDeduplicationId("d"));
    sqs.purgeQueue(b -> b.queueUrl(url));
    sqs.sendMessage(
        b -> b.queueUrl(url).messageBody("x").messageGroupId("g").messageDeduplicationId("d"));
    assertEquals(List.of("x"), bodies(receive(url, 10)));
  }

  // ---- fair queues ---------------------------------------------------------------------------

  @Test
  void fairQueue_groupIdOnStandardQueue_wasDropped_nowReturnedWithoutSequenceNumber() {
    String url = queue("fair-group-id");
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("x").messageGroupId("tenant-1"));
    Message m = receive(url, 1).get(0);
    assertEquals("tenant-1", m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID));
    assertNull(sequenceOf(m), "SequenceNumber is a FIFO queue's");
  }

  @Test
  void fairQueue_noisyGroup_wasServedFirst_nowQuietGroupsGoFirst() {
    String url = queue("fair-noisy");
    for (int batch = 0; batch < 4; batch++) {
      int first = batch * 10;
      sqs.sendMessageBatch(
          b ->
              b.queueUrl(url)
                  .entries(
                      java.util.stream.IntStream.range(first, first + 10)
                          .mapToObj(
                              i ->
                                  software.amazon.awssdk.services.sqs.model
                                      .SendMessageBatchRequestEntry.builder()
                                      .id("e" + i)
                                      .messageBody("noisy-" + i)
                                      .messageGroupId("noisy")
                                      .build())
                          .toList()));
    }
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("quiet-0").messageGroupId("quiet"));
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("quiet-1").messageGroupId("quiet"));
    for (int i = 0; i < 3; i++) {
      assertEquals(10, receive(url, 10).size());
    }
    // 30 of the noisy group in flight: the quiet group's messages go before its backlog.
    assertEquals(List.of("quiet-0", "quiet-1", "noisy-30"), bodies(receive(url, 3)));
  }

  // ---- FIFO groups handed back ---------------------------------------------------------------

  private static void interleave(String url, int perGroup, String... groups) {
    for (int i = 1; i <= perGroup; i++) {
      for (String g : groups) {
        String body = g.toLowerCase(Locale.ROOT) + i;
        sqs.sendMessage(b -> b.queueUrl(url).messageBody(body).messageGroupId(g));
      }
    }
  }

  @Test
  void fifoVisibilityZero_wholeBatch_groupBackAtOnceHeadFirst() {
    String url = fifo("handed-back.fifo");
    interleave(url, 4, "A", "B", "C");
    List<Message> a = receive(url, 3);
    assertEquals(List.of("a1", "a2", "a3"), bodies(a));
    assertEquals(List.of("b1", "b2", "b3"), bodies(receive(url, 3)));
    sqs.changeMessageVisibilityBatch(
        b ->
            b.queueUrl(url)
                .entries(
                    a.stream()
                        .map(
                            m ->
                                software.amazon.awssdk.services.sqs.model
                                    .ChangeMessageVisibilityBatchRequestEntry.builder()
                                    .id(m.body())
                                    .receiptHandle(m.receiptHandle())
                                    .visibilityTimeout(0)
                                    .build())
                        .toList()));
    // C, never received, goes before A, handed back; A comes back whole from its head
    assertEquals(List.of("c1", "c2", "c3", "c4", "a1"), bodies(receive(url, 5)));
  }

  @Test
  void fifoLeaseEnd_severalGroups_eachBackFromItsHead() {
    String url = fifo("lease-end.fifo");
    interleave(url, 3, "A", "B");
    assertEquals(
        List.of("a1", "a2"),
        bodies(
            sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(2).visibilityTimeout(10))
                .messages()));
    assertEquals(
        List.of("b1"),
        bodies(
            sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(1).visibilityTimeout(10))
                .messages()));
    CLOCK.advanceSeconds(10);
    assertEquals(List.of("a1", "a2", "a3", "b1", "b2", "b3"), bodies(receive(url, 10)));
  }

  @Test
  void fifoVisibilityZero_parallelConsumers_eachGroupInOrderAndNeverTwiceAtOnce() throws Exception {
    String url = fifo("parallel.fifo");
    String[] groups = {"A", "B", "C", "D", "E"};
    interleave(url, 4, groups);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      for (int round = 0; round < 3; round++) {
        List<Future<List<Message>>> batches = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
          batches.add(pool.submit(() -> receive(url, 4)));
        }
        Set<String> held = new HashSet<>();
        List<Message> all = new ArrayList<>();
        for (Future<List<Message>> f : batches) {
          List<Message> batch = f.get(30, TimeUnit.SECONDS);
          Map<String, Integer> next = new HashMap<>();
          for (Message m : batch) {
            String g = m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID);
            int n = next.merge(g, 1, (x, y) -> x + 1);
            assertEquals(g.toLowerCase(Locale.ROOT) + n, m.body(), "each group from its head");
            assertTrue(held.add(m.body()), "one group, one consumer at a time");
          }
          all.addAll(batch);
        }
        assertFalse(all.isEmpty());
        for (Message m : all) {
          sqs.changeMessageVisibility(
              b -> b.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
        }
      }
    } finally {
      pool.shutdownNow();
    }
    Map<String, Integer> done = new HashMap<>();
    List<Message> batch;
    while (!(batch = receive(url, 10)).isEmpty()) {
      for (Message m : batch) {
        String g = m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID);
        int n = done.merge(g, 1, Integer::sum);
        assertEquals(g.toLowerCase(Locale.ROOT) + n, m.body());
        sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(m.receiptHandle()));
      }
    }
    assertEquals(20, done.values().stream().mapToInt(Integer::intValue).sum());
  }
}
