package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * SQS queue policies are enforced for the keys this server knows (docs/security.md, "SQS queue
 * policies"): an Allow lets a key do what its grants do not, a Deny refuses even what they allow,
 * and what cannot be enforced is refused when set, leaving the queue as it was.
 */
class SqsQueuePolicyTest {

  private static final String ACCOUNT = "000000000000";
  private static final String PARTNER_ACCOUNT = "111122223333";
  private static final PolicyCondition.Facts FACTS =
      PolicyCondition.Facts.of(
          Optional.of("127.0.0.1"),
          false,
          Instant.parse("2026-12-02T00:00:00Z"),
          Optional.empty(),
          ACCOUNT,
          Optional.empty());
  private static SwitchboardServer server;
  private static SqsClient owner;
  private static SqsClient other;
  private static SqsClient admin;
  private static SqsClient partner;

  @BeforeAll
  static void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    server.keys().put(Principal.admin("AKADMIN", "admin-secret"));
    server
        .keys()
        .put(
            new Principal(
                "AKOWNER",
                "owner-secret",
                Optional.of("orders service"),
                List.of(
                    Grant.of(
                        "a-*",
                        Action.QUEUE_ADMIN,
                        Action.QUEUE_SEND,
                        Action.QUEUE_RECEIVE,
                        Action.QUEUE_BROWSE)),
                Optional.empty()));
    server
        .keys()
        .put(
            new Principal(
                "AKOTHER",
                "other-secret",
                Optional.of("billing"),
                List.of(Grant.of("b-*", Action.QUEUE_SEND, Action.QUEUE_BROWSE)),
                Optional.empty()));
    server
        .keys()
        .put(
            new Principal(
                "AKPARTNER",
                "partner-secret",
                Optional.of("partner"),
                List.of(Grant.of("p-*", Action.QUEUE_SEND)),
                Optional.empty(),
                Optional.of(PARTNER_ACCOUNT)));
    owner = SqsClients.v2(server.uri(), "AKOWNER", "owner-secret");
    partner = SqsClients.v2(server.uri(), "AKPARTNER", "partner-secret");
    other = SqsClients.v2(server.uri(), "AKOTHER", "other-secret");
    admin = SqsClients.v2(server.uri(), "AKADMIN", "admin-secret");
  }

  @AfterAll
  static void stop() {
    owner.close();
    other.close();
    admin.close();
    partner.close();
    server.stop();
  }

  private static SqsException refused(Runnable call) {
    return assertThrows(SqsException.class, call::run);
  }

  private static String arn(String queue) {
    return "arn:aws:sqs:us-east-1:" + ACCOUNT + ":" + queue;
  }

  private static Optional<String> policy(SqsClient client, String url) {
    return Optional.ofNullable(
        client
            .getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.POLICY))
            .attributesAsStrings()
            .get("Policy"));
  }

  private static void setPolicy(SqsClient client, String url, String policy) {
    client.setQueueAttributes(
        b -> b.queueUrl(url).attributes(Map.of(QueueAttributeName.POLICY, policy)));
  }

  @Test
  void addPermission_letsAnotherKeySend_removePermissionTakesItBack() {
    String url = owner.createQueue(b -> b.queueName("a-shared")).queueUrl();
    SqsException before = refused(() -> other.sendMessage(b -> b.queueUrl(url).messageBody("x")));
    assertEquals(403, before.statusCode());
    assertEquals("AccessDenied", before.awsErrorDetails().errorCode());

    owner.addPermission(
        b ->
            b.queueUrl(url).label("billing-sends").awsAccountIds("AKOTHER").actions("SendMessage"));
    assertTrue(
        policy(owner, url).orElseThrow().contains("arn:aws:iam::" + ACCOUNT + ":user/AKOTHER"));
    other.sendMessage(b -> b.queueUrl(url).messageBody("allowed"));
    other.sendMessageBatch(b -> b.queueUrl(url).entries(e -> e.id("1").messageBody("batch")));
    assertEquals(
        "AccessDenied",
        refused(() -> other.receiveMessage(b -> b.queueUrl(url))).awsErrorDetails().errorCode(),
        "the statement allows sending only");
    assertEquals(
        2, owner.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10)).messages().size());

    owner.removePermission(b -> b.queueUrl(url).label("billing-sends"));
    assertEquals(
        "AccessDenied",
        refused(() -> other.sendMessage(b -> b.queueUrl(url).messageBody("x")))
            .awsErrorDetails()
            .errorCode());
  }

  @Test
  void addPermission_forThisAccount_letsItsKeys_andAnotherAccountsOnlyWhenNamed() {
    String url = owner.createQueue(b -> b.queueName("a-everyone")).queueUrl();
    owner.addPermission(
        b -> b.queueUrl(url).label("all-send").awsAccountIds(ACCOUNT).actions("SendMessage"));
    other.sendMessage(b -> b.queueUrl(url).messageBody("allowed"));
    assertEquals(
        "AccessDenied",
        refused(() -> partner.sendMessage(b -> b.queueUrl(url).messageBody("x")))
            .awsErrorDetails()
            .errorCode(),
        "a key of account " + PARTNER_ACCOUNT + " is not one of this account's");

    owner.addPermission(
        b ->
            b.queueUrl(url)
                .label("partner")
                .awsAccountIds(PARTNER_ACCOUNT)
                .actions("SendMessage", "GetQueueAttributes"));

    assertTrue(
        policy(owner, url).orElseThrow().contains("arn:aws:iam::" + PARTNER_ACCOUNT + ":root"),
        "SQS's policy shape");
    partner.sendMessage(b -> b.queueUrl(url).messageBody("from the partner account"));
    assertEquals(
        "AccessDenied",
        refused(() -> partner.receiveMessage(b -> b.queueUrl(url))).awsErrorDetails().errorCode(),
        "only the actions named");
    assertEquals(
        "InvalidParameterValue",
        refused(
                () ->
                    owner.addPermission(
                        b ->
                            b.queueUrl(url)
                                .label("nobody")
                                .awsAccountIds("AKNOSUCHKEY")
                                .actions("SendMessage")))
            .awsErrorDetails()
            .errorCode());
    assertFalse(policy(owner, url).orElseThrow().contains("nobody"));
  }

  @Test
  void aKeyIsNamedUnderItsOwnAccount_andAPrincipalArnOfIt_matchesThatKeyOnly() {
    String url = owner.createQueue(b -> b.queueName("a-partner-key")).queueUrl();
    owner.addPermission(
        b -> b.queueUrl(url).label("by-key").awsAccountIds("AKPARTNER").actions("SendMessage"));
    assertTrue(
        policy(owner, url)
            .orElseThrow()
            .contains("arn:aws:iam::" + PARTNER_ACCOUNT + ":user/AKPARTNER"),
        policy(owner, url).orElseThrow());
    partner.sendMessage(b -> b.queueUrl(url).messageBody("x"));

    SqsException wrongAccount =
        refused(
            () ->
                setPolicy(
                    owner,
                    url,
                    """
                    {"Statement":[{"Effect":"Allow",                    "Principal":{"AWS":"arn:aws:iam::%s:user/AKPARTNER"},                    "Action":"sqs:SendMessage","Resource":"*"}]}"""
                        .formatted(ACCOUNT)));
    assertEquals("InvalidParameterValue", wrongAccount.awsErrorDetails().errorCode());
    assertTrue(
        wrongAccount.awsErrorDetails().errorMessage().contains(PARTNER_ACCOUNT),
        wrongAccount.awsErrorDetails().errorMessage());
  }

  @Test
  void policyAllow_byKeyNameOrId_grantsOnlyTheNamedKeyTheNamedActions() {
    String url = owner.createQueue(b -> b.queueName("a-by-name")).queueUrl();
    setPolicy(
        owner,
        url,
        """
        {"Version":"2012-10-17","Statement":[{"Sid":"billing-reads","Effect":"Allow",
         "Principal":{"AWS":"arn:aws:iam::000000000000:user/billing"},
         "Action":["sqs:Receive*","sqs:DeleteMessage"],"Resource":"%s"}]}"""
            .formatted(arn("a-by-name")));
    owner.sendMessage(b -> b.queueUrl(url).messageBody("m"));
    var got = other.receiveMessage(b -> b.queueUrl(url)).messages();
    assertEquals(1, got.size());
    other.deleteMessage(b -> b.queueUrl(url).receiptHandle(got.get(0).receiptHandle()));
    assertEquals(
        "AccessDenied",
        refused(() -> other.purgeQueue(b -> b.queueUrl(url))).awsErrorDetails().errorCode());
  }

  @Test
  void policyDeny_refusesEvenAKeyWhoseGrantsAllow_andAnAdminKey_butAdminMayStillChangeThePolicy() {
    String url = owner.createQueue(b -> b.queueName("a-frozen")).queueUrl();
    setPolicy(
        owner,
        url,
        """
        {"Version":"2012-10-17","Statement":[{"Sid":"no-sends","Effect":"Deny","Principal":"*",
         "Action":["sqs:SendMessage","sqs:SetQueueAttributes"],"Resource":"*"}]}""");
    SqsException denied = refused(() -> owner.sendMessage(b -> b.queueUrl(url).messageBody("x")));
    assertEquals("AccessDenied", denied.awsErrorDetails().errorCode());
    assertTrue(
        denied.awsErrorDetails().errorMessage().contains("no-sends"),
        denied.awsErrorDetails().errorMessage());
    assertEquals(
        "AccessDenied",
        refused(
                () ->
                    owner.sendMessageBatch(
                        b -> b.queueUrl(url).entries(e -> e.id("1").messageBody("x"))))
            .awsErrorDetails()
            .errorCode());
    assertEquals(
        "AccessDenied",
        refused(() -> admin.sendMessage(b -> b.queueUrl(url).messageBody("x")))
            .awsErrorDetails()
            .errorCode());
    assertEquals(
        "AccessDenied",
        refused(() -> setPolicy(owner, url, "")).awsErrorDetails().errorCode(),
        "the owner's queue:admin does not override the Deny");

    setPolicy(admin, url, ""); // an admin key may always change the policy
    owner.sendMessage(b -> b.queueUrl(url).messageBody("x"));
  }

  @Test
  void policyDeny_ofOneKey_leavesTheOthers() {
    String url = owner.createQueue(b -> b.queueName("a-deny-one")).queueUrl();
    setPolicy(
        owner,
        url,
        """
        {"Statement":[{"Effect":"Allow","Principal":{"AWS":"000000000000"},"Action":"sqs:*",
         "Resource":"*"},{"Effect":"Deny","Principal":{"AWS":"AKOTHER"},
         "Action":"sqs:ReceiveMessage","Resource":"*"}]}""");
    other.sendMessage(b -> b.queueUrl(url).messageBody("x"));
    assertEquals(
        "AccessDenied",
        refused(() -> other.receiveMessage(b -> b.queueUrl(url))).awsErrorDetails().errorCode());
    assertEquals(1, owner.receiveMessage(b -> b.queueUrl(url)).messages().size());
  }

  @Test
  void unsupportedPolicyContent_isRefusedWithInvalidParameterValue_andTheQueueIsUnchanged() {
    String url = owner.createQueue(b -> b.queueName("a-strict")).queueUrl();
    String kept =
        """
        {"Statement":[{"Sid":"kept","Effect":"Allow","Principal":{"AWS":"AKOTHER"},\
        "Action":"sqs:SendMessage","Resource":"*"}]}""";
    setPolicy(owner, url, kept);
    String statement = "{\"Effect\":\"Allow\",\"Principal\":%s,\"Action\":%s,\"Resource\":%s%s}";
    Map<String, String> unsupported =
        Map.of(
            "aws:SourceIpAddress",
            statement.formatted(
                "\"*\"",
                "\"sqs:SendMessage\"",
                "\"*\"",
                ",\"Condition\":{\"IpAddress\":{\"aws:SourceIpAddress\":\"10.0.0.0/8\"}}"),
            "StringStartsWith",
            statement.formatted(
                "\"*\"",
                "\"sqs:SendMessage\"",
                "\"*\"",
                ",\"Condition\":{\"StringStartsWith\":{\"aws:UserAgent\":\"x\"}}"),
            "NotAction",
            "{\"Effect\":\"Allow\",\"Principal\":\"*\",\"NotAction\":\"sqs:SendMessage\","
                + "\"Resource\":\"*\"}",
            "NotPrincipal",
            "{\"Effect\":\"Deny\",\"NotPrincipal\":{\"AWS\":\"AKOTHER\"},"
                + "\"Action\":\"sqs:*\",\"Resource\":\"*\"}",
            "belongs to account",
            statement.formatted(
                "{\"AWS\":\"arn:aws:iam::111122223333:user/AKOTHER\"}",
                "\"sqs:SendMessage\"",
                "\"*\"",
                ""),
            "Federated",
            statement.formatted(
                "{\"Federated\":\"cognito-identity.amazonaws.com\"}",
                "\"sqs:SendMessage\"",
                "\"*\"",
                ""),
            "naming no one",
            statement.formatted("{\"AWS\":[]}", "\"sqs:SendMessage\"", "\"*\"", ""),
            "AKNOSUCHKEY",
            statement.formatted("{\"AWS\":\"AKNOSUCHKEY\"}", "\"sqs:SendMessage\"", "\"*\"", ""),
            "s3:GetObject",
            statement.formatted("\"*\"", "\"s3:GetObject\"", "\"*\"", ""),
            "other-queue",
            statement.formatted(
                "\"*\"", "\"sqs:SendMessage\"", "\"" + arn("other-queue") + "\"", ""));
    unsupported.forEach(
        (what, s) -> {
          SqsException e = refused(() -> setPolicy(owner, url, "{\"Statement\":[" + s + "]}"));
          assertEquals("InvalidParameterValue", e.awsErrorDetails().errorCode(), what);
          assertTrue(
              e.awsErrorDetails().errorMessage().contains(what),
              what + ": " + e.awsErrorDetails().errorMessage());
          assertEquals(kept, policy(owner, url).orElseThrow(), what);
        });
    SqsException onCreate =
        refused(
            () ->
                owner.createQueue(
                    b ->
                        b.queueName("a-strict-new")
                            .attributes(
                                Map.of(
                                    QueueAttributeName.POLICY,
                                    "{\"Statement\":["
                                        + unsupported.get("aws:SourceIpAddress")
                                        + "]}"))));
    assertEquals("InvalidParameterValue", onCreate.awsErrorDetails().errorCode());
    assertTrue(owner.listQueues(b -> b.queueNamePrefix("a-strict-new")).queueUrls().isEmpty());
  }

  @Test
  void keyless_aDenyOfEveryoneIsEnforced_andAPolicyNamingAKeyIsRefused() {
    try (SqsServer keyless = new SqsServer()) {
      String url = keyless.sqs.createQueue(b -> b.queueName("open")).queueUrl();
      assertEquals(
          "InvalidParameterValue",
          refused(
                  () ->
                      keyless.sqs.addPermission(
                          b ->
                              b.queueUrl(url)
                                  .label("k")
                                  .awsAccountIds("AKOTHER")
                                  .actions("SendMessage")))
              .awsErrorDetails()
              .errorCode(),
          "there are no keys to name");
      setPolicy(
          keyless.sqs,
          url,
          """
          {"Statement":[{"Effect":"Deny","Principal":{"AWS":"arn:aws:iam::000000000000:root"},
           "Action":"sqs:SendMessage","Resource":"*"}]}""");
      assertEquals(
          "AccessDenied",
          refused(() -> keyless.sqs.sendMessage(b -> b.queueUrl(url).messageBody("x")))
              .awsErrorDetails()
              .errorCode());
      setPolicy(keyless.sqs, url, "");
      keyless.sqs.sendMessage(b -> b.queueUrl(url).messageBody("x"));
    }
  }

  @Test
  void anSnsSubscriptionPolicy_isAcceptedAndKept_andItsServicePrincipalMatchesNoKey() {
    String url = owner.createQueue(b -> b.queueName("a-from-sns")).queueUrl();
    String sns =
        """
        {"Version":"2012-10-17","Statement":[{"Sid":"topic","Effect":"Allow",        "Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"%s",        "Condition":{"ArnEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:%s:orders"}}}]}"""
            .formatted(arn("a-from-sns"), ACCOUNT);
    setPolicy(owner, url, sns);

    assertEquals(sns, policy(owner, url).orElseThrow());
    assertEquals(
        "AccessDenied",
        refused(() -> other.sendMessage(b -> b.queueUrl(url).messageBody("x")))
            .awsErrorDetails()
            .errorCode(),
        "no caller of this server is the SNS service");
    owner.sendMessage(b -> b.queueUrl(url).messageBody("still the owner's"));
  }

  @Test
  void aDenyUnlessSecureTransport_refusesEveryPlainHttpRequest_butAdminMayStillChangeIt() {
    String url = owner.createQueue(b -> b.queueName("a-tls-only")).queueUrl();
    setPolicy(
        owner,
        url,
        """
        {"Statement":[{"Sid":"tls-only","Effect":"Deny","Principal":"*","Action":"sqs:*",        "Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}""");

    SqsException e = refused(() -> owner.sendMessage(b -> b.queueUrl(url).messageBody("x")));
    assertEquals("AccessDenied", e.awsErrorDetails().errorCode());
    assertTrue(e.awsErrorDetails().errorMessage().contains("tls-only"), e.getMessage());
    setPolicy(admin, url, "");
    owner.sendMessage(b -> b.queueUrl(url).messageBody("x"));
  }

  @Test
  void conditionsOnSourceIpPrincipalArnAndTime_decideWhetherAStatementApplies() {
    String url = owner.createQueue(b -> b.queueName("a-conditions")).queueUrl();
    String allowOther =
        """
        {"Statement":[{"Sid":"billing-from-here","Effect":"Allow","Principal":"*",        "Action":"sqs:SendMessage","Resource":"*","Condition":{        "IpAddress":{"aws:SourceIp":["127.0.0.0/8","::1/128"]},        "StringLike":{"aws:PrincipalArn":"arn:aws:iam::%s:user/bill*"},        "DateLessThan":{"aws:CurrentTime":"%s"}}}]}""";
    setPolicy(owner, url, allowOther.formatted(ACCOUNT, "2999-01-01T00:00:00Z"));
    other.sendMessage(b -> b.queueUrl(url).messageBody("from loopback, as billing"));

    setPolicy(owner, url, allowOther.formatted(ACCOUNT, "2001-01-01T00:00:00Z"));
    assertEquals(
        "AccessDenied",
        refused(() -> other.sendMessage(b -> b.queueUrl(url).messageBody("x")))
            .awsErrorDetails()
            .errorCode(),
        "the statement's time has passed");

    setPolicy(
        owner,
        url,
        allowOther.formatted(ACCOUNT, "2999-01-01T00:00:00Z").replace("IpAddress", "NotIpAddress"));
    assertEquals(
        "AccessDenied",
        refused(() -> other.sendMessage(b -> b.queueUrl(url).messageBody("x")))
            .awsErrorDetails()
            .errorCode(),
        "the request comes from loopback");
  }

  @Test
  void aKeyOnlyServicesAdd_isAbsent_soItFailsAPlainTestAndPassesIfExistsAndNull() {
    String url = owner.createQueue(b -> b.queueName("a-absent")).queueUrl();
    String allow =
        """
        {"Statement":[{"Effect":"Allow","Principal":{"AWS":"AKOTHER"},        "Action":"sqs:SendMessage","Resource":"*","Condition":{"%s":{"aws:SourceArn":"%s"}}}]}""";
    String topic = "arn:aws:sns:us-east-1:" + ACCOUNT + ":orders";
    setPolicy(owner, url, allow.formatted("ArnEquals", topic));
    assertEquals(
        "AccessDenied",
        refused(() -> other.sendMessage(b -> b.queueUrl(url).messageBody("x")))
            .awsErrorDetails()
            .errorCode());

    setPolicy(owner, url, allow.formatted("ArnEqualsIfExists", topic));
    other.sendMessage(b -> b.queueUrl(url).messageBody("IfExists holds when absent"));

    setPolicy(owner, url, allow.formatted("Null", "true"));
    other.sendMessage(b -> b.queueUrl(url).messageBody("Null: true holds when absent"));
  }

  @Test
  void
      aStoredPolicyFromBeforeEnforcement_allowsNothingItCannotEnforce_andDeniesAllOnAnUnreadDeny() {
    Principal key =
        new Principal("AKOTHER", "s", Optional.empty(), List.of(Grant.admin()), Optional.empty());
    String arn = arn("legacy");
    QueuePolicy allow =
        QueuePolicy.enforced(
            "{\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":\"*\",\"Action\":\"sqs:*\","
                + "\"Resource\":\"*\",\"NotResource\":\"x\"}]}",
            arn,
            ACCOUNT);
    assertEquals(QueuePolicy.Decision.NONE, allow.decide(Optional.of(key), "SendMessage", FACTS));
    QueuePolicy deny =
        QueuePolicy.enforced(
            "{\"Statement\":[{\"Effect\":\"Deny\",\"NotPrincipal\":{\"AWS\":\"x\"},"
                + "\"Action\":\"sqs:SendMessage\",\"Resource\":\"*\"}]}",
            arn,
            ACCOUNT);
    assertEquals(QueuePolicy.Decision.DENY, deny.decide(Optional.of(key), "ReceiveMessage", FACTS));
    assertEquals(QueuePolicy.Decision.DENY, deny.decide(Optional.empty(), "SendMessage", FACTS));
  }
}
