package io.switchboard.server.security.sigv4;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.server.auth.AccessKeys;
import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * The verifier streams the canonical request as bytes (docs/benchmarks.md, "Cost of
 * authentication"): each request here is signed over a canonical request written out by hand, so
 * the streaming writer is checked against the SigV4 rules, not against itself.
 */
class SigV4StreamingTest {

  private static final Instant NOW = Instant.parse("2026-11-25T21:00:00Z");
  private static final String DATE = "20261125T210000Z";
  private static final String SCOPE = "20261125/us-east-1/sqs/aws4_request";

  private final SigV4Verifier verifier =
      new SigV4Verifier(
          new MemoryKeyRing(AccessKeys.of(Map.of("AKIDTEST", "test-secret")).principals()),
          ManualClock.at(NOW));

  /** The hex HMAC of the string to sign of {@code canonical}, with test-secret's signing key. */
  private static String signatureOf(String canonical) throws Exception {
    String stringToSign =
        "AWS4-HMAC-SHA256\n"
            + DATE
            + "\n"
            + SCOPE
            + "\n"
            + SigV4.hex(SigV4.sha256(canonical.getBytes(StandardCharsets.UTF_8)));
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(SigV4.signingKey("test-secret", SCOPE), "HmacSHA256"));
    return SigV4.hex(mac.doFinal(stringToSign.getBytes(StandardCharsets.UTF_8)));
  }

  private static SqsHttpRequest request(
      String path,
      String query,
      Map<String, List<String>> headers,
      String signedHeaders,
      String signature,
      byte[] body) {
    Map<String, List<String>> h = new LinkedHashMap<>(headers);
    h.put(
        "authorization",
        List.of(
            "AWS4-HMAC-SHA256 Credential=AKIDTEST/"
                + SCOPE
                + ", SignedHeaders="
                + signedHeaders
                + ", Signature="
                + signature));
    return new SqsHttpRequest("POST", path, query, h, body);
  }

  private static Map<String, List<String>> headers() {
    Map<String, List<String>> h = new LinkedHashMap<>();
    h.put("host", List.of("127.0.0.1:9324"));
    h.put("x-amz-date", List.of(DATE));
    h.put("x-multi", List.of("  a   b ", "c", "\td  e\t"));
    h.put("x-utf", List.of(" café  au   lait "));
    h.put("x-empty", List.of(""));
    return h;
  }

  @Test
  void multiValueHeaders_runsOfSpaces_nonAscii_andEmptyValues_areCanonicalisedAsSigV4Says()
      throws Exception {
    byte[] body = "Action=ListQueues".getBytes(StandardCharsets.UTF_8);
    String canonical =
        "POST\n/\n\n"
            + "host:127.0.0.1:9324\n"
            + "x-amz-date:"
            + DATE
            + "\n"
            + "x-empty:\n"
            + "x-multi:a b,c,d e\n"
            + "x-utf:café au lait\n"
            + "\n"
            + "host;x-amz-date;x-empty;x-multi;x-utf\n"
            + SigV4.hex(SigV4.sha256(body));
    String signature = signatureOf(canonical);
    String signed = "host;x-amz-date;x-empty;x-multi;x-utf";
    assertEquals(
        "AKIDTEST",
        verifier
            .verify(request("/", "", headers(), signed, signature, body))
            .orElseThrow()
            .keyId());
    // the names as a client may spell them, a trailing ';', an upper-case signature: the same
    assertEquals(
        "AKIDTEST",
        verifier
            .verify(
                request(
                    "/",
                    "",
                    headers(),
                    "Host;X-Amz-Date;x-empty;X-Multi;x-utf;",
                    signature.toUpperCase(Locale.ROOT),
                    body))
            .orElseThrow()
            .keyId());
    // one space less in a value is another request
    Map<String, List<String>> changed = headers();
    changed.put("x-utf", List.of("caféau lait"));
    SigV4Error e =
        assertThrows(
            SigV4Error.class,
            () -> verifier.verify(request("/", "", changed, signed, signature, body)));
    assertEquals("SignatureDoesNotMatch", e.code());
  }

  @Test
  void encodedAndNonAsciiPath_andQueryWithEmptyValues_areCanonicalisedAsSigV4Says()
      throws Exception {
    byte[] body = new byte[0];
    String path = "/000000000000/q%20x/é~_-.";
    String query = "b=&Action=ListQueues&a=x%20y&c";
    String canonical =
        "POST\n/000000000000/q%2520x/%C3%A9~_-.\n"
            + SigV4.canonicalQuery(query)
            + "\nhost:127.0.0.1:9324\nx-amz-date:"
            + DATE
            + "\n\nhost;x-amz-date\n"
            + SigV4.hex(SigV4.sha256(body));
    assertEquals("Action=ListQueues&a=x%20y&b=&c=", SigV4.canonicalQuery(query));
    assertEquals(
        "AKIDTEST",
        verifier
            .verify(
                request(path, query, headers(), "host;x-amz-date", signatureOf(canonical), body))
            .orElseThrow()
            .keyId());
  }

  @Test
  void aRequestLargerThanThePooledBuffer_verifies_andSoDoesTheNextOne() throws Exception {
    byte[] body = new byte[0];
    String big = "v".repeat(100_000);
    Map<String, List<String>> h = headers();
    h.put("x-big", List.of(big));
    String canonical =
        "POST\n/\n\nhost:127.0.0.1:9324\nx-amz-date:"
            + DATE
            + "\nx-big:"
            + big
            + "\n\nhost;x-amz-date;x-big\n"
            + SigV4.hex(SigV4.sha256(body));
    for (int i = 0; i < 3; i++) {
      assertEquals(
          "AKIDTEST",
          verifier
              .verify(request("/", "", h, "host;x-amz-date;x-big", signatureOf(canonical), body))
              .orElseThrow()
              .keyId());
      String small = "POST\n/\n\nhost:127.0.0.1:9324\n\nhost\n" + SigV4.hex(SigV4.sha256(body));
      assertEquals(
          "AKIDTEST",
          verifier
              .verify(request("/", "", headers(), "host", signatureOf(small), body))
              .orElseThrow()
              .keyId());
    }
  }
}
