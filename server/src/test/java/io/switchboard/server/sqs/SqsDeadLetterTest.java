package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.ListDeadLetterSourceQueuesResponse;
import software.amazon.awssdk.services.sqs.model.ListMessageMoveTasksResultEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.ResourceNotFoundException;
import software.amazon.awssdk.services.sqs.model.SqsException;
import software.amazon.awssdk.services.sqs.model.UnsupportedOperationException;

/**
 * ListDeadLetterSourceQueues and the message move tasks through SDK v2: messages dead-lettered
 * after maxReceiveCount go back where they came from, or to a named queue.
 */
class SqsDeadLetterTest {

  private static final String ARN = "arn:aws:sqs:us-east-1:000000000000:";
  @RegisterExtension static final SqsServer fixture = new SqsServer();
  private static final SqsClient sqs = fixture.sqs;

  private static String queue(String name) {
    return sqs.createQueue(b -> b.queueName(name)).queueUrl();
  }

  private static String source(String name, String dlq, int maxReceiveCount) {
    return sqs.createQueue(
            b ->
                b.queueName(name)
                    .attributesWithStrings(
                        Map.of(
                            "RedrivePolicy",
                            "{\"deadLetterTargetArn\":\""
                                + ARN
                                + dlq
                                + "\",\"maxReceiveCount\":"
                                + maxReceiveCount
                                + "}")))
        .queueUrl();
  }

