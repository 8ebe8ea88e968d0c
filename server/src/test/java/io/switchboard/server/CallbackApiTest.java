package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.testing.Await;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Assignment callbacks over the server's API (docs/routing.md, "Assignment callbacks"): the
 * callback secret shown once at creation and rotation and never after (not in an answer, not in the
 * log), a workflow's {@code assignmentCallbackUrl} checked (400 {@code INVALID_CALLBACK_URL},
 * nothing changed), and an offer of a contact the workflow routes POSTed to a receiver on an
 * ephemeral port, signed with the secret the creation returned, and accepted by its answer.
 */
class CallbackApiTest {

  private static final String W = "/v1/workspaces/centre";

  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  private final Logger ours = (Logger) LoggerFactory.getLogger("io.switchboard");
  private SwitchboardServer server;
  private Http http;
  private HttpServer receiver;
  private final BlockingQueue<String[]> received = new LinkedBlockingQueue<>();

  @BeforeEach
  void start() throws Exception {
    lines.start();
    root.addAppender(lines);
    ours.setLevel(Level.DEBUG);
    receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext(
        "/offers",
        ex -> {
          byte[] body = ex.getRequestBody().readAllBytes();
          received.add(
              new String[] {
                ex.getRequestHeaders().getFirst("X-Switchboard-Signature"),
                new String(body, StandardCharsets.UTF_8)
              });
          byte[] answer = "{\"instruction\":\"accept\"}".getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(200, answer.length);
          ex.getResponseBody().write(answer);
          ex.close();
        });
    receiver.start();
    server = SwitchboardServer.start(ServerConfig.forTests());
    http = new Http(server.uri());
  }

  @AfterEach
  void stop() {
    http.close();
    server.stop();
    receiver.stop(0);
    root.detachAppender(lines);
    ours.setLevel(null);
  }

  private String url() {
    return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/offers";
  }

  private static JsonNode ok(int status, Http.Answer a) {
    assertEquals(status, a.status(), a.toString());
    return a.json();
  }

  private static void error(int status, String code, Http.Answer a) {
    assertEquals(status, a.status(), a.toString());
    assertEquals(code, a.code(), a.toString());
    assertFalse(a.json().path("message").asText().isEmpty(), a.toString());
  }

  /** Creates the centre with a general queue; the secret its creation returned. */
  private String centre() {
    JsonNode created =
        ok(
            201,
            http.post(
                "/v1/workspaces",
                "{\"name\":\"centre\",\"activities\":[{\"name\":\"Ready\",\"available\":true},"
                    + "{\"name\":\"offline\",\"available\":false}]}"));
    String secret = created.path("callbackSecret").asText();
    assertTrue(secret.length() >= 32, created.toString());
    ok(200, http.send("PUT", W + "/task-queues/general", "{}"));
    return secret;
  }

  private String workflow(String url) {
    return "{\"defaultFilter\":{\"targets\":[{\"queue\":\"general\"}]},"
        + "\"assignmentCallbackUrl\":\""
        + url
        + "\"}";
  }

  private static String hmac(String secret, String text) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return HexFormat.of().formatHex(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
  }

  /** Checks {@code t=...,v1=...} over {@code t.body} with {@code secret}. */
  private static boolean verifies(String secret, String[] request) throws Exception {
    String[] parts = request[0].split(",");
    String t = parts[0].substring("t=".length());
    return parts[1].substring("v1=".length()).equals(hmac(secret, t + "." + request[1]));
  }

  private String[] request() throws InterruptedException {
    String[] r = received.poll(10, TimeUnit.SECONDS);
    assertNotNull(r, "the receiver got no callback");
    return r;
  }

  private String logged() {
    return lines.list.stream()
        .map(
            e ->
                e.getFormattedMessage()
                    + " "
                    + (e.getKeyValuePairs() == null
                        ? ""
                        : e.getKeyValuePairs().stream()
                            .map(kv -> kv.key + "=" + kv.value)
                            .collect(Collectors.joining(" "))))
        .collect(Collectors.joining("\n"));
  }

