package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.helidon.webserver.WebServer;
import io.switchboard.server.sqs.TestPki;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code tls-client-ca}, the subject of the client certificate the handshake verified is on
 * the request ({@link Call#clientCertificateSubject}), where authentication maps it to a principal;
 * over TLS without client certificates there is none.
 */
class ClientCertificateSubjectTest {

  @TempDir Path dir;

  @Test
  void verifiedClientCertificate_subjectIsOnTheCall() throws Exception {
    TestPki.Issued ca = TestPki.ca("Server CA");
    TestPki.Issued serverCert = TestPki.server(ca, "server");
    TestPki.Issued clientCa = TestPki.ca("Client CA");
    TestPki.Issued client = TestPki.client(clientCa, "CN=agent-7,O=Example");
    ServerConfig config =
        ServerConfig.forTests()
            .with(
                Settings.TLS_CERT,
                TestPki.write(dir.resolve("cert.pem"), TestPki.pem(serverCert.cert())))
            .with(
                Settings.TLS_KEY,
                TestPki.write(dir.resolve("key.pem"), TestPki.pkcs8(serverCert.key())));
    Path clientCaFile = TestPki.write(dir.resolve("client-ca.pem"), TestPki.pem(clientCa.cert()));

    assertEquals(
        "CN=agent-7,O=Example",
        subjectSeen(config.with(Settings.TLS_CLIENT_CA, clientCaFile), client, ca));
    assertEquals("none", subjectSeen(config, null, ca));
  }

  /** What a handler reads from {@link Call#clientCertificateSubject} for one request. */
  private static String subjectSeen(ServerConfig config, TestPki.Issued client, TestPki.Issued ca)
      throws Exception {
    WebServer web =
        WebServer.builder()
            .host("127.0.0.1")
            .port(0)
            .shutdownHook(false)
            .tls(TlsFiles.of(config).orElseThrow().load())
            .routing(
                r ->
                    r.get(
                        "/subject",
                        (req, res) ->
                            res.send(
                                new Call(req, res, config, null, "id", null)
                                    .clientCertificateSubject()
                                    .orElse("none"))))
            .build()
            .start();
    try (HttpClient http =
        HttpClient.newBuilder()
            .sslContext(TestPki.context(client, ca.cert()))
            .connectTimeout(Duration.ofSeconds(10))
            .build()) {
      return http.send(
              HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + web.port() + "/subject"))
                  .timeout(Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } finally {
      web.stop();
    }
  }
}
