package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchResponse;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Receipt handles and batch answers as Amazon SQS takes and gives them, through the stock AWS SDK
 * for Java v2 on a manual clock: ChangeMessageVisibility through an earlier receipt handle applies
 * to the message, a FIFO queue refuses DeleteMessage with a handle whose lease ended, and a batch
 * answer carries {@code Successful} and {@code Failed} even when one is empty ({@code docs/sqs.md},
 * "Receipt handles" and "Answer shapes").
 */
class SqsBatchAndHandleTest {

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

  private static Message receiveOne(String url, int visibility) {
    List<Message> got =
        sqs.receiveMessage(
                b ->
                    b.queueUrl(url)
                        .visibilityTimeout(visibility)
                        .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
            .messages();
    assertEquals(1, got.size(), "one message expected, got " + got);
    return got.get(0);
  }

  private static boolean nothingToReceive(String url) {
    return !sqs.receiveMessage(b -> b.queueUrl(url).visibilityTimeout(600)).hasMessages();
  }

  /** A message of {@code url} received twice (the first lease ran out): both receives. */
  private static Message[] receivedTwice(String url) {
    sqs.sendMessage(
        b -> b.queueUrl(url).messageBody("x").messageGroupId(url.endsWith(".fifo") ? "g" : null));
    Message first = receiveOne(url, 10);
    CLOCK.advanceSeconds(10);
    Message second = receiveOne(url, 10); // leased until 10 s from now
    return new Message[] {first, second};
  }

  // ---- ChangeMessageVisibility through an earlier receipt handle ----------------------------

  @Test
  void changeVisibilityThroughEarlierHandle_changedNothing_nowSetsTheCurrentLease() {
    String url = fixture.createQueue("cmv-earlier");
    Message[] r = receivedTwice(url);
    sqs.changeMessageVisibility(
        b -> b.queueUrl(url).receiptHandle(r[0].receiptHandle()).visibilityTimeout(30));
    CLOCK.advanceSeconds(25); // the second lease alone would have ended 15 s ago
    assertTrue(nothingToReceive(url));
    CLOCK.advanceSeconds(5);
    Message third = receiveOne(url, 600);
    assertEquals(r[0].messageId(), third.messageId());
    assertEquals("3", third.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT));
  }

  @Test
  void changeVisibilityBatchThroughEarlierHandleToZero_makesTheMessageAvailable() {
    String url = fixture.createFifoQueue("cmv-earlier-batch.fifo");
    Message[] r = receivedTwice(url);
    ChangeMessageVisibilityBatchResponse answer =
        sqs.changeMessageVisibilityBatch(
            b ->
                b.queueUrl(url)
                    .entries(
                        e -> e.id("old").receiptHandle(r[0].receiptHandle()).visibilityTimeout(0)));
    assertEquals(1, answer.successful().size(), answer.toString());
    assertEquals(r[0].messageId(), receiveOne(url, 600).messageId());
  }

  @Test
  void changeVisibilityThroughEarlierHandle_messageDeletedSince_invalidParameterValue() {
    String url = fixture.createQueue("cmv-earlier-deleted");
    Message[] r = receivedTwice(url);
    sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(r[1].receiptHandle()));
    SqsException e =
        assertThrows(
            SqsException.class,
            () ->
                sqs.changeMessageVisibility(
                    b ->
                        b.queueUrl(url).receiptHandle(r[0].receiptHandle()).visibilityTimeout(30)));
    assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode());
  }

  @Test
  void nativeExtendThroughEarlierReceipt_stillStale() {
    String url = fixture.createQueue("native-stays-strict");
    Message[] r = receivedTwice(url);
    QueueException e =
        assertThrows(
            QueueException.class,
            () ->
                fixture
                    .nativeApi()
                    .extend("native-stays-strict", r[0].receiptHandle(), Duration.ofSeconds(30)));
    assertEquals(ErrorCode.RECEIPT_STALE, e.code());
  }

  // ---- FIFO DeleteMessage with a handle whose lease ended -----------------------------------

  @Test
  void fifoDeleteWithExpiredHandle_deleted_nowInvalidParameterValueAndKept() {
    String url = fixture.createFifoQueue("expired-delete.fifo");
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("x").messageGroupId("g"));
    Message m = receiveOne(url, 1);
    CLOCK.advanceSeconds(1);
    SqsException e =
        assertThrows(
            SqsException.class,
            () -> sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(m.receiptHandle())));
    assertEquals(400, e.statusCode());
    assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode());
    assertEquals(
        "Value "
            + m.receiptHandle()
            + " for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.",
        e.awsErrorDetails().errorMessage());
    assertEquals(m.messageId(), receiveOne(url, 600).messageId(), "not deleted");
  }

  @Test
  void fifoDeleteBatchWithExpiredHandle_thatEntryFails() {
    String url = fixture.createFifoQueue("expired-delete-batch.fifo");
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("x").messageGroupId("g"));
    Message m = receiveOne(url, 1);
    CLOCK.advanceSeconds(1);
    DeleteMessageBatchResponse answer =
        sqs.deleteMessageBatch(
            b -> b.queueUrl(url).entries(e -> e.id("late").receiptHandle(m.receiptHandle())));
    BatchResultErrorEntry failed = answer.failed().get(0);
    assertEquals("InvalidParameterValue", failed.code());
    assertTrue(failed.senderFault());
    assertTrue(
        failed.message().endsWith("Reason: The receipt handle has expired."), failed.message());
  }

  @Test
  void standardDeleteWithExpiredHandle_stillDeletes() {
    String url = fixture.createQueue("expired-delete-standard");
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("x"));
    Message m = receiveOne(url, 1);
    CLOCK.advanceSeconds(1);
    sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(m.receiptHandle()));
    assertTrue(nothingToReceive(url));
  }

  // ---- batch answers carry Successful and Failed -------------------------------------------

  @Test
  void batchEveryEntryFailed_leftSuccessfulOut_nowAnEmptyList() {
    String url = fixture.createQueue("batch-all-failed");
    DeleteMessageBatchResponse deleted =
        sqs.deleteMessageBatch(b -> b.queueUrl(url).entries(e -> e.id("a").receiptHandle("junk")));
    assertTrue(deleted.hasSuccessful(), "Successful present");
    assertTrue(deleted.successful().isEmpty());
    assertEquals(1, deleted.failed().size());
    ChangeMessageVisibilityBatchResponse changed =
        sqs.changeMessageVisibilityBatch(
            b ->
                b.queueUrl(url).entries(e -> e.id("a").receiptHandle("junk").visibilityTimeout(5)));
    assertTrue(changed.hasSuccessful(), "Successful present");
    assertTrue(changed.successful().isEmpty());
  }

  @Test
  void batchEveryEntrySucceeded_failedIsAnEmptyList() {
    String url = fixture.createQueue("batch-all-succeeded");
    SendMessageBatchResponse sent =
        sqs.sendMessageBatch(b -> b.queueUrl(url).entries(e -> e.id("a").messageBody("x")));
    assertTrue(sent.hasFailed(), "Failed present");
    assertTrue(sent.failed().isEmpty());
    assertFalse(sent.successful().isEmpty());
  }
}