  /** Receives and releases at once until the message is dead-lettered. */
  private static void exhaust(String url, int maxReceiveCount) {
    for (int i = 0; i < maxReceiveCount; i++) {
      Message m =
          sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10)).messages().get(0);
      sqs.changeMessageVisibility(
          b -> b.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
    }
    assertTrue(sqs.receiveMessage(b -> b.queueUrl(url)).messages().isEmpty());
  }

  private static long approximate(String url) {
    return Long.parseLong(
        sqs.getQueueAttributes(
                b ->
                    b.queueUrl(url)
                        .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
            .attributes()
            .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
  }

  /** Polls (bounded) until the newest task on {@code dlq} has finished. */
  private static ListMessageMoveTasksResultEntry finished(String dlq) throws InterruptedException {
    for (int i = 0; i < 500; i++) {
      var r = sqs.listMessageMoveTasks(b -> b.sourceArn(ARN + dlq)).results().get(0);
      if (!r.status().equals("RUNNING")) {
        return r;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the move task on " + dlq + " did not finish in 5 s");
  }

  @Test
  void listDeadLetterSourceQueues_pages() {
    String dlq = queue("pages-dlq");
    for (String n : List.of("pages-c", "pages-a", "pages-b")) {
      source(n, "pages-dlq", 3);
    }
    queue("pages-unrelated");
    ListDeadLetterSourceQueuesResponse first =
        sqs.listDeadLetterSourceQueues(b -> b.queueUrl(dlq).maxResults(2));
    assertEquals(List.of(fixture.url("pages-a"), fixture.url("pages-b")), first.queueUrls());
    assertNotNull(first.nextToken());
    ListDeadLetterSourceQueuesResponse second =
        sqs.listDeadLetterSourceQueues(
            b -> b.queueUrl(dlq).maxResults(2).nextToken(first.nextToken()));
    assertEquals(List.of(fixture.url("pages-c")), second.queueUrls());
    assertNull(second.nextToken());
    List<String> all = new ArrayList<>();
    sqs.listDeadLetterSourceQueuesPaginator(b -> b.queueUrl(dlq).maxResults(1))
        .queueUrls()
        .forEach(all::add);
    assertEquals(3, all.size());
    assertEquals(3, sqs.listDeadLetterSourceQueues(b -> b.queueUrl(dlq)).queueUrls().size());
    assertTrue(
        sqs.listDeadLetterSourceQueues(b -> b.queueUrl(fixture.url("pages-unrelated")))
            .queueUrls()
            .isEmpty());
    assertThrows(
        QueueDoesNotExistException.class,
        () -> sqs.listDeadLetterSourceQueues(b -> b.queueUrl(fixture.url("pages-none"))));
  }

  @Test
  void moveTask_withoutDestination_movesEachMessageBackToItsSource() throws Exception {
    String dlq = queue("back-dlq");
    String a = source("back-a", "back-dlq", 2);
    String b2 = source("back-b", "back-dlq", 2);
    sqs.sendMessage(b -> b.queueUrl(a).messageBody("from a"));
    exhaust(a, 2);
    sqs.sendMessage(b -> b.queueUrl(b2).messageBody("from b"));
    exhaust(b2, 2);
    assertEquals(2, approximate(dlq));

    String handle = sqs.startMessageMoveTask(b -> b.sourceArn(ARN + "back-dlq")).taskHandle();
    assertNotNull(handle);
    ListMessageMoveTasksResultEntry done = finished("back-dlq");
    assertEquals("COMPLETED", done.status());
    assertEquals(2, done.approximateNumberOfMessagesMoved());
    assertEquals(2, done.approximateNumberOfMessagesToMove());
    assertEquals(ARN + "back-dlq", done.sourceArn());
    assertNull(done.destinationArn());
    assertNull(done.taskHandle(), "only a running task has a handle");
    assertTrue(done.startedTimestamp() > 0);
    assertEquals(0, approximate(dlq));
    assertEquals("from a", sqs.receiveMessage(b -> b.queueUrl(a)).messages().get(0).body());
    assertEquals("from b", sqs.receiveMessage(b -> b.queueUrl(b2)).messages().get(0).body());
    assertThrows(
        UnsupportedOperationException.class,
        () -> sqs.cancelMessageMoveTask(b -> b.taskHandle(handle)));
  }

  @Test
  void moveTask_toDestination_rateLimited_cancel() throws Exception {
    String dlq = queue("slow-dlq");
    String src = source("slow-src", "slow-dlq", 1);
    String dest = queue("slow-dest");
    for (int i = 0; i < 20; i++) {
      int n = i;
      sqs.sendMessage(b -> b.queueUrl(src).messageBody("m" + n));
    }
    // Each message is received once (visible again at once), then dead-lettered on the next.
    for (int i = 0; i < 10 && approximate(dlq) < 20; i++) {
      sqs.receiveMessage(b -> b.queueUrl(src).maxNumberOfMessages(10).visibilityTimeout(0));
    }
    assertEquals(20, approximate(dlq));

    String handle =
        sqs.startMessageMoveTask(
                b ->
                    b.sourceArn(ARN + "slow-dlq")
                        .destinationArn(ARN + "slow-dest")
                        .maxNumberOfMessagesPerSecond(1))
            .taskHandle();
    ListMessageMoveTasksResultEntry running =
        sqs.listMessageMoveTasks(b -> b.sourceArn(ARN + "slow-dlq")).results().get(0);
    assertEquals("RUNNING", running.status());
    assertEquals(handle, running.taskHandle());
    assertEquals(ARN + "slow-dest", running.destinationArn());
    assertEquals(1, running.maxNumberOfMessagesPerSecond());
    assertEquals(20, running.approximateNumberOfMessagesToMove());
    SqsException twice =
        assertThrows(
            SqsException.class, () -> sqs.startMessageMoveTask(b -> b.sourceArn(ARN + "slow-dlq")));
    assertEquals("InvalidParameterValue", twice.awsErrorDetails().errorCode());

    long moved =
        sqs.cancelMessageMoveTask(b -> b.taskHandle(handle)).approximateNumberOfMessagesMoved();
    assertTrue(moved < 20, "moved " + moved);
    var tasks =
        sqs.listMessageMoveTasks(b -> b.sourceArn(ARN + "slow-dlq").maxResults(10)).results();
    assertEquals(1, tasks.size());
    assertEquals("CANCELLED", tasks.get(0).status());
    assertEquals(20, approximate(dlq) + approximate(dest));
  }

  @Test
  void moveTask_errors() {
    queue("err-plain");
    String dlq = queue("err-dlq");
    source("err-src", "err-dlq", 1);
    SqsException notDlq =
        assertThrows(
            SqsException.class,
            () -> sqs.startMessageMoveTask(b -> b.sourceArn(ARN + "err-plain")));
    assertEquals("InvalidParameterValue", notDlq.awsErrorDetails().errorCode());
    assertThrows(
        ResourceNotFoundException.class,
        () -> sqs.startMessageMoveTask(b -> b.sourceArn(ARN + "err-missing")));
    assertThrows(
        ResourceNotFoundException.class,
        () ->
            sqs.startMessageMoveTask(
                b -> b.sourceArn(ARN + "err-dlq").destinationArn(ARN + "err-missing")));
    SqsException rate =
        assertThrows(
            SqsException.class,
            () ->
                sqs.startMessageMoveTask(
                    b -> b.sourceArn(ARN + "err-dlq").maxNumberOfMessagesPerSecond(501)));
    assertEquals("InvalidParameterValue", rate.awsErrorDetails().errorCode());
    SqsException notArn =
        assertThrows(SqsException.class, () -> sqs.startMessageMoveTask(b -> b.sourceArn(dlq)));
    assertEquals("InvalidParameterValue", notArn.awsErrorDetails().errorCode());
    assertThrows(
        ResourceNotFoundException.class,
        () -> sqs.cancelMessageMoveTask(b -> b.taskHandle("not-a-handle")));
    assertThrows(
        ResourceNotFoundException.class,
        () -> sqs.listMessageMoveTasks(b -> b.sourceArn(ARN + "err-missing")));
    SqsException max =
        assertThrows(
            SqsException.class,
            () -> sqs.listMessageMoveTasks(b -> b.sourceArn(ARN + "err-dlq").maxResults(11)));
    assertEquals("InvalidParameterValue", max.awsErrorDetails().errorCode());
    assertTrue(sqs.listMessageMoveTasks(b -> b.sourceArn(ARN + "err-dlq")).results().isEmpty());
  }
}
