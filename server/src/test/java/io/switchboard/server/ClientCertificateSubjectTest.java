package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.helidon.webserver.WebServer;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.http.Call;
import io.switchboard.server.security.Authentication;
import io.switchboard.server.security.TlsFiles;
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

  @Test
  void withAccessKeys_aVerifiedCertificatesCommonName_isTheKeyItActsAs() throws Exception {
    TestPki.Issued ca = TestPki.ca("Server CA");
    TestPki.Issued serverCert = TestPki.server(ca, "server");
    TestPki.Issued clientCa = TestPki.ca("Client CA");
    ServerConfig config =
        ServerConfig.forTests()
            .with(
                Settings.TLS_CERT,
                TestPki.write(dir.resolve("cert.pem"), TestPki.pem(serverCert.cert())))
            .with(
                Settings.TLS_KEY,
                TestPki.write(dir.resolve("key.pem"), TestPki.pkcs8(serverCert.key())))
            .with(
                Settings.TLS_CLIENT_CA,
                TestPki.write(dir.resolve("client-ca.pem"), TestPki.pem(clientCa.cert())))
            .with(
                Settings.ACCESS_KEYS,
                io.switchboard.server.auth.AccessKeys.parse("AKCERT:secret-never-sent"));
    try (SwitchboardServer server = SwitchboardServer.start(config)) {
      assertEquals(
          200, status(server, TestPki.client(clientCa, "CN=AKCERT,O=Example"), ca, "/v1/queues"));
      assertEquals(
          401, status(server, TestPki.client(clientCa, "CN=AKOTHER,O=Example"), ca, "/v1/queues"));
      assertEquals(
          401, status(server, TestPki.client(clientCa, "O=Example,C=DE"), ca, "/v1/queues"));
    }
  }

  @Test
  void commonName_isReadFromAnRfc2253Subject() {
    assertEquals(
        java.util.Optional.of("agent-7"), Authentication.commonName("CN=agent-7,O=Example"));
    assertEquals(java.util.Optional.of("a,b"), Authentication.commonName("O=Example,CN=a\\,b"));
    assertEquals(java.util.Optional.empty(), Authentication.commonName("O=Example"));
    assertEquals(java.util.Optional.empty(), Authentication.commonName("not a name"));
  }

  private static int status(
      SwitchboardServer server, TestPki.Issued client, TestPki.Issued ca, String path)
      throws Exception {
    try (HttpClient http =
        HttpClient.newBuilder()
            .sslContext(TestPki.context(client, ca.cert()))
            .connectTimeout(Duration.ofSeconds(10))
            .build()) {
      return http.send(
              HttpRequest.newBuilder(server.uri().resolve(path))
                  .timeout(Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .statusCode();
    }
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
