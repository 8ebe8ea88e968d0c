package io.switchboard.server.security.sigv4;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.auth.AccessKeys;
import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cheaper paths of SigV4 verification (docs/benchmarks.md, "Cost of authentication") give the
 * verdicts the general ones gave: the hand-read {@code X-Amz-Date}, header values that need no
 * canonicalising, and hashes from cloned prototypes, also when many threads verify at once.
 */
class SigV4FastPathTest {

  @Test
  void amzDate_readByHand_isTheInstantItNames() {
    assertEquals(
        Instant.parse("2015-08-30T12:36:00Z"), SigV4Verifier.parseAmzDate("20150830T123600Z"));
    assertEquals(
        Instant.parse("2024-02-29T23:59:59Z"), SigV4Verifier.parseAmzDate("20240229T235959Z"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "20150830T123600",
        "2015-08-30T12:36:00Z",
        "20151330T123600Z",
        "20150230T123600Z",
        "20150830T250000Z",
        "20150830X123600Z",
        "2015083OT123600Z",
        "+0150830T123600Z"
      })
  void malformedAmzDate_isIncompleteSignature_namingTheValue(String date) {
    SigV4Error e = assertThrows(SigV4Error.class, () -> SigV4Verifier.parseAmzDate(date));
    assertEquals("IncompleteSignature", e.code());
    assertTrue(e.getMessage().contains("YYYYMMDD'T'HHMMSS'Z', got " + date), e.getMessage());
  }

  @Test
  void headerValues_areTrimmedAndSpacesFolded_onlyWhenTheyNeedIt() {
    Map<String, List<String>> h = new LinkedHashMap<>();
    h.put("plain", List.of("a b"));
    h.put("padded", List.of("  a   b "));
    h.put("two", List.of("x", " y  z"));
    h.put("empty", List.of(""));
    String canonical =
        SigV4.canonicalRequest(
            new SigV4.Request("GET", "/", "", h, List.copyOf(h.keySet()), "hash"));
    assertEquals(
        "GET\n/\n\nplain:a b\npadded:a b\ntwo:x,y z\nempty:\n\nplain;padded;two;empty\nhash",
        canonical);
  }

  @Test
  void sha256_fromAClonedPrototype_isSha256_underConcurrentUse() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Boolean>> results = new java.util.ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        results.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 500; i++) {
                    byte[] data = ("t" + thread + "-" + i).getBytes(StandardCharsets.UTF_8);
                    byte[] expected = MessageDigest.getInstance("SHA-256").digest(data);
                    if (!SigV4.hex(SigV4.sha256(data)).equals(HexFormat.of().formatHex(expected))) {
                      return false;
                    }
                  }
                  return true;
                }));
      }
      for (Future<Boolean> f : results) {
        assertTrue(f.get());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- the one-pass Authorization header, the cached HMAC ------------------------------------

  private static final Instant NOW = Instant.parse("2026-11-22T08:00:00Z");

  private final SigV4Verifier verifier =
      new SigV4Verifier(
          new MemoryKeyRing(AccessKeys.of(Map.of("AKIDTEST", "test-secret")).principals()),
          ManualClock.at(NOW));

  /** The same signed request with its Authorization header rewritten. */
  private static SqsHttpRequest withAuthorization(
      SqsHttpRequest r, java.util.function.UnaryOperator<String> change) {
    Map<String, List<String>> h = new LinkedHashMap<>(r.headers());
    h.put("authorization", List.of(change.apply(r.header("authorization").orElseThrow())));
    return new SqsHttpRequest(r.method(), r.rawPath(), r.rawQuery(), h, r.body());
  }

  @Test
  void authorizationHeader_blanksAroundPartsAndTheirOrder_doNotMatter() {
    SqsHttpRequest r = SigV4Test.signedPost("AKIDTEST", "test-secret", NOW, "Action=ListQueues");
    String header = r.header("authorization").orElseThrow();
    String parts = header.substring("AWS4-HMAC-SHA256 ".length());
    String[] p = parts.split(", ?");
    String reordered = "AWS4-HMAC-SHA256 " + p[2] + " ,  " + p[0] + ",\t" + p[1] + " ";
    assertEquals(
        "AKIDTEST", verifier.verify(withAuthorization(r, h -> reordered)).orElseThrow().keyId());
  }

  @ParameterizedTest
  @ValueSource(strings = {"Credential", "SignedHeaders", "Signature"})
  void authorizationHeader_withoutAPart_isIncompleteSignature_namingIt(String part) {
    SqsHttpRequest r = SigV4Test.signedPost("AKIDTEST", "test-secret", NOW, "Action=ListQueues");
    SigV4Error e =
        assertThrows(
            SigV4Error.class,
            () ->
                verifier.verify(
                    withAuthorization(r, h -> h.replace(part + "=", "X" + part + "="))));
    assertEquals("IncompleteSignature", e.code());
    assertTrue(e.getMessage().contains("requires '" + part + "'"), e.getMessage());
  }

  @Test
  void signature_notHex_orOfTheWrongLength_doesNotMatch() {
    SqsHttpRequest r = SigV4Test.signedPost("AKIDTEST", "test-secret", NOW, "Action=ListQueues");
    String signature = r.header("authorization").orElseThrow().replaceAll(".*Signature=", "");
    for (String wrong :
        List.of("zz" + signature.substring(2), signature.substring(2), signature + "00", "")) {
      SigV4Error e =
          assertThrows(
              SigV4Error.class,
              () -> verifier.verify(withAuthorization(r, h -> h.replace(signature, wrong))));
      assertTrue(
          e.code().equals("SignatureDoesNotMatch") || e.code().equals("IncompleteSignature"),
          e.code());
    }
  }

  @Test
  void cachedSigningHmac_isCopiedPerRequest_soConcurrentRequestsEachVerify() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Boolean>> results = new java.util.ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        results.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 200; i++) {
                    String body = "Action=ListQueues&T=" + thread + "-" + i;
                    verifier.verify(SigV4Test.signedPost("AKIDTEST", "test-secret", NOW, body));
                    SqsHttpRequest bad =
                        SigV4Test.signedPost("AKIDTEST", "wrong-secret", NOW, body);
                    try {
                      verifier.verify(bad);
                      return false;
                    } catch (SigV4Error expected) {
                      if (!expected.code().equals("SignatureDoesNotMatch")) {
                        return false;
                      }
                    }
                  }
                  return true;
                }));
      }
      for (Future<Boolean> f : results) {
        assertTrue(f.get());
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(1, verifier.cachedKeys(), "one key, one scope: one cached signing key");
  }
}
