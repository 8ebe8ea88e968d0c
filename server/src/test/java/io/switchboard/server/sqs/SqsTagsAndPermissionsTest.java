package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.OverLimitException;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SqsException;

/** TagQueue, UntagQueue, ListQueueTags, AddPermission, RemovePermission through SDK v2. */
class SqsTagsAndPermissionsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  @RegisterExtension static final SqsServer fixture = new SqsServer();
  private static final SqsClient sqs = fixture.sqs;

  /**
   * Keys, so that policies may name one: the fixture's client signs as {@code fake}, an admin key;
   * {@code AKIACONSUMER} is a key a permission names.
   */
  @BeforeAll
  static void keys() {
    fixture.server.keys().put(Principal.admin("fake", "fake"));
    fixture
        .server
        .keys()
        .put(
            new Principal(
                "AKIACONSUMER",
                "consumer-secret",
                Optional.empty(),
                List.of(Grant.of("nothing-*", Action.QUEUE_BROWSE)),
                Optional.empty()));
  }

  private static String errorCode(Runnable call) {
    return assertThrows(SqsException.class, call::run).awsErrorDetails().errorCode();
  }

  @Test
  void tagQueue_untagQueue_listQueueTags() {
    String url =
        sqs.createQueue(b -> b.queueName("tagged").tags(Map.of("team", "blue"))).queueUrl();
    assertEquals(Map.of("team", "blue"), sqs.listQueueTags(b -> b.queueUrl(url)).tags());
    sqs.tagQueue(b -> b.queueUrl(url).tags(Map.of("team", "green", "cost-center", "42")));
    assertEquals(
        Map.of("team", "green", "cost-center", "42"),
        sqs.listQueueTags(b -> b.queueUrl(url)).tags());
    sqs.untagQueue(b -> b.queueUrl(url).tagKeys("team", "not-there"));
    assertEquals(Map.of("cost-center", "42"), sqs.listQueueTags(b -> b.queueUrl(url)).tags());
    sqs.untagQueue(b -> b.queueUrl(url).tagKeys("cost-center"));
    assertTrue(sqs.listQueueTags(b -> b.queueUrl(url)).tags().isEmpty());
  }

  @Test
  void tags_doNotCountForCreateQueueIdempotence_norShowAsAttributes() {
    String url =
        sqs.createQueue(b -> b.queueName("tagged-again").tags(Map.of("a", "1"))).queueUrl();
    assertEquals(
        url, sqs.createQueue(b -> b.queueName("tagged-again").tags(Map.of("b", "2"))).queueUrl());
    assertEquals(Map.of("a", "1"), sqs.listQueueTags(b -> b.queueUrl(url)).tags());
    Map<String, String> all =
        sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL))
            .attributesAsStrings();
    assertFalse(
        all.keySet().stream().anyMatch(k -> k.contains("tag") || k.contains("sqs.")), "" + all);
  }

  @Test
  void tagLimits_fiftyTagsKeyAndValueLengthsReservedPrefix_changeNothing() {
    String url = sqs.createQueue(b -> b.queueName("tag-limits")).queueUrl();
    Map<String, String> fifty = new HashMap<>();
    for (int i = 0; i < 50; i++) {
      fifty.put("k" + i, "v");
    }
    sqs.tagQueue(b -> b.queueUrl(url).tags(fifty));
    assertEquals(
        "InvalidParameterValue",
        errorCode(() -> sqs.tagQueue(b -> b.queueUrl(url).tags(Map.of("one-more", "v")))));
    assertEquals(50, sqs.listQueueTags(b -> b.queueUrl(url)).tags().size());
    sqs.tagQueue(b -> b.queueUrl(url).tags(Map.of("k0", "replacing is fine")));
    assertEquals(
        "InvalidParameterValue",
        errorCode(() -> sqs.tagQueue(b -> b.queueUrl(url).tags(Map.of("x".repeat(129), "v")))));
    assertEquals(
        "InvalidParameterValue",
        errorCode(() -> sqs.tagQueue(b -> b.queueUrl(url).tags(Map.of("k1", "v".repeat(257))))));
    assertEquals(
        "InvalidParameterValue",
        errorCode(() -> sqs.tagQueue(b -> b.queueUrl(url).tags(Map.of("aws:owner", "me")))));
    assertEquals(
        "InvalidParameterValue",
        errorCode(() -> sqs.tagQueue(b -> b.queueUrl(url).tags(Map.of("bad#key", "v")))));
    assertEquals(
        "InvalidParameterValue",
        errorCode(
            () -> sqs.createQueue(b -> b.queueName("tag-bad").tags(Map.of("", "empty key")))));
    assertThrows(
        QueueDoesNotExistException.class, () -> sqs.getQueueUrl(b -> b.queueName("tag-bad")));
    assertEquals("v", sqs.listQueueTags(b -> b.queueUrl(url)).tags().get("k1"));
    assertThrows(
        QueueDoesNotExistException.class,
        () -> sqs.listQueueTags(b -> b.queueUrl(fixture.url("no-such-queue"))));
  }

  @Test
  void addPermission_writesPolicyAsSqs_removePermissionTakesItOut() throws Exception {
    String url = sqs.createQueue(b -> b.queueName("shared")).queueUrl();
    assertFalse(policy(url).containsKey("Policy"));
    sqs.addPermission(
        b ->
            b.queueUrl(url)
                .label("send-only")
                .awsAccountIds("000000000000")
                .actions("SendMessage"));
    sqs.addPermission(
        b ->
            b.queueUrl(url)
                .label("consumers")
                .awsAccountIds("000000000000", "AKIACONSUMER")
                .actions("ReceiveMessage", "DeleteMessage"));
    JsonNode p = JSON.readTree(policy(url).get("Policy"));
    String arn = "arn:aws:sqs:us-east-1:000000000000:shared";
    assertEquals("2008-10-17", p.get("Version").asText());
    assertEquals(arn + "/SQSDefaultPolicy", p.get("Id").asText());
    JsonNode first = p.get("Statement").get(0);
    assertEquals("send-only", first.get("Sid").asText());
    assertEquals("Allow", first.get("Effect").asText());
    assertEquals("arn:aws:iam::000000000000:root", first.get("Principal").get("AWS").asText());
    assertEquals("SQS:SendMessage", first.get("Action").asText());
    assertEquals(arn, first.get("Resource").asText());
    JsonNode second = p.get("Statement").get(1);
    assertEquals(
        "arn:aws:iam::000000000000:user/AKIACONSUMER",
        second.get("Principal").get("AWS").get(1).asText());
    assertEquals("SQS:DeleteMessage", second.get("Action").get(1).asText());

    assertEquals(
        "InvalidParameterValue",
        errorCode(
            () ->
                sqs.addPermission(
                    b ->
                        b.queueUrl(url)
                            .label("send-only")
                            .awsAccountIds("000000000000")
                            .actions("SendMessage"))));
    sqs.removePermission(b -> b.queueUrl(url).label("send-only"));
    assertEquals(1, JSON.readTree(policy(url).get("Policy")).get("Statement").size());
    assertEquals(
        "InvalidParameterValue",
        errorCode(() -> sqs.removePermission(b -> b.queueUrl(url).label("send-only"))));
    sqs.removePermission(b -> b.queueUrl(url).label("consumers"));
    assertFalse(policy(url).containsKey("Policy"));
  }

  @Test
  void addPermission_rules() {
    String url = sqs.createQueue(b -> b.queueName("perm-rules")).queueUrl();
    assertEquals(
        "InvalidParameterValue",
        errorCode(
            () ->
                sqs.addPermission(
                    b ->
                        b.queueUrl(url)
                            .label("bad label!")
                            .awsAccountIds("000000000000")
                            .actions("SendMessage"))));
    assertEquals(
        "InvalidParameterValue",
        errorCode(
            () ->
                sqs.addPermission(
                    b ->
                        b.queueUrl(url)
                            .label("x".repeat(81))
                            .awsAccountIds("000000000000")
                            .actions("SendMessage"))));
    assertEquals(
        "InvalidParameterValue",
        errorCode(
            () ->
                sqs.addPermission(
                    b ->
                        b.queueUrl(url)
                            .label("l")
                            .awsAccountIds("000000000000")
                            .actions("CreateQueue"))));
    assertEquals(
        "InvalidParameterValue",
        errorCode(
            () ->
                sqs.addPermission(
                    b -> b.queueUrl(url).label("l").awsAccountIds("12").actions("SendMessage"))));
    assertEquals(
        "MissingParameter",
        errorCode(
            () ->
                sqs.addPermission(b -> b.queueUrl(url).label("l").awsAccountIds("000000000000"))));
    assertThrows(
        OverLimitException.class,
        () ->
            sqs.addPermission(
                b ->
                    b.queueUrl(url)
                        .label("l")
                        .awsAccountIds("000000000000")
                        .actions(
                            "SendMessage",
                            "ReceiveMessage",
                            "DeleteMessage",
                            "ChangeMessageVisibility",
                            "GetQueueAttributes",
                            "GetQueueUrl",
                            "PurgeQueue",
                            "ListQueueTags")));
    assertEquals(
        "InvalidParameterValue",
        errorCode(
            () ->
                sqs.addPermission(
                    b ->
                        b.queueUrl(url)
                            .label("l")
                            .awsAccountIds("AKIANOSUCHKEY")
                            .actions("SendMessage"))));
    assertFalse(policy(url).containsKey("Policy"));
    sqs.addPermission(b -> b.queueUrl(url).label("all").awsAccountIds("000000000000").actions("*"));
    assertTrue(policy(url).get("Policy").contains("\"SQS:*\""));
    sqs.addPermission(
        b -> b.queueUrl(url).label("partner").awsAccountIds("111122223333").actions("SendMessage"));
    assertTrue(
        policy(url).get("Policy").contains("\"arn:aws:iam::111122223333:root\""),
        "another account is written as SQS writes it (its keys are bound to it: SqsQueuePolicyTest)");
  }

  @Test
  void policy_setQueueAttributes_storesJsonAndEmptyRemoves() {
    String url = sqs.createQueue(b -> b.queueName("policy-attr")).queueUrl();
    String doc = "{\"Version\":\"2012-10-17\",\"Statement\":[]}";
    sqs.setQueueAttributes(b -> b.queueUrl(url).attributes(Map.of(QueueAttributeName.POLICY, doc)));
    assertEquals(doc, policy(url).get("Policy"));
    assertEquals(
        "InvalidAttributeValue",
        errorCode(
            () ->
                sqs.setQueueAttributes(
                    b -> b.queueUrl(url).attributes(Map.of(QueueAttributeName.POLICY, "{nope")))));
    sqs.setQueueAttributes(b -> b.queueUrl(url).attributes(Map.of(QueueAttributeName.POLICY, "")));
    assertFalse(policy(url).containsKey("Policy"));
  }

  @Test
  void tagsAndPolicy_surviveARestartOfTheDurableServer(@TempDir Path dir) {
    String url;
    try (SqsServer durable = new SqsServer(dir)) {
      url =
          durable.sqs.createQueue(b -> b.queueName("kept").tags(Map.of("team", "blue"))).queueUrl();
      durable.sqs.tagQueue(b -> b.queueUrl(url).tags(Map.of("env", "prod")));
      durable.sqs.addPermission(
          b -> b.queueUrl(url).label("p").awsAccountIds("000000000000").actions("SendMessage"));
    }
    try (SqsServer durable = new SqsServer(dir)) {
      String again = durable.url("kept");
      assertEquals(
          Map.of("team", "blue", "env", "prod"),
          durable.sqs.listQueueTags(b -> b.queueUrl(again)).tags());
      String policy =
          durable
              .sqs
              .getQueueAttributes(b -> b.queueUrl(again).attributeNames(QueueAttributeName.POLICY))
              .attributesAsStrings()
              .get("Policy");
      assertTrue(policy.contains("\"Sid\":\"p\""), policy);
    }
  }

  private static Map<String, String> policy(String url) {
    return sqs.getQueueAttributes(
            b -> b.queueUrl(url).attributeNames(List.of(QueueAttributeName.ALL)))
        .attributesAsStrings();
  }
}
