package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.model.AmazonSQSException;
import com.amazonaws.services.sqs.model.CreateQueueRequest;
import com.amazonaws.services.sqs.model.ListDeadLetterSourceQueuesRequest;
import com.amazonaws.services.sqs.model.ListDeadLetterSourceQueuesResult;
import com.amazonaws.services.sqs.model.ListMessageMoveTasksRequest;
import com.amazonaws.services.sqs.model.ListMessageMoveTasksResultEntry;
import com.amazonaws.services.sqs.model.Message;
import com.amazonaws.services.sqs.model.ReceiveMessageRequest;
import com.amazonaws.services.sqs.model.StartMessageMoveTaskRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tags, permissions, dead-letter sources and message move tasks through SDK v1 (query protocol).
 */
class SqsV1TagsAndMovesTest {

  private static final String ARN = "arn:aws:sqs:us-east-1:000000000000:";
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

  /** Tag values with the characters form encoding escapes (SQS allows no XML specials in tags). */
  @Test
  void tags_createTagListUntag() {
    String url =
        sqs.createQueue(new CreateQueueRequest("v1-tagged").addTagsEntry("team", "a b/c=d+e"))
            .getQueueUrl();
    sqs.tagQueue(url, Map.of("env", "prod@eu:1", "tier", "1"));
    assertEquals(
        Map.of("team", "a b/c=d+e", "env", "prod@eu:1", "tier", "1"),
        sqs.listQueueTags(url).getTags());
    sqs.untagQueue(url, List.of("team", "tier"));
    assertEquals(Map.of("env", "prod@eu:1"), sqs.listQueueTags(url).getTags());
  }

  @Test
  void permissions_addShowsInPolicy_removeTakesItOut() {
    String url = sqs.createQueue("v1-shared").getQueueUrl();
    sqs.addPermission(url, "v1label", List.of("000000000000"), List.of("SendMessage"));
    String policy = sqs.getQueueAttributes(url, List.of("Policy")).getAttributes().get("Policy");
    assertNotNull(policy);
    assertTrue(
        policy.contains("v1label") && policy.contains("arn:aws:iam::000000000000:root"), policy);
    sqs.removePermission(url, "v1label");
    String after = sqs.getQueueAttributes(url, List.of("Policy")).getAttributes().get("Policy");
    assertTrue(after == null || !after.contains("v1label"), after);
  }

  @Test
  void listDeadLetterSourceQueues_findsTheSources() {
    String dlq = sqs.createQueue("v1-src-dlq").getQueueUrl();
    for (String n : List.of("v1-src-b", "v1-src-a")) {
      source(n, "v1-src-dlq", 3);
    }
    ListDeadLetterSourceQueuesResult r =
        sqs.listDeadLetterSourceQueues(new ListDeadLetterSourceQueuesRequest().withQueueUrl(dlq));
    assertEquals(List.of(fixture.url("v1-src-a"), fixture.url("v1-src-b")), r.getQueueUrls());
  }

  private static String source(String name, String dlq, int maxReceiveCount) {
    return sqs.createQueue(
            new CreateQueueRequest(name)
                .addAttributesEntry(
                    "RedrivePolicy",
                    "{\"deadLetterTargetArn\":\""
                        + ARN
                        + dlq
                        + "\",\"maxReceiveCount\":"
                        + maxReceiveCount
                        + "}"))
        .getQueueUrl();
  }

  @Test
  void moveTask_movesDeadLettersBackToTheirSource() throws Exception {
    String dlq = sqs.createQueue("v1-back-dlq").getQueueUrl();
    String src = source("v1-back", "v1-back-dlq", 1);
    sqs.sendMessage(src, "return me");
    Message m = sqs.receiveMessage(src).getMessages().get(0);
    sqs.changeMessageVisibility(src, m.getReceiptHandle(), 0);
    assertTrue(sqs.receiveMessage(src).getMessages().isEmpty());

    String handle =
        sqs.startMessageMoveTask(
                new StartMessageMoveTaskRequest().withSourceArn(ARN + "v1-back-dlq"))
            .getTaskHandle();
    assertNotNull(handle);
    ListMessageMoveTasksResultEntry done = finished("v1-back-dlq");
    assertEquals("COMPLETED", done.getStatus());
    assertEquals(1L, done.getApproximateNumberOfMessagesMoved());
    assertEquals(ARN + "v1-back-dlq", done.getSourceArn());
    assertTrue(sqs.receiveMessage(new ReceiveMessageRequest(dlq)).getMessages().isEmpty());
    assertEquals("return me", sqs.receiveMessage(src).getMessages().get(0).getBody());
    AmazonSQSException finished =
        assertThrows(
            AmazonSQSException.class,
            () ->
                sqs.cancelMessageMoveTask(
                    new com.amazonaws.services.sqs.model.CancelMessageMoveTaskRequest()
                        .withTaskHandle(handle)));
    assertEquals(400, finished.getStatusCode());
  }

  /** Polls (bounded) until the newest task on {@code dlq} has finished. */
  private static ListMessageMoveTasksResultEntry finished(String dlq) throws InterruptedException {
    for (int i = 0; i < 500; i++) {
      var r =
          sqs.listMessageMoveTasks(new ListMessageMoveTasksRequest().withSourceArn(ARN + dlq))
              .getResults()
              .get(0);
      if (!r.getStatus().equals("RUNNING")) {
        return r;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the move task on " + dlq + " did not finish in 5 s");
  }
}
