package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** IAM's rules for a statement's {@code Condition}, as {@link PolicyCondition} applies them. */
class PolicyConditionTest {

  private static final PolicyCondition.Facts PLAIN_FROM_10_1_2_3 =
      PolicyCondition.Facts.of(
          Optional.of("10.1.2.3"),
          false,
          Instant.parse("2026-12-02T10:00:00Z"),
          Optional.of("arn:aws:iam::000000000000:user/billing"),
          "000000000000",
          Optional.of("aws-sdk-java/2.30"));

  private static final PolicyCondition.Facts KEYLESS_TLS_FROM_V6 =
      PolicyCondition.Facts.of(
          Optional.of("2001:db8::7"),
          true,
          Instant.parse("2026-12-02T10:00:00Z"),
          Optional.empty(),
          "000000000000",
          Optional.empty());

  private static PolicyCondition condition(String json) {
    try {
      return PolicyCondition.read(
          SqsJson.MAPPER.readTree(json),
          (what, allowed) -> SqsError.invalidParameter(what + ": " + allowed));
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static boolean holds(String json, PolicyCondition.Facts facts) {
    return condition(json).holds(facts);
  }

  @Test
  void everyOperatorAndEveryKeyMustHold_andAnyOfAKeysValuesWill() {
    String both =
        """
        {"IpAddress":{"aws:SourceIp":["192.168.0.0/16","10.0.0.0/8"]},\
        "Bool":{"aws:SecureTransport":"false"}}""";
    assertTrue(holds(both, PLAIN_FROM_10_1_2_3));
    assertFalse(
        holds(both.replace("10.0.0.0/8", "10.2.0.0/16"), PLAIN_FROM_10_1_2_3), "no value matches");
    assertFalse(holds(both.replace("\"false\"", "\"true\""), PLAIN_FROM_10_1_2_3));
  }

  @Test
  void anAbsentKey_failsAPositiveOperator_andSatisfiesANegatedOne() {
    assertFalse(holds("{\"StringEquals\":{\"aws:SourceAccount\":\"1\"}}", PLAIN_FROM_10_1_2_3));
    assertTrue(holds("{\"StringNotEquals\":{\"aws:SourceAccount\":\"1\"}}", PLAIN_FROM_10_1_2_3));
    assertTrue(holds("{\"ArnNotLike\":{\"aws:PrincipalArn\":\"*\"}}", KEYLESS_TLS_FROM_V6));
    assertFalse(holds("{\"ArnLike\":{\"aws:PrincipalArn\":\"*\"}}", KEYLESS_TLS_FROM_V6));
  }

  @Test
  void ifExists_holdsForAnAbsentKey_andTestsAPresentOne() {
    String c = "{\"StringEqualsIfExists\":{\"aws:UserAgent\":\"aws-cli/*\"}}";
    assertTrue(holds(c, KEYLESS_TLS_FROM_V6), "no user agent");
    assertFalse(holds(c, PLAIN_FROM_10_1_2_3), "StringEquals has no wildcards");
    assertTrue(holds(c.replace("Equals", "Like").replace("cli", "sdk-java"), PLAIN_FROM_10_1_2_3));
  }

  @Test
  void null_testsPresence() {
    assertTrue(holds("{\"Null\":{\"aws:PrincipalArn\":\"true\"}}", KEYLESS_TLS_FROM_V6));
    assertFalse(holds("{\"Null\":{\"aws:PrincipalArn\":\"true\"}}", PLAIN_FROM_10_1_2_3));
    assertTrue(holds("{\"Null\":{\"aws:PrincipalArn\":false}}", PLAIN_FROM_10_1_2_3));
  }

  @Test
  void forAnyValueFailsAndForAllValuesHoldsOnAnAbsentKey() {
    assertFalse(
        holds("{\"ForAnyValue:StringNotEquals\":{\"aws:SourceArn\":\"x\"}}", PLAIN_FROM_10_1_2_3));
    assertTrue(
        holds("{\"ForAllValues:StringEquals\":{\"aws:SourceArn\":\"x\"}}", PLAIN_FROM_10_1_2_3));
  }

  @Test
  void numbersDatesAddressesAndArns_compareByTheirKind() {
    long now = Instant.parse("2026-12-02T10:00:00Z").getEpochSecond();
    assertTrue(
        holds(
            "{\"NumericGreaterThan\":{\"aws:EpochTime\":\"" + (now - 1) + "\"}}",
            PLAIN_FROM_10_1_2_3));
    assertFalse(
        holds("{\"NumericLessThan\":{\"aws:EpochTime\":\"" + now + "\"}}", PLAIN_FROM_10_1_2_3));
    assertTrue(
        holds(
            "{\"DateGreaterThanEquals\":{\"aws:CurrentTime\":\"2026-12-02T10:00:00Z\"}}",
            PLAIN_FROM_10_1_2_3));
    assertTrue(
        holds(
            "{\"DateLessThan\":{\"aws:CurrentTime\":\"" + (now + 60) + "\"}}", KEYLESS_TLS_FROM_V6),
        "a date may be epoch seconds");
    assertTrue(holds("{\"IpAddress\":{\"aws:SourceIp\":\"2001:db8::/32\"}}", KEYLESS_TLS_FROM_V6));
    assertFalse(
        holds("{\"IpAddress\":{\"aws:SourceIp\":\"2001:db8::/32\"}}", PLAIN_FROM_10_1_2_3),
        "an IPv4 address is in no IPv6 range");
    assertTrue(holds("{\"IpAddress\":{\"aws:SourceIp\":\"10.1.2.3\"}}", PLAIN_FROM_10_1_2_3));
    assertTrue(
        holds(
            "{\"ArnLike\":{\"aws:PrincipalArn\":\"arn:aws:iam::*:user/bill*\"}}",
            PLAIN_FROM_10_1_2_3));
    assertFalse(
        holds(
            "{\"ArnLike\":{\"aws:PrincipalArn\":\"arn:aws:iam:*:user/billing\"}}",
            PLAIN_FROM_10_1_2_3),
        "a wildcard stays within one part of the ARN");
  }

  @Test
  void operatorNamesAndKeys_areReadInAnyCase_likeIam() {
    assertTrue(holds("{\"bool\":{\"AWS:SECURETRANSPORT\":\"true\"}}", KEYLESS_TLS_FROM_V6));
  }

  @Test
  void whatCannotBeEvaluated_isRefusedNamingIt() {
    String[][] cases = {
      {"{\"StringEquals\":{\"sqs:MessageAttribute\":\"x\"}}", "sqs:MessageAttribute"},
      {"{\"StringMatches\":{\"aws:UserAgent\":\"x\"}}", "StringMatches"},
      {"{\"NullIfExists\":{\"aws:UserAgent\":\"true\"}}", "NullIfExists"},
      {"{\"IpAddress\":{\"aws:SourceIp\":\"example.com\"}}", "example.com"},
      {"{\"IpAddress\":{\"aws:SourceIp\":\"10.0.0.0/33\"}}", "10.0.0.0/33"},
      {"{\"DateLessThan\":{\"aws:CurrentTime\":\"tomorrow\"}}", "tomorrow"},
      {"{\"NumericEquals\":{\"aws:EpochTime\":\"ten\"}}", "ten"},
      {"{\"Bool\":{\"aws:SecureTransport\":\"yes\"}}", "yes"},
      {"{\"StringEquals\":{\"aws:PrincipalArn\":\"${aws:username}\"}}", "${aws:username}"},
      {"{\"StringEquals\":{\"aws:UserAgent\":[]}}", "with no value"},
      {"{\"Maybe:StringEquals\":{\"aws:UserAgent\":\"x\"}}", "Maybe:StringEquals"},
      {"[]", "Condition"},
    };
    for (String[] c : cases) {
      SqsError e = assertThrows(SqsError.class, () -> condition(c[0]), c[0]);
      assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
      assertEquals("InvalidParameterValue", e.code(), c[0]);
    }
  }
}
