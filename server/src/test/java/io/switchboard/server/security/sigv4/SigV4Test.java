package io.switchboard.server.security.sigv4;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.auth.AccessKeys;
import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.server.sqs.SigV4Requests;
import io.switchboard.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The signer against vectors of the AWS SigV4 test suite (credentials {@code AKIDEXAMPLE}, date
 * 2015-08-30T12:36:00Z, region us-east-1, service {@code service}), and the verifier's verdicts
 * with a manual clock.
 */
class SigV4Test {

  private static final String SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  private static final String DATE = "20150830T123600Z";
  private static final String SUITE_SCOPE = "20150830/us-east-1/service/aws4_request";
  private static final String EMPTY_HASH =
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  private static Map<String, List<String>> headers(String... nameValues) {
    Map<String, List<String>> h = new LinkedHashMap<>();
    for (int i = 0; i < nameValues.length; i += 2) {
      h.put(nameValues[i], List.of(nameValues[i + 1]));
    }
    return h;
  }

  private static String suiteSignature(
      String method, String path, String query, Map<String, List<String>> h, String payloadHash) {
    return SigV4.signature(
        SECRET,
        DATE,
        SUITE_SCOPE,
        new SigV4.Request(method, path, query, h, List.copyOf(h.keySet()), payloadHash));
  }

  @Test
  void getVanilla() {
    assertEquals(
        "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
        suiteSignature(
            "GET",
            "/",
            "",
            headers("host", "example.amazonaws.com", "x-amz-date", DATE),
            EMPTY_HASH));
  }

  @Test
  void getVanillaQueryOrderKeyCase_sortsTheQuery() {
    assertEquals(
        "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500",
        suiteSignature(
            "GET",
            "/",
            "Param2=value2&Param1=value1",
            headers("host", "example.amazonaws.com", "x-amz-date", DATE),
            EMPTY_HASH));
  }

  @Test
  void getUtf8_encodesThePath() {
    assertEquals("/%E1%88%B4", SigV4.canonicalUri("/ሴ"));
    assertEquals(
        "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85",
        suiteSignature(
            "GET",
            "/ሴ",
            "",
            headers("host", "example.amazonaws.com", "x-amz-date", DATE),
            EMPTY_HASH));
  }

  @Test
  void postXWwwFormUrlencoded_signsContentTypeAndBody() {
    Map<String, List<String>> h =
        headers(
            "content-type",
            "application/x-www-form-urlencoded",
            "host",
            "example.amazonaws.com",
            "x-amz-date",
            DATE);
    String bodyHash = SigV4.hex(SigV4.sha256("Param1=value1".getBytes(StandardCharsets.UTF_8)));
    assertEquals("9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e", bodyHash);
    assertEquals(
        "POST\n/\n\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\n"
            + "x-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n"
            + bodyHash,
        SigV4.canonicalRequest(
            new SigV4.Request("POST", "/", "", h, List.copyOf(h.keySet()), bodyHash)));
    assertEquals(
        "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a",
        suiteSignature("POST", "/", "", h, bodyHash));
  }

  @Test
  void canonicalValues_trimAndJoinRepeats_queryEncodesTheAwsWay() {
    Map<String, List<String>> h = new LinkedHashMap<>();
    h.put("my-header1", List.of("  a   b  ", "c"));
    String c =
        SigV4.canonicalRequest(
            new SigV4.Request("GET", "/", "", h, List.of("my-header1"), EMPTY_HASH));
    assertTrue(c.contains("\nmy-header1:a b,c\n"), c);
    assertEquals("a=1&b=x%20y%2A~&b=z", SigV4.canonicalQuery("b=z&b=x+y*~&a=1"));
    assertEquals("Action=X", SigV4.canonicalQuery("X-Amz-Signature=abc&Action=X"));
  }

  // ---- verifier ----------------------------------------------------------------------------

  private static final String KEY_ID = "AKIDTEST";
  private static final String KEY_SECRET = "test-secret";
  private static final Instant NOW = Instant.parse("2026-11-22T08:00:00Z");
  private final ManualClock clock = ManualClock.at(NOW);
  private final SigV4Verifier verifier =
      new SigV4Verifier(
          new MemoryKeyRing(AccessKeys.of(Map.of(KEY_ID, KEY_SECRET)).principals()), clock);

