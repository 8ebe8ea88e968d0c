package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.client.Credentials;
import io.switchboard.client.SigV4Signer;
import io.switchboard.server.security.sigv4.SigV4Error;
import io.switchboard.server.security.sigv4.SigV4Verifier;
import io.switchboard.server.security.sigv4.SqsHttpRequest;
import io.switchboard.time.ManualClock;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Java client's SigV4 signer against the server's verifier: what the client signs, the server
 * accepts, for paths and queries that need encoding; a changed body, another secret or another key
 * id is refused.
 */
class ClientSigV4Test {

  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");
  private static final Credentials KEY =
      Credentials.of("AKIDCLIENT", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");

  private final SigV4Verifier verifier =
      new SigV4Verifier(
          new io.switchboard.server.auth.MemoryKeyRing(
              List.of(io.switchboard.server.auth.Principal.admin("AKIDCLIENT", KEY.secretKey()))),
          ManualClock.at(NOW));

  /** The request as the server receives it: the client's headers plus the Host it sends. */
  private static SqsHttpRequest received(
      String method, URI uri, byte[] body, Map<String, String> signed, String host) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("host", List.of(host));
    headers.put("content-type", List.of("application/json"));
    signed.forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), List.of(v)));
    String query = uri.getRawQuery() == null ? "" : uri.getRawQuery();
    return new SqsHttpRequest(
        method, uri.getRawPath(), query, headers, body == null ? new byte[0] : body);
  }

  @ParameterizedTest
  @CsvSource({
    "GET, http://127.0.0.1:8080/v1/queues, 127.0.0.1:8080",
    "GET, http://127.0.0.1:8080/v1/queues?prefix=a%20b%2Bc, 127.0.0.1:8080",
    "POST, http://localhost/v1/queues/q%20x/messages, localhost",
    "DELETE, https://sb.example.com/v1/queues/%E1%88%B4, sb.example.com",
    "POST, https://sb.example.com:8443/v1/queues/q/leases/AbC-_1/ack?x=1&a=2&a=1, sb.example.com:8443",
  })
  void clientSignature_verifiedByTheServer(String method, String url, String host) {
    URI uri = URI.create(url);
    byte[] body = "{\"body\":\"hello ✓\"}".getBytes(StandardCharsets.UTF_8);
    Map<String, String> signed = new SigV4Signer(KEY, "eu-west-1").sign(method, uri, body, NOW);
    assertEquals(
        "AKIDCLIENT",
        verifier.verify(received(method, uri, body, signed, host)).orElseThrow().keyId());
    assertEquals(
        java.util.Optional.of("eu-west-1"),
        SigV4Verifier.signedRegion(received(method, uri, body, signed, host)));
  }

  @Test
  void emptyBody_verified() {
    URI uri = URI.create("http://127.0.0.1:8080/v1/queues/q");
    Map<String, String> signed = new SigV4Signer(KEY, "us-east-1").sign("GET", uri, null, NOW);
    assertEquals(
        "AKIDCLIENT",
        verifier
            .verify(received("GET", uri, new byte[0], signed, "127.0.0.1:8080"))
            .orElseThrow()
            .keyId());
  }

  @Test
  void changedBody_signatureDoesNotMatch() {
    URI uri = URI.create("http://127.0.0.1:8080/v1/queues/q/messages");
    Map<String, String> signed =
        new SigV4Signer(KEY, "us-east-1").sign("POST", uri, "{\"body\":\"a\"}".getBytes(), NOW);
    SigV4Error e =
        assertThrows(
            SigV4Error.class,
            () ->
                verifier.verify(
                    received(
                        "POST", uri, "{\"body\":\"b\"}".getBytes(), signed, "127.0.0.1:8080")));
    assertEquals("SignatureDoesNotMatch", e.code());
  }

  @Test
  void wrongSecret_signatureDoesNotMatch_unknownId_invalidClientTokenId() {
    URI uri = URI.create("http://127.0.0.1:8080/v1/queues");
    Map<String, String> wrong =
        new SigV4Signer(Credentials.of("AKIDCLIENT", "not-the-secret"), "us-east-1")
            .sign("GET", uri, null, NOW);
    assertEquals(
        "SignatureDoesNotMatch",
        assertThrows(
                SigV4Error.class,
                () -> verifier.verify(received("GET", uri, null, wrong, "127.0.0.1:8080")))
            .code());
    Map<String, String> unknown =
        new SigV4Signer(Credentials.of("AKIDOTHER", KEY.secretKey()), "us-east-1")
            .sign("GET", uri, null, NOW);
    SigV4Error e =
        assertThrows(
            SigV4Error.class,
            () -> verifier.verify(received("GET", uri, null, unknown, "127.0.0.1:8080")));
    assertEquals("InvalidClientTokenId", e.code());
    assertFalse(e.getMessage().contains(KEY.secretKey()));
  }
}