  @Test
  void offerOfAWorkflowsContact_isPostedSigned_andTheAnswerAcceptsIt() throws Exception {
    String secret = centre();
    JsonNode wf = ok(200, http.send("PUT", W + "/workflows/support", workflow(url())));
    assertEquals(url(), wf.get("assignmentCallbackUrl").asText());
    assertEquals(5, wf.get("assignmentCallbackTimeoutSeconds").asInt());
    assertFalse(wf.has("callbackSecret"), "the workspace had a secret: " + wf);
    ok(
        201,
        http.post(
            W + "/agents",
            "{\"id\":\"ana\",\"capacity\":{\"voice\":1}," + "\"activity\":\"Ready\"}"));
    ok(
        201,
        http.post(
            W + "/contacts",
            "{\"id\":\"c1\",\"channel\":\"voice\",\"attributes\":{\"topic\":\"billing\"},"
                + "\"workflow\":\"support\"}"));

    String[] r = request();
    assertTrue(verifies(secret, r), "signature " + r[0] + " over " + r[1]);
    JsonNode body = WireFormat.parse(r[1].getBytes(StandardCharsets.UTF_8));
    assertEquals("c1", body.at("/contact/id").asText());
    assertEquals("ana", body.at("/agent/id").asText());
    Await.until(
        () -> http.get(W + "/contacts/c1").json().path("state").asText().equals("assigned"),
        "c1 assigned by the callback's answer");
    Await.until(
        () ->
            http.get("/metrics")
                .text()
                .contains("switchboard_routing_callbacks_total{outcome=\"accepted\"} 1.0"),
        "the accepted callback counted in /metrics");

    // rotated: shown once, and the next offer is signed with it
    JsonNode rotated = ok(200, http.post(W + "/callback-secret/rotate", null));
    String next = rotated.get("callbackSecret").asText();
    assertNotEquals(secret, next);
    ok(
        201,
        http.post(
            W + "/agents",
            "{\"id\":\"bo\",\"capacity\":{\"voice\":1}," + "\"activity\":\"Ready\"}"));
    ok(
        201,
        http.post(
            W + "/contacts", "{\"id\":\"c2\",\"channel\":\"voice\",\"workflow\":\"support\"}"));
    String[] second = request();
    assertTrue(verifies(next, second), "signed with the rotated secret");
    assertFalse(verifies(secret, second), "still signed with the old secret");

    // never shown again: not in any answer, not in the log
    for (String path :
        new String[] {W, "/v1/workspaces", W + "/workflows", W + "/workflows/support"}) {
      Http.Answer a = http.get(path);
      assertEquals(200, a.status(), a.toString());
      assertFalse(a.text().contains(secret) || a.text().contains(next), path + ": " + a.text());
      assertFalse(a.text().contains("callbackSecret"), path + ": " + a.text());
    }
    String log = logged();
    assertFalse(log.contains(secret) || log.contains(next), "a secret in the log:\n" + log);
  }

  @Test
  void badCallbackUrl_isRefusedWithItsCode_andChangesNothing() {
    centre();
    ok(200, http.send("PUT", W + "/workflows/support", workflow(url())));
    for (String bad :
        new String[] {
          "ftp://example.com/offers",
          "not a url",
          "/relative/offers",
          "http://user:pw@example.com/offers",
          "https://example.com/offers#part",
          "http:///no-host"
        }) {
      Http.Answer a = http.send("PUT", W + "/workflows/support", workflow(bad));
      error(400, "INVALID_CALLBACK_URL", a);
      assertTrue(a.json().path("message").asText().contains("assignmentCallbackUrl"), a.text());
    }
    error(
        400,
        "INVALID_ARGUMENT",
        http.send(
            "PUT",
            W + "/workflows/support",
            "{\"defaultFilter\":{\"targets\":[{\"queue\":\"general\"}]},"
                + "\"assignmentCallbackUrl\":\""
                + url()
                + "\",\"assignmentCallbackTimeoutSeconds\":61}"));
    error(
        400,
        "INVALID_ARGUMENT",
        http.send(
            "PUT",
            W + "/workflows/other",
            "{\"defaultFilter\":{\"targets\":[{\"queue\":\"general\"}]},"
                + "\"assignmentCallbackTimeoutSeconds\":5}"));
    JsonNode kept = ok(200, http.get(W + "/workflows/support"));
    assertEquals(url(), kept.get("assignmentCallbackUrl").asText());
    error(404, "WORKFLOW_NOT_FOUND", http.get(W + "/workflows/other"));
  }

