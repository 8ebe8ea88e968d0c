package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.QueueEngine;
import io.switchboard.time.ManualClock;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Which FIFO messages a receive takes when groups come back, as Amazon SQS answers (checked against
 * its recorded answers), through the stock AWS SDK for Java v2 on a manual clock: a group reopens
 * up to its first message in flight, and groups never received go before groups handed back ({@code
 * docs/sqs.md}, "Messages").
 */
class SqsFifoGroupsTest {

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

  /** Sends {@code body} to group {@code body}'s prefix before the dash ("g1-m1" to "g1"). */
  private static void send(String url, String... bodies) {
    for (String body : bodies) {
      String group = body.substring(0, body.indexOf('-'));
      sqs.sendMessage(b -> b.queueUrl(url).messageBody(body).messageGroupId(group));
    }
  }

  private static List<Message> receive(String url, int max, int visibility) {
    return sqs.receiveMessage(
            b -> b.queueUrl(url).maxNumberOfMessages(max).visibilityTimeout(visibility))
        .messages();
  }

  private static List<String> bodies(List<Message> messages) {
    return messages.stream().map(Message::body).toList();
  }

  private static void changeVisibility(String url, Message m, int seconds) {
    sqs.changeMessageVisibility(
        b -> b.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(seconds));
  }

  @Test
  void headHandedBackWhileTheNextIsInFlight_wasBlocked_nowDeliveredAgain() {
    String url = fixture.createFifoQueue("reopen-head.fifo");
    send(url, "g1-m1", "g1-m2", "g2-m1");
    List<Message> g1 = receive(url, 2, 600);
    assertEquals(List.of("g1-m1", "g1-m2"), bodies(g1));
    changeVisibility(url, g1.get(0), 0);
    // SQS: [g2-m1, g1-m1]; Switchboard answered [g2-m1], g1 locked while g1-m2 was in flight
    assertEquals(List.of("g2-m1", "g1-m1"), bodies(receive(url, 3, 600)));
  }

  @Test
  void middleOfThreeExtended_firstServedAgainWhenItsLeaseEnds_theThirdWaits() {
    String url = fixture.createFifoQueue("reopen-middle.fifo");
    send(url, "a-1", "a-2", "a-3");
    List<Message> batch = receive(url, 3, 10);
    assertEquals(List.of("a-1", "a-2", "a-3"), bodies(batch));
    changeVisibility(url, batch.get(1), 30);
    CLOCK.advanceSeconds(10);
    assertEquals(List.of("a-1"), bodies(receive(url, 10, 600)));
  }

  @Test
  void groupsNeverReceived_wereServedInFirstSendOrder_nowComeFirst() {
    String url = fixture.createFifoQueue("never-received-first.fifo");
    send(url, "g1-m1", "g2-m1", "g2-m2", "g3-m1", "g1-m2");
    assertEquals(List.of("g1-m1", "g1-m2", "g2-m1"), bodies(receive(url, 3, 0)));
    assertEquals(List.of("g3-m1", "g1-m1", "g1-m2", "g2-m1", "g2-m2"), bodies(receive(url, 10, 0)));
  }

  @Test
  void groupHandedBack_goesBeforeGroupsFirstSentAfterItWasReceived() {
    String url = fixture.createFifoQueue("handed-back-turn.fifo");
    send(url, "a-1");
    CLOCK.advanceSeconds(1);
    send(url, "b-1");
    CLOCK.advanceSeconds(1);
    Message a1 = receive(url, 1, 600).get(0);
    CLOCK.advanceSeconds(1);
    send(url, "c-1");
    changeVisibility(url, a1, 0);
    assertEquals(List.of("b-1", "a-1", "c-1"), bodies(receive(url, 10, 600)));
  }
}
