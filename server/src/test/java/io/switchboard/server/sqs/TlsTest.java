package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.amazonaws.ClientConfiguration;
import com.amazonaws.auth.AWSStaticCredentialsProvider;
import com.amazonaws.auth.BasicAWSCredentials;
import com.amazonaws.client.builder.AwsClientBuilder.EndpointConfiguration;
import com.amazonaws.services.sqs.AmazonSQS;
import com.amazonaws.services.sqs.AmazonSQSClientBuilder;
import io.switchboard.server.EngineFactory;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.config.StartupException;
import io.switchboard.time.ManualClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.apache.http.conn.ssl.DefaultHostnameVerifier;
import org.apache.http.conn.ssl.SSLConnectionSocketFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * HTTPS from PEM files ({@code tls-cert}, {@code tls-key}), mutual TLS ({@code tls-client-ca}) and
 * the reload of changed files, with stock AWS SDK v2 and v1 clients and curl trusting a test CA
 * made here (docs/security.md#tls).
 */
class TlsTest {

  private static TestPki.Issued serverCa;
  private static TestPki.Issued serverCert;
  private static TestPki.Issued clientCa;
  private static TestPki.Issued client;

  @TempDir Path dir;
  private final ManualClock clock = ManualClock.create();
  private SwitchboardServer server;

  @BeforeAll
  static void pki() {
    serverCa = TestPki.ca("Test Server CA");
    serverCert = TestPki.server(serverCa, "server-1");
    clientCa = TestPki.ca("Test Client CA");
    client = TestPki.client(clientCa, "CN=agent-7,O=Example");
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop();
    }
  }

  private Path certFile() {
    return dir.resolve("server.pem");
  }

  private Path keyFile() {
    return dir.resolve("server-key.pem");
  }

  /** A server with TLS from the files written for {@code cert}, and mutual TLS when asked. */
  private SwitchboardServer start(boolean mutual) {
    TestPki.write(certFile(), TestPki.pem(serverCert.cert(), serverCa.cert()));
    TestPki.write(keyFile(), TestPki.pkcs8(serverCert.key()));
    ServerConfig config =
        ServerConfig.forTests()
            .with(Settings.TLS_CERT, certFile())
            .with(Settings.TLS_KEY, keyFile());
    if (mutual) {
      config =
          config.with(
              Settings.TLS_CLIENT_CA,
              TestPki.write(dir.resolve("client-ca.pem"), TestPki.pem(clientCa.cert())));
    }
    server = SwitchboardServer.start(config, EngineFactory.inMemory(), clock);
    return server;
  }

  private SqsClient v2(TestPki.Issued clientCert) {
    Apache5HttpClient.Builder http =
        Apache5HttpClient.builder()
            .tlsTrustManagersProvider(
                () -> TestPki.trustManagers(serverCa.cert()).getTrustManagers());
    if (clientCert != null) {
      http.tlsKeyManagersProvider(() -> TestPki.keyManagers(clientCert).getKeyManagers());
    }
    return SqsClient.builder()
        .endpointOverride(server.uri())
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("fake", "fake")))
        .httpClientBuilder(http)
        .overrideConfiguration(b -> b.apiCallTimeout(Duration.ofSeconds(30)))
        .build();
  }

  private AmazonSQS v1(TestPki.Issued clientCert) {
    ClientConfiguration config =
        new ClientConfiguration().withSocketTimeout(30_000).withMaxErrorRetry(0);
    config
        .getApacheHttpClientConfig()
        .setSslSocketFactory(
            new SSLConnectionSocketFactory(
                TestPki.context(clientCert, serverCa.cert()), new DefaultHostnameVerifier()));
    return AmazonSQSClientBuilder.standard()
        .withEndpointConfiguration(new EndpointConfiguration(server.uri().toString(), "us-east-1"))
        .withCredentials(new AWSStaticCredentialsProvider(new BasicAWSCredentials("fake", "fake")))
        .withClientConfiguration(config)
        .build();
  }

  private static void roundTripV2(SqsClient sqs, String name) {
    String url = sqs.createQueue(b -> b.queueName(name)).queueUrl();
    assertTrue(url.startsWith("https://127.0.0.1:"), url);
    sqs.sendMessage(b -> b.queueUrl(url).messageBody("over tls"));
    List<Message> got = sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(0)).messages();
    assertEquals(1, got.size());
    assertEquals("over tls", got.get(0).body());
  }

  private static void roundTripV1(AmazonSQS sqs, String name) {
    String url = sqs.createQueue(name).getQueueUrl();
    assertTrue(url.startsWith("https://127.0.0.1:"), url);
    // SDK v1 posts to the queue URL, so the URL the server named must be reachable over TLS
    sqs.sendMessage(url, "over tls v1");
    var got = sqs.receiveMessage(url).getMessages();
    assertEquals(1, got.size());
    assertEquals("over tls v1", got.get(0).getBody());
  }

  // ---- HTTPS

  @Test
  void sdkV2_overHttps_trustingTheTestCa() {
    start(false);
    assertEquals("https", server.uri().getScheme());
    try (SqsClient sqs = v2(null)) {
      roundTripV2(sqs, "tls-v2");
    }
  }

  @Test
  void sdkV1_overHttps_trustingTheTestCa() {
    start(false);
    AmazonSQS sqs = v1(null);
    try {
      roundTripV1(sqs, "tls-v1");
    } finally {
      sqs.shutdown();
    }
  }

  @Test
  void plainHttpClient_getsNoAnswerFromTheTlsPort() {
    start(false);
    try (SqsClient plain =
        SqsClients.v2(java.net.URI.create("http://127.0.0.1:" + server.port()), "fake", "fake")) {
      assertThrows(SdkClientException.class, plain::listQueues);
    }
  }

  @Test
  void curl_overHttps() throws Exception {
    assumeTrue(curlPresent(), "curl is not installed");
    start(false);
    Path ca = TestPki.write(dir.resolve("ca.pem"), TestPki.pem(serverCa.cert()));
    Curl ok = curl("--cacert", ca.toString(), server.uri() + "/health");
    assertEquals(0, ok.exit(), ok.output());
    assertTrue(ok.output().contains("\"status\":\"ready\""), ok.output());
    Curl untrusted = curl(server.uri() + "/health");
    assertNotEquals(0, untrusted.exit(), untrusted.output());
  }

  // ---- mutual TLS

  @Test
  void mutualTls_sdkV2WithAClientCertificate_works_withoutOne_failsTheHandshake() {
    start(true);
    try (SqsClient with = v2(client)) {
      roundTripV2(with, "mtls-v2");
    }
    try (SqsClient without = v2(null)) {
      assertThrows(SdkClientException.class, without::listQueues);
    }
  }

  @Test
  void mutualTls_aCertificateOfAnotherCa_isRefused() {
    start(true);
    TestPki.Issued stranger = TestPki.client(TestPki.ca("Other CA"), "CN=stranger");
    try (SqsClient sqs = v2(stranger)) {
      assertThrows(SdkClientException.class, sqs::listQueues);
    }
  }

  @Test
  void mutualTls_sdkV1WithAClientCertificate_works_withoutOne_fails() {
    start(true);
    AmazonSQS with = v1(client);
    AmazonSQS without = v1(null);
    try {
      roundTripV1(with, "mtls-v1");
      assertThrows(com.amazonaws.SdkClientException.class, without::listQueues);
    } finally {
      with.shutdown();
      without.shutdown();
    }
  }

  @Test
  void mutualTls_curlWithAClientCertificate_works_withoutOne_fails() throws Exception {
    assumeTrue(curlPresent(), "curl is not installed");
    start(true);
    Path ca = TestPki.write(dir.resolve("ca.pem"), TestPki.pem(serverCa.cert()));
    Path cert = TestPki.write(dir.resolve("client.pem"), TestPki.pem(client.cert()));
    Path key = TestPki.write(dir.resolve("client-key.pem"), TestPki.pkcs8(client.key()));
    Curl ok =
        curl(
            "--cacert",
            ca.toString(),
            "--cert",
            cert.toString(),
            "--key",
            key.toString(),
            server.uri() + "/health");
    assertEquals(0, ok.exit(), ok.output());
    assertTrue(ok.output().contains("ready"), ok.output());
    Curl refused = curl("--cacert", ca.toString(), server.uri() + "/health");
    assertNotEquals(0, refused.exit(), refused.output());
  }

  // ---- reload

  @Test
  void changedFiles_areServedToNewConnections_afterTheNextCheck() throws IOException {
    start(false);
    assertEquals("CN=server-1", peer().getSubjectX500Principal().getName());

    TestPki.Issued next = TestPki.server(serverCa, "server-2");
    // half-way through a rotation: the new certificate, the old key; the old pair stays
    TestPki.write(certFile(), TestPki.pem(next.cert(), serverCa.cert()));
    touch(certFile(), 1);
    clock.advance(Duration.ofSeconds(10));
    assertEquals("CN=server-1", peer().getSubjectX500Principal().getName());

    // the key arrives (as PKCS#1, as older tools write it): the next check loads the pair
    TestPki.write(keyFile(), TestPki.pkcs1(next.key()));
    touch(keyFile(), 2);
    clock.advance(Duration.ofSeconds(10));
    assertEquals("CN=server-2", peer().getSubjectX500Principal().getName());

    // a damaged file is not loaded: the server keeps serving the last good pair
    TestPki.write(certFile(), "not a certificate\n");
    touch(certFile(), 3);
    clock.advance(Duration.ofSeconds(10));
    assertEquals("CN=server-2", peer().getSubjectX500Principal().getName());
  }

  /** Moves a file's modification time on, as a rewrite a little later would. */
  private static void touch(Path file, int minutes) throws IOException {
    Files.setLastModifiedTime(
        file,
        FileTime.fromMillis(
            Files.getLastModifiedTime(file).toMillis() + Duration.ofMinutes(minutes).toMillis()));
  }

  /** The certificate a new connection is served. */
  private X509Certificate peer() throws IOException {
    try (SSLSocket s =
        (SSLSocket)
            TestPki.context(null, serverCa.cert())
                .getSocketFactory()
                .createSocket("127.0.0.1", server.port())) {
      s.setSoTimeout(30_000);
      s.startHandshake();
      return (X509Certificate) s.getSession().getPeerCertificates()[0];
    }
  }

  // ---- configuration errors

  @Test
  void certWithoutKey_refusesToStart() {
    TestPki.write(certFile(), TestPki.pem(serverCert.cert()));
    ServerConfig config = ServerConfig.forTests().with(Settings.TLS_CERT, certFile());
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> SwitchboardServer.start(config, EngineFactory.inMemory(), clock).stop());
    assertTrue(e.getMessage().contains("tls-cert and tls-key go together"), e.getMessage());
  }

  @Test
  void clientCaWithoutCert_refusesToStart() {
    ServerConfig config =
        ServerConfig.forTests().with(Settings.TLS_CLIENT_CA, dir.resolve("ca.pem"));
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> SwitchboardServer.start(config, EngineFactory.inMemory(), clock).stop());
    assertTrue(e.getMessage().contains("tls-client-ca needs tls-cert and tls-key"), e.getMessage());
  }

  @Test
  void notPem_refusesToStart_namingTheFile() {
    TestPki.write(certFile(), "hello\n");
    TestPki.write(keyFile(), TestPki.pkcs8(serverCert.key()));
    ServerConfig config =
        ServerConfig.forTests()
            .with(Settings.TLS_CERT, certFile())
            .with(Settings.TLS_KEY, keyFile());
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> SwitchboardServer.start(config, EngineFactory.inMemory(), clock).stop());
    assertTrue(e.getMessage().contains("tls-cert " + certFile()), e.getMessage());
    assertTrue(e.getMessage().contains("not a PEM file"), e.getMessage());
  }

  @Test
  void keyOfAnotherCertificate_refusesToStart() {
    TestPki.write(certFile(), TestPki.pem(serverCert.cert()));
    TestPki.write(keyFile(), TestPki.pkcs8(client.key()));
    ServerConfig config =
        ServerConfig.forTests()
            .with(Settings.TLS_CERT, certFile())
            .with(Settings.TLS_KEY, keyFile());
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> SwitchboardServer.start(config, EngineFactory.inMemory(), clock).stop());
    assertTrue(e.getMessage().contains("is not the key of the first certificate"), e.getMessage());
  }

  @Test
  void missingFile_refusesToStart_namingIt() {
    ServerConfig config =
        ServerConfig.forTests()
            .with(Settings.TLS_CERT, dir.resolve("absent.pem"))
            .with(Settings.TLS_KEY, keyFile());
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> SwitchboardServer.start(config, EngineFactory.inMemory(), clock).stop());
    assertTrue(e.getMessage().contains("absent.pem"), e.getMessage());
  }

  // ---- curl

  private record Curl(int exit, String output) {}

  private static boolean curlPresent() {
    try {
      Process p = new ProcessBuilder("curl", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static Curl curl(String... args) throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>(List.of("curl", "-sS", "--max-time", "30"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "curl did not finish");
    return new Curl(p.exitValue(), output);
  }
}
