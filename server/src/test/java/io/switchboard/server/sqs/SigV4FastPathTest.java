package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    SqsError e = assertThrows(SqsError.class, () -> SigV4Verifier.parseAmzDate(date));
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
}