  /** A form POST to {@code /} signed by the test's key, as an SDK would sign it. */
  static SqsHttpRequest signedPost(String keyId, String secret, Instant at, String body) {
    String amzDate = SigV4Requests.amzDate(at);
    Map<String, List<String>> h =
        headers(
            "content-type", "application/x-www-form-urlencoded",
            "host", "localhost:8080",
            "x-amz-date", amzDate);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    h.put(
        "authorization",
        List.of(SigV4Requests.authorization(keyId, secret, "POST", "/", "", h, bytes)));
    return new SqsHttpRequest("POST", "/", "", h, bytes);
  }

  private SigV4Error refusal(SqsHttpRequest r) {
    return assertThrows(SigV4Error.class, () -> verifier.verify(r));
  }

  @Test
  void rightSignature_passes_withinFifteenMinutesEitherWay() {
    assertDoesNotThrow(
        () -> verifier.verify(signedPost(KEY_ID, KEY_SECRET, NOW, "Action=ListQueues")));
    SqsHttpRequest r = signedPost(KEY_ID, KEY_SECRET, NOW, "Action=ListQueues");
    clock.advance(Duration.ofMinutes(15));
    assertDoesNotThrow(() -> verifier.verify(r));
    assertDoesNotThrow(
        () ->
            verifier.verify(
                signedPost(
                    KEY_ID, KEY_SECRET, NOW.plus(Duration.ofMinutes(30)), "Action=ListQueues")));
  }

  @Test
  void skewOverFifteenMinutes_isRequestExpired() {
    SqsHttpRequest r = signedPost(KEY_ID, KEY_SECRET, NOW, "Action=ListQueues");
    clock.advance(Duration.ofMinutes(15).plusSeconds(1));
    SigV4Error e = refusal(r);
    assertEquals("RequestExpired", e.code());
    assertEquals(400, e.status());
  }

  @Test
  void wrongSecret_orChangedBody_isSignatureDoesNotMatch() {
    SigV4Error wrong = refusal(signedPost(KEY_ID, "not-the-secret", NOW, "Action=ListQueues"));
    assertEquals("SignatureDoesNotMatch", wrong.code());
    assertEquals(403, wrong.status());

    SqsHttpRequest signed = signedPost(KEY_ID, KEY_SECRET, NOW, "Action=ListQueues");
    SqsHttpRequest swapped =
        new SqsHttpRequest(
            "POST",
            "/",
            "",
            signed.headers(),
            "Action=DeleteQueue".getBytes(StandardCharsets.UTF_8));
    assertEquals("SignatureDoesNotMatch", refusal(swapped).code());
  }

  @Test
  void unknownKey_isInvalidClientTokenId_andNamesTheKeyNotTheSecret() {
    SigV4Error e = refusal(signedPost("AKIDOTHER", KEY_SECRET, NOW, "Action=ListQueues"));
    assertEquals("InvalidClientTokenId", e.code());
    assertEquals(403, e.status());
    assertTrue(e.getMessage().contains("AKIDOTHER") && !e.getMessage().contains(KEY_SECRET));
  }

  @Test
  void noSignature_isMissingAuthenticationToken_malformedIsIncompleteSignature() {
    SqsHttpRequest none = new SqsHttpRequest("POST", "/", "", headers("host", "h"), new byte[0]);
    SigV4Error missing = refusal(none);
    assertEquals("MissingAuthenticationToken", missing.code());
    assertEquals(403, missing.status());

    SqsHttpRequest noSignature =
        new SqsHttpRequest(
            "POST",
            "/",
            "",
            headers(
                "authorization",
                "AWS4-HMAC-SHA256 Credential=AKIDTEST/20261122/us-east-1/sqs/aws4_request,"
                    + " SignedHeaders=host",
                "x-amz-date",
                "20261122T080000Z"),
            new byte[0]);
    SigV4Error incomplete = refusal(noSignature);
    assertEquals("IncompleteSignature", incomplete.code());
    assertEquals(400, incomplete.status());
    assertTrue(incomplete.getMessage().contains("Signature"), incomplete.getMessage());

    SqsHttpRequest sigV2 =
        new SqsHttpRequest(
            "POST", "/", "", headers("authorization", "AWS AKIDTEST:abc"), new byte[0]);
    assertEquals("IncompleteSignature", refusal(sigV2).code());
  }

  @Test
  void presignedQuery_passesUntilItExpires() {
    SqsHttpRequest r = presigned("60");
    assertDoesNotThrow(() -> verifier.verify(r));
    clock.advance(Duration.ofSeconds(61));
    assertEquals("RequestExpired", refusal(r).code());
  }

