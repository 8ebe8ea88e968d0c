package io.switchboard.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a client with credentials puts on the wire, seen by a bare HTTP server: SigV4 headers whose
 * {@code host} is the {@code Host} the JDK's client really sends, or Basic. (That the server
 * accepts the signature is {@code ClientSigV4Test} in the server module.)
 */
class ClientCredentialsTest {

  private HttpServer server;
  private final AtomicReference<Map<String, List<String>>> seen = new AtomicReference<>();
  private URI base;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          seen.set(Map.copyOf(exchange.getRequestHeaders()));
          byte[] body =
              "{\"code\":\"QUEUE_NOT_FOUND\",\"message\":\"no\"}".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(404, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private String header(String name) {
    List<String> v = seen.get().get(name);
    return v == null ? null : v.get(0);
  }

  @Test
  void sigv4_signsTheHostTheClientSends() {
    Credentials key = Credentials.of("AKIDTEST", "secret-value");
    try (SwitchboardClient c =
        SwitchboardClient.builder().baseUri(base).credentials(key).region("eu-west-1").build()) {
      assertThrows(SwitchboardException.class, () -> c.queue("q x"));
    }
    String auth = header("Authorization");
    assertTrue(auth.startsWith("AWS4-HMAC-SHA256 Credential=AKIDTEST/"), auth);
    assertTrue(auth.contains("/eu-west-1/sqs/aws4_request"), auth);
    assertTrue(auth.contains("SignedHeaders=host;x-amz-date, "), auth);
    assertFalse(auth.contains("secret-value"));
    assertEquals(SigV4Signer.host(base), header("Host"));
    assertTrue(header("X-amz-date").matches("\\d{8}T\\d{6}Z"));
  }

  /**
   * The body's hash is signed (it ends the canonical request) but not sent: the server hashes the
   * body it receives, and the header was 90 bytes every signed request carried and the server
   * parsed for nothing (docs/benchmarks.md, "Cost of authentication").
   */
  @Test
  void sigv4_sendsNoContentHashHeader() {
    try (SwitchboardClient c =
        SwitchboardClient.builder()
            .baseUri(base)
            .credentials(Credentials.of("AKIDTEST", "secret-value"))
            .build()) {
      assertThrows(SwitchboardException.class, () -> c.queue("q x"));
    }
    assertEquals(null, header("X-amz-content-sha256"));
    assertFalse(header("Authorization").contains("x-amz-content-sha256"));
  }

  @Test
  void basic_sendsIdAndSecret() {
    try (SwitchboardClient c =
        SwitchboardClient.builder()
            .baseUri(base)
            .credentials(Credentials.of("AKIDTEST", "s3cret"))
            .authScheme(AuthScheme.BASIC)
            .build()) {
      assertThrows(SwitchboardException.class, () -> c.queue("q"));
    }
    assertEquals("Basic QUtJRFRFU1Q6czNjcmV0", header("Authorization"));
  }

  @Test
  void noCredentials_noAuthorization() {
    try (SwitchboardClient c = SwitchboardClient.create(base)) {
      assertThrows(SwitchboardException.class, () -> c.queue("q"));
    }
    assertEquals(null, header("Authorization"));
  }

  @Test
  void hostHeader_defaultPortsLeftOut() {
    assertEquals("example.com", SigV4Signer.host(URI.create("https://example.com:443/x")));
    assertEquals("example.com", SigV4Signer.host(URI.create("http://example.com:80/x")));
    assertEquals("example.com:8443", SigV4Signer.host(URI.create("https://example.com:8443/x")));
    assertEquals("[::1]:8080", SigV4Signer.host(URI.create("http://[::1]:8080/x")));
  }
}
