package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.config.StartupException;
import io.switchboard.server.security.ExposureGuard;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A server without access keys (the default) cannot be driven by a web page in the user's browser,
 * and does not start exposed on the network by accident (docs/security.md#keyless-mode): each
 * protection is a case here.
 */
class KeylessModeTest {

  private static SwitchboardServer server;
  private static Http http;

  @BeforeAll
  static void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    http = new Http(server.uri());
  }

  @AfterAll
  static void stop() {
    http.close();
    server.stop();
  }

  private static boolean queueExists(String name) {
    return http.get("/v1/queues/" + name).status() == 200;
  }

  // ---- starting exposed

  @Test
  void wildcardBindWithoutKeys_refusesToStart_namingTheWayOut() {
    ServerConfig config = ServerConfig.forTests().with(Settings.BIND, "0.0.0.0");
    StartupException e =
        assertThrows(StartupException.class, () -> SwitchboardServer.start(config).stop());
    assertTrue(e.getMessage().contains("bind 0.0.0.0 is not a loopback address"), e.getMessage());
    assertTrue(e.getMessage().contains("--allow-anonymous"), e.getMessage());
    assertTrue(e.getMessage().contains("--sqs-access-keys"), e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"10.1.2.3", "192.168.0.10", "::", "fd00::5"})
  void lanAddressWithoutKeys_isRefused(String bind) {
    ServerConfig config = ServerConfig.forTests().with(Settings.BIND, bind);
    StartupException e =
        assertThrows(StartupException.class, () -> ExposureGuard.checkStart(config));
    assertTrue(e.getMessage().contains("--allow-anonymous"), e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"127.0.0.1", "127.0.0.2", "::1", "localhost"})
  void loopbackBindWithoutKeys_isAllowed(String bind) {
    ExposureGuard.checkStart(ServerConfig.forTests().with(Settings.BIND, bind));
  }

  @Test
  void wildcardBindWithKeys_isAllowed() {
    ExposureGuard.checkStart(
        ServerConfig.resolve(
            Map.of("port", "0", "in-memory", "true", "bind", "0.0.0.0", "sqs-access-keys", "AK:s"),
            Map.of()));
  }

  @Test
  void wildcardBindWithAllowAnonymous_starts() throws IOException {
    ServerConfig config =
        ServerConfig.forTests().with(Settings.BIND, "0.0.0.0").with(Settings.ALLOW_ANONYMOUS, true);
    try (SwitchboardServer exposed = SwitchboardServer.start(config);
        Http h = new Http(exposed.uri())) {
      assertEquals(200, h.get("/health").status());
      assertEquals(201, h.post("/v1/queues", "{\"name\":\"anon\"}").status());
      // reached by the machine's name, as a peer would; a foreign name is still refused
      String name = java.net.InetAddress.getLocalHost().getHostName();
      String own = raw(exposed, name + ":" + exposed.port(), "GET /health", "", "");
      assertTrue(own.startsWith("HTTP/1.1 200"), own);
      String foreign = raw(exposed, "evil.example", "GET /health", "", "");
      assertTrue(foreign.startsWith("HTTP/1.1 421"), foreign);
    }
  }

  // ---- no state change over GET

  @Test
  void sqsCreateQueueOverGet_isRefusedInTheSqsShape_andCreatesNothing() {
    Http.Answer a = http.get("/?Action=CreateQueue&QueueName=from-a-web-page");
    assertEquals(400, a.status(), a.toString());
    assertTrue(a.text().contains("<Code>InvalidAction</Code>"), a.text());
    assertTrue(
        a.text().contains("The action CreateQueue is not valid for this endpoint over GET"),
        a.text());
    assertTrue(a.text().contains("<RequestId>"), a.text());
    assertTrue(!queueExists("from-a-web-page"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "DeleteQueue",
        "SetQueueAttributes",
        "PurgeQueue",
        "SendMessage",
        "SendMessageBatch",
        "ReceiveMessage",
        "DeleteMessage",
        "DeleteMessageBatch",
        "ChangeMessageVisibility",
        "ChangeMessageVisibilityBatch",
        "StartMessageMoveTask",
        "CancelMessageMoveTask",
        "TagQueue",
        "UntagQueue",
        "AddPermission",
        "RemovePermission"
      })
  void everyMutatingSqsActionOverGet_isRefused(String action) {
    http.post("/v1/queues", "{\"name\":\"get-target\"}");
    http.post("/v1/queues/get-target/messages", "{\"body\":\"kept\"}");
    String url = server.uri() + "/000000000000/get-target";
    Http.Answer a =
        http.get("/?Action=" + action + "&QueueUrl=" + url + "&MessageBody=x&ReceiptHandle=r");
    assertEquals(400, a.status(), a.toString());
    assertTrue(a.text().contains("InvalidAction"), a.text());
    // and posted to the queue URL, as SDK v1 does
    Http.Answer onQueue = http.get("/000000000000/get-target?Action=" + action);
    assertEquals(400, onQueue.status(), onQueue.toString());
    assertTrue(queueExists("get-target"));
  }

  @Test
  void readOnlySqsActionsOverGet_stillWork() {
    http.post("/v1/queues", "{\"name\":\"readable\"}");
    Http.Answer list = http.get("/?Action=ListQueues");
    assertEquals(200, list.status(), list.toString());
    assertTrue(list.text().contains("/000000000000/readable"), list.text());
    Http.Answer url = http.get("/?Action=GetQueueUrl&QueueName=readable");
    assertEquals(200, url.status(), url.toString());
  }

  @Test
  void sqsMutationsOverPost_stillWork() {
    Http.Answer a =
        http.send(
            "POST",
            "/",
            "Action=CreateQueue&QueueName=posted",
            Map.of("Content-Type", "application/x-www-form-urlencoded"));
    assertEquals(200, a.status(), a.toString());
    assertTrue(queueExists("posted"));
  }

  // ---- the native API takes JSON only

  @ParameterizedTest
  @ValueSource(
      strings = {
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonp"
      })
  void nativeBodyOfAnotherType_is415_andCreatesNothing(String type) {
    Http.Answer a =
        http.send("POST", "/v1/queues", "{\"name\":\"typed\"}", Map.of("Content-Type", type));
    assertEquals(415, a.status(), a.toString());
    assertEquals("UNSUPPORTED_MEDIA_TYPE", a.code());
    assertTrue(a.json().path("message").asText().contains("'" + type + "'"), a.text());
    assertTrue(!queueExists("typed"));
  }

  @Test
  void nativeBodyWithoutType_is415() throws IOException {
    String answer = raw("localhost", "POST /v1/queues", "", "{\"name\":\"untyped\"}");
    assertTrue(answer.startsWith("HTTP/1.1 415"), answer);
    assertTrue(answer.contains("UNSUPPORTED_MEDIA_TYPE"), answer);
    assertTrue(!queueExists("untyped"));
  }

  @Test
  void routingBodyOfAnotherType_is415() {
    Http.Answer a =
        http.send(
            "POST",
            "/v1/routing/agents",
            "{\"id\":\"a1\",\"channels\":{\"chat\":1}}",
            Map.of("Content-Type", "text/plain"));
    assertEquals(415, a.status(), a.toString());
    assertEquals("UNSUPPORTED_MEDIA_TYPE", a.code());
  }

  @Test
  void jsonWithCharset_isAccepted() {
    Http.Answer a =
        http.send(
            "POST",
            "/v1/queues",
            "{\"name\":\"charset\"}",
            Map.of("Content-Type", "Application/JSON; charset=utf-8"));
    assertEquals(201, a.status(), a.toString());
  }

  // ---- cross-origin requests

  @ParameterizedTest
  @ValueSource(strings = {"http://evil.example", "null", "http://127.0.0.1:1"})
  void crossOriginRequest_is403_andChangesNothing(String origin) {
    Http.Answer a =
        http.send(
            "POST",
            "/v1/queues",
            "{\"name\":\"cross\"}",
            Map.of("Content-Type", "application/json", "Origin", origin));
    assertEquals(403, a.status(), a.toString());
    assertEquals("CROSS_ORIGIN", a.code());
    assertTrue(!queueExists("cross"));
    Http.Answer read = http.send("GET", "/v1/queues", null, Map.of("Origin", origin));
    assertEquals(403, read.status(), read.toString());
  }

  @Test
  void sameOriginRequest_isServed() {
    Http.Answer a =
        http.send(
            "POST",
            "/v1/queues",
            "{\"name\":\"same\"}",
            Map.of(
                "Content-Type", "application/json", "Origin", "http://127.0.0.1:" + server.port()));
    assertEquals(201, a.status(), a.toString());
  }

  @Test
  void crossOriginPreflight_withoutCorsOrigins_is403() {
    Http.Answer a =
        http.send(
            "OPTIONS",
            "/v1/queues",
            null,
            Map.of("Origin", "http://evil.example", "Access-Control-Request-Method", "POST"));
    assertEquals(403, a.status(), a.toString());
    assertTrue(a.raw().headers().firstValue("Access-Control-Allow-Origin").isEmpty());
  }

  // ---- DNS rebinding

  @ParameterizedTest
  @ValueSource(
      strings = {"evil.example", "evil.example:8080", "localhost.evil.example", "10.9.8.7"})
  void foreignHost_is421_andChangesNothing(String host) throws IOException {
    String answer =
        raw(
            host,
            "POST /v1/queues",
            "Content-Type: application/json\r\n",
            "{\"name\":\"rebound\"}");
    assertTrue(answer.startsWith("HTTP/1.1 421"), answer);
    assertTrue(answer.contains("HOST_NOT_ALLOWED"), answer);
    assertTrue(answer.contains("'" + host + "'"), answer);
    assertTrue(!queueExists("rebound"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"localhost", "LOCALHOST:1234", "127.0.0.1", "[::1]:80", "sqs.eu-west-1.localhost"})
  void loopbackHost_isServed(String host) throws IOException {
    String answer = raw(host, "GET /health", "", "");
    assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
  }

  @Test
  void publicUrlHost_isServed_andNamesQueueUrls() throws IOException {
    ServerConfig config =
        ServerConfig.forTests()
            .with(Settings.PUBLIC_URL, java.net.URI.create("https://sqs.example.com"));
    try (SwitchboardServer s = SwitchboardServer.start(config)) {
      String answer =
          raw(
              s,
              "sqs.example.com",
              "POST /",
              "Content-Type: application/x-www-form-urlencoded\r\n",
              "Action=CreateQueue&QueueName=public");
      assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
      assertTrue(
          answer.contains("<QueueUrl>https://sqs.example.com/000000000000/public</QueueUrl>"),
          answer);
      // a loopback Host is served too, and still names the public URL
      String local =
          raw(
              s,
              "127.0.0.1:" + s.port(),
              "POST /",
              "Content-Type: application/x-www-form-urlencoded\r\n",
              "Action=GetQueueUrl&QueueName=public");
      assertTrue(local.contains("https://sqs.example.com/000000000000/public"), local);
      assertTrue(raw(s, "evil.example", "GET /health", "", "").startsWith("HTTP/1.1 421"));
    }
  }

  // ---- CORS, opted into

  @Test
  void corsOrigins_allowListedOrigins_andAnswerTheirPreflight() {
    ServerConfig config =
        ServerConfig.forTests().with(Settings.CORS_ORIGINS, List.of("http://app.example:3000"));
    try (SwitchboardServer s = SwitchboardServer.start(config);
        Http h = new Http(s.uri())) {
      Http.Answer preflight =
          h.send(
              "OPTIONS",
              "/v1/queues",
              null,
              Map.of(
                  "Origin", "http://app.example:3000",
                  "Access-Control-Request-Method", "POST",
                  "Access-Control-Request-Headers", "content-type"));
      assertEquals(204, preflight.status(), preflight.toString());
      var headers = preflight.raw().headers();
      assertEquals(
          "http://app.example:3000", headers.firstValue("Access-Control-Allow-Origin").get());
      assertTrue(headers.firstValue("Access-Control-Allow-Methods").get().contains("POST"));
      assertEquals("content-type", headers.firstValue("Access-Control-Allow-Headers").get());

      Http.Answer a =
          h.send(
              "POST",
              "/v1/queues",
              "{\"name\":\"cors\"}",
              Map.of("Content-Type", "application/json", "Origin", "http://app.example:3000"));
      assertEquals(201, a.status(), a.toString());
      assertEquals(
          "http://app.example:3000",
          a.raw().headers().firstValue("Access-Control-Allow-Origin").get());

      Http.Answer other =
          h.send(
              "POST",
              "/v1/queues",
              "{\"name\":\"cors2\"}",
              Map.of("Content-Type", "application/json", "Origin", "http://other.example"));
      assertEquals(403, other.status(), other.toString());
      assertEquals("CROSS_ORIGIN", other.code());
    }
  }

  @Test
  void corsOrigins_mustBeOrigins() {
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> ServerConfig.resolve(Map.of("cors-origins", "https://a.example/path"), Map.of()));
    assertTrue(e.getMessage().startsWith("cors-origins must be origins"), e.getMessage());
    assertTrue(e.getMessage().contains("'https://a.example/path'"), e.getMessage());
  }

  // ---- with keys, the Host check is off; Origin is still checked

  @Test
  void withKeys_foreignOriginIsRefused_foreignHostIsServed() throws IOException {
    ServerConfig config =
        ServerConfig.resolve(
            Map.of("port", "0", "in-memory", "true", "sqs-access-keys", "AK:secret"), Map.of());
    try (SwitchboardServer s = SwitchboardServer.start(config)) {
      String answer =
          raw(s, "127.0.0.1:" + s.port(), "GET /health", "Origin: http://evil.example\r\n", "");
      assertTrue(answer.startsWith("HTTP/1.1 403"), answer);
      assertTrue(answer.contains("CROSS_ORIGIN"), answer);
      String health = raw(s, "evil.example", "GET /health", "", "");
      assertTrue(health.startsWith("HTTP/1.1 200"), health);
    }
  }

  // ---- raw requests (Http cannot set Host)

  private static String raw(String host, String requestLine, String headers, String body)
      throws IOException {
    return raw(server, host, requestLine, headers, body);
  }

  /** One request over a plain socket with exactly this Host; the raw answer. */
  static String raw(
      SwitchboardServer target, String host, String requestLine, String headers, String body)
      throws IOException {
    byte[] payload = body.getBytes(StandardCharsets.UTF_8);
    try (Socket socket = new Socket("127.0.0.1", target.port())) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          (requestLine
                  + " HTTP/1.1\r\nHost: "
                  + host
                  + "\r\n"
                  + headers
                  + (payload.length > 0 ? "Content-Length: " + payload.length + "\r\n" : "")
                  + "Connection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(payload);
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("connection closed in the head: " + head);
        }
        head.write(b);
      }
      String text = head.toString(StandardCharsets.US_ASCII);
      int length = 0;
      for (String line : text.split("\r\n")) {
        if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
          length = Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
        }
      }
      return text + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }
  }
}
