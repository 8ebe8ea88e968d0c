package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.QueueEngine;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Over SQS, a key may name as a dead-letter target or move destination only a queue it may send to
 * ({@code docs/security.md}, "Moving messages between queues"): the outside attacker test's
 * CreateQueue and SetQueueAttributes with a {@code RedrivePolicy}, and StartMessageMoveTask with a
 * {@code DestinationArn}, naming a queue the key may not send to, are refused with {@code
 * AccessDenied} and change nothing.
 */
class SqsDestinationRightsTest {

  private SwitchboardServer server;
  private SqsClient admin;
  private SqsClient team;

  @BeforeEach
  void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    server.keys().put(Principal.admin("AKADMIN", "admin-pw"));
    server
        .keys()
        .put(
            new Principal(
                "AKTEAM",
                "team-pw",
                Optional.empty(),
                List.of(Grant.parse("queue:admin,queue:send,queue:receive on team-*")),
                Optional.empty()));
    admin = client("AKADMIN", "admin-pw");
    team = client("AKTEAM", "team-pw");
  }

  @AfterEach
  void stop() {
    admin.close();
    team.close();
    server.stop();
  }

  private SqsClient client(String id, String secret) {
    return SqsClient.builder()
        .endpointOverride(server.uri())
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret)))
        .build();
  }

  private String arn(String queue) {
    return "arn:aws:sqs:us-east-1:" + server.config().sqsAccount().id() + ":" + queue;
  }

  private String redrivePolicy(String target) {
    return "{\"deadLetterTargetArn\":\"" + arn(target) + "\",\"maxReceiveCount\":\"1\"}";
  }

  private static void assertDenied(SqsException e) {
    assertEquals(403, e.statusCode(), e.getMessage());
    assertEquals("AccessDenied", e.awsErrorDetails().errorCode(), e.getMessage());
    assertTrue(e.getMessage().contains("queue:send on queue 'secret'"), e.getMessage());
    assertTrue(e.getMessage().contains("AKTEAM"), e.getMessage());
  }

  private int depth(String url) {
    return Integer.parseInt(
        admin
            .getQueueAttributes(
                r ->
                    r.queueUrl(url)
                        .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
            .attributes()
            .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
  }

  @Test
  void redrivePoliciesAndMoveTasks_namingAQueueTheKeyMayNotSendTo_areAccessDenied() {
    String secret = admin.createQueue(r -> r.queueName("secret")).queueUrl();
    SqsException direct =
        assertThrows(
            SqsException.class, () -> team.sendMessage(r -> r.queueUrl(secret).messageBody("x")));
    assertEquals("AccessDenied", direct.awsErrorDetails().errorCode());

    assertDenied(
        assertThrows(
            SqsException.class,
            () ->
                team.createQueue(
                    r ->
                        r.queueName("team-y")
                            .attributesWithStrings(
                                Map.of("RedrivePolicy", redrivePolicy("secret"))))));
    assertTrue(
        admin.listQueues(r -> r.queueNamePrefix("team-y")).queueUrls().isEmpty(),
        "nothing was created");

    String teamY = team.createQueue(r -> r.queueName("team-y")).queueUrl();
    assertDenied(
        assertThrows(
            SqsException.class,
            () ->
                team.setQueueAttributes(
                    r ->
                        r.queueUrl(teamY)
                            .attributesWithStrings(
                                Map.of("RedrivePolicy", redrivePolicy("secret"))))));
    assertFalse(
        admin
            .getQueueAttributes(r -> r.queueUrl(teamY).attributeNames(QueueAttributeName.ALL))
            .attributes()
            .containsKey(QueueAttributeName.REDRIVE_POLICY),
        "the attributes are unchanged");

    // team-x is team-src's dead-letter queue and holds a message
    String teamX = team.createQueue(r -> r.queueName("team-x")).queueUrl();
    String teamSrc =
        team.createQueue(
                r ->
                    r.queueName("team-src")
                        .attributesWithStrings(
                            Map.of(
                                "RedrivePolicy",
                                redrivePolicy("team-x"),
                                "VisibilityTimeout",
                                "0")))
            .queueUrl();
    team.sendMessage(r -> r.queueUrl(teamSrc).messageBody("m"));
    team.receiveMessage(r -> r.queueUrl(teamSrc));
    team.receiveMessage(r -> r.queueUrl(teamSrc)); // finds it dead-lettered
    assertEquals(1, depth(teamX));
    assertDenied(
        assertThrows(
            SqsException.class,
            () ->
                team.startMessageMoveTask(
                    r -> r.sourceArn(arn("team-x")).destinationArn(arn("secret")))));
    assertEquals(1, depth(teamX), "the message stayed in team-x");
    assertEquals(0, depth(secret), "nothing reached secret");
  }

  private List<String> receivedBodies(SqsClient client, String url) {
    return client.receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10)).messages().stream()
        .map(software.amazon.awssdk.services.sqs.model.Message::body)
        .toList();
  }

  /**
   * A consumer key with {@code queue:receive} on its queue alone receives from a queue with a
   * {@code RedrivePolicy}, as on AWS; what is dead-lettered after {@code maxReceiveCount} is
   * checked against the key that set the policy: while it lacks {@code queue:send} on the target,
   * the message stays (its receive count going on), and moves once the grant is back.
   */
  @Test
  void aReceiveOnlyConsumer_receives_andTheMoveIsCheckedAgainstTheKeyThatSetThePolicy() {
    // this case's engine runs on a manual clock: leases end when the test says
    stop();
    ManualClock clock = ManualClock.create();
    server =
        SwitchboardServer.start(
            ServerConfig.forTests(),
            c -> QueueEngine.builder().clock(clock).maxQueues(c.maxQueues()).build(),
            clock);
    server.keys().put(Principal.admin("AKADMIN", "admin-pw"));
    admin = client("AKADMIN", "admin-pw");
    team = client("AKTEAM", "team-pw");
    Principal configurer =
        new Principal(
            "AKTEAM",
            "team-pw",
            Optional.empty(),
            List.of(
                Grant.parse("queue:admin,queue:send,queue:receive on team-*"),
                Grant.parse("queue:send on secret")),
            Optional.empty());
    server.keys().put(configurer);
    server
        .keys()
        .put(
            new Principal(
                "AKCONSUMER",
                "consumer-pw",
                Optional.empty(),
                List.of(Grant.parse("queue:receive on team-y")),
                Optional.empty()));
    String secret = admin.createQueue(r -> r.queueName("secret")).queueUrl();
    String teamY =
        team.createQueue(
                r ->
                    r.queueName("team-y")
                        .attributesWithStrings(
                            Map.of(
                                "RedrivePolicy",
                                redrivePolicy("secret"),
                                "VisibilityTimeout",
                                "10")))
            .queueUrl();
    try (SqsClient consumer = client("AKCONSUMER", "consumer-pw")) {
      team.sendMessage(r -> r.queueUrl(teamY).messageBody("m1"));
      assertEquals(List.of("m1"), receivedBodies(consumer, teamY));
      clock.advance(Duration.ofSeconds(11));
      assertEquals(List.of(), receivedBodies(consumer, teamY), "dead-lettered after one receive");
      assertEquals(1, depth(secret));

      // the key that set the policy loses queue:send on secret
      server
          .keys()
          .put(
              new Principal(
                  "AKTEAM",
                  "team-pw",
                  Optional.empty(),
                  List.of(Grant.parse("queue:admin,queue:send,queue:receive on team-*")),
                  Optional.empty()));
      team.sendMessage(r -> r.queueUrl(teamY).messageBody("m2"));
      assertEquals(List.of("m2"), receivedBodies(consumer, teamY));
      clock.advance(Duration.ofSeconds(11));
      assertEquals(
          List.of("m2"), receivedBodies(consumer, teamY), "the move was refused: m2 stayed");
      assertEquals(1, depth(secret));

      server.keys().put(configurer); // the grant is back: the next lease end moves m2
      clock.advance(Duration.ofSeconds(11));
      assertEquals(List.of(), receivedBodies(consumer, teamY), "m2 moved at its lease end");
      assertEquals(2, depth(secret));
    }
  }
}