  @Test
  void linkLocalAndMetadataUrls_areRefused_evenOnAKeylessLoopbackServer_andChangeNothing() {
    centre();
    ok(200, http.send("PUT", W + "/workflows/support", workflow(url())));
    for (String bad :
        new String[] {
          "http://169.254.169.254/latest/meta-data/",
          "http://[fe80::1]:8080/offers",
          "http://[::ffff:169.254.169.254]/offers"
        }) {
      Http.Answer a = http.send("PUT", W + "/workflows/support", workflow(bad));
      error(400, "INVALID_CALLBACK_URL", a);
      String message = a.json().path("message").asText();
      assertTrue(
          message.contains("assignmentCallbackUrl") && message.contains("link-local"), a.text());
    }
    error(
        400,
        "INVALID_CALLBACK_URL",
        http.send("PUT", W + "/workflows/other", workflow("http://169.254.169.254/")));
    assertEquals(
        url(), ok(200, http.get(W + "/workflows/support")).get("assignmentCallbackUrl").asText());
    error(404, "WORKFLOW_NOT_FOUND", http.get(W + "/workflows/other"));
  }

  @Test
  void aServerWithKeys_refusesLoopbackCallbackUrls_unlessOutboundPrivateAddressesAllowsThem() {
    String admin =
        "Basic "
            + java.util.Base64.getEncoder()
                .encodeToString("AKADMIN:admin-pw".getBytes(StandardCharsets.UTF_8));
    Map<String, String> json = Map.of("Authorization", admin, "Content-Type", "application/json");
    for (String setting : new String[] {"auto", "allowed"}) {
      SwitchboardServer keyed =
          SwitchboardServer.start(
              ServerConfig.resolve(
                  Map.of(
                      "port", "0",
                      "in-memory", "true",
                      "access-keys", "AKADMIN:admin-pw",
                      "outbound-private-addresses", setting),
                  Map.of()));
      try (Http h = new Http(keyed.uri())) {
        ok(200, h.send("PUT", "/v1/workspaces/default/task-queues/general", "{}", json));
        Http.Answer a =
            h.send("PUT", "/v1/workspaces/default/workflows/support", workflow(url()), json);
        if (setting.equals("auto")) {
          error(400, "INVALID_CALLBACK_URL", a);
          assertTrue(a.text().contains("outbound-private-addresses=allowed"), a.text());
          error(
              404,
              "WORKFLOW_NOT_FOUND",
              h.send("GET", "/v1/workspaces/default/workflows/support", null, json));
        } else {
          ok(200, a);
        }
      } finally {
        keyed.stop();
      }
    }
  }

  @Test
  void defaultWorkspace_getsItsSecretWithItsFirstCallbackWorkflow_once() {
    ok(200, http.send("PUT", "/v1/workspaces/default/task-queues/general", "{}"));
    JsonNode first =
        ok(200, http.send("PUT", "/v1/workspaces/default/workflows/support", workflow(url())));
    String secret = first.path("callbackSecret").asText();
    assertTrue(secret.length() >= 32, first.toString());
    JsonNode again =
        ok(200, http.send("PUT", "/v1/workspaces/default/workflows/support", workflow(url())));
    assertFalse(again.has("callbackSecret"), again.toString());
    assertFalse(http.get("/v1/workspaces/default").text().contains(secret));
    error(
        404,
        "WORKSPACE_NOT_FOUND",
        http.post("/v1/workspaces/nowhere/callback-secret/rotate", null));
  }
}