  /**
   * Regression (docs/operations.md, "Limits"): a huge X-Amz-Expires overflowed the instant
   * arithmetic into a 500.
   */
  @ParameterizedTest
  @ValueSource(strings = {"9223372036854775807", "604801", "0", "-1", "1e30", "60.5"})
  void presignedExpiresOutOfRange_isIncompleteSignature_namingTheRangeAndValue(String expires) {
    SigV4Error e = refusal(presigned(expires));
    assertEquals("IncompleteSignature", e.code());
    assertEquals(400, e.status());
    assertTrue(e.getMessage().contains("X-Amz-Expires"), e.getMessage());
    assertTrue(e.getMessage().contains(expires), e.getMessage());
  }

  private static SqsHttpRequest presigned(String expires) {
    String amzDate = SigV4Requests.amzDate(NOW);
    String query =
        "Action=ListQueues&Version=2012-11-05&X-Amz-Algorithm=AWS4-HMAC-SHA256"
            + "&X-Amz-Credential=AKIDTEST%2F"
            + amzDate.substring(0, 8)
            + "%2Fus-east-1%2Fsqs%2Faws4_request&X-Amz-Date="
            + amzDate
            + "&X-Amz-Expires="
            + expires
            + "&X-Amz-SignedHeaders=host";
    Map<String, List<String>> h = headers("host", "localhost:8080");
    String signature =
        SigV4.signature(
            KEY_SECRET,
            amzDate,
            amzDate.substring(0, 8) + "/us-east-1/sqs/aws4_request",
            new SigV4.Request("GET", "/", query, h, List.of("host"), EMPTY_HASH));
    return new SqsHttpRequest("GET", "/", query + "&X-Amz-Signature=" + signature, h, new byte[0]);
  }

  /**
   * One verifier serves a server's requests: it derives a signing key once per secret and scope,
   * keeps only keys that verified a request (a wrong secret or a guessed scope adds nothing), and
   * still refuses a wrong signature made under a kept scope.
   */
  @Test
  void verifier_keepsTheSigningKeysOfVerifiedRequestsOnly_andStillRefusesWrongOnes() {
    assertEquals(
        "SignatureDoesNotMatch",
        refusal(signedPost(KEY_ID, "not-the-secret", NOW, "Action=ListQueues")).code());
    assertEquals(0, verifier.cachedKeys());

    verifier.verify(signedPost(KEY_ID, KEY_SECRET, NOW, "Action=ListQueues"));
    verifier.verify(signedPost(KEY_ID, KEY_SECRET, NOW.plusSeconds(60), "Action=ListQueues"));
    assertEquals(1, verifier.cachedKeys(), "one key per secret, date, region and service");

    assertEquals(
        "SignatureDoesNotMatch",
        refusal(signedPost(KEY_ID, "not-the-secret", NOW, "Action=ListQueues")).code());
    SqsHttpRequest changed = signedPost(KEY_ID, KEY_SECRET, NOW, "Action=ListQueues");
    assertEquals(
        "SignatureDoesNotMatch",
        refusal(
                new SqsHttpRequest(
                    "POST",
                    "/",
                    "",
                    changed.headers(),
                    "Action=DeleteQueue".getBytes(StandardCharsets.UTF_8)))
            .code());
    assertEquals(1, verifier.cachedKeys());
  }

  @Test
  void noKeysConfigured_acceptsAnything() {
    SigV4Verifier off = new SigV4Verifier(new MemoryKeyRing(), clock);
    assertDoesNotThrow(
        () -> off.verify(new SqsHttpRequest("POST", "/", "", headers(), new byte[0])));
  }

  @Test
  void accessKeys_parse_andNeverPrintSecrets() {
    AccessKeys keys = AccessKeys.parse(" AKID1:s1/+x , AKID2:s2:with:colons ");
    assertEquals("s1/+x", keys.secret("AKID1").orElseThrow());
    assertEquals("s2:with:colons", keys.secret("AKID2").orElseThrow());
    assertEquals("AccessKeys[AKID1, AKID2]", keys.toString());
    IllegalArgumentException bad =
        assertThrows(IllegalArgumentException.class, () -> AccessKeys.parse("AKID1:s1,oops"));
    assertTrue(bad.getMessage().contains("entry 2"), bad.getMessage());
    assertEquals(AccessKeys.none(), AccessKeys.parse(" "));
  }
}
