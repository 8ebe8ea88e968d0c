package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.switchboard.client.PushWire;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.testing.Await;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Push subscriptions over the native API on the durable (RocksDB) server: created with their secret
 * shown once, refused with a clear error when a setting is wrong, kept across a restart, and
 * delivering signed requests (with their own headers) after it; rotate and delete.
 */
class PushSubscriptionsTest {

  @TempDir Path dir;

  private HttpServer receiver;
  private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();

  private record Received(byte[] body, String signature, String authorization) {}

  @BeforeEach
  void start() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext(
        "/hook",
        x -> {
          received.add(
              new Received(
                  x.getRequestBody().readAllBytes(),
                  x.getRequestHeaders().getFirst("X-Switchboard-Signature"),
                  x.getRequestHeaders().getFirst("Authorization")));
          x.sendResponseHeaders(204, -1);
          x.close();
        });
    receiver.setExecutor(Executors.newCachedThreadPool());
    receiver.start();
  }

  @AfterEach
  void stop() {
    receiver.stop(0);
  }

  private SwitchboardServer server() {
    return SwitchboardServer.start(
        ServerConfig.resolve(Map.of("port", "0", "data-dir", dir.toString()), Map.of()));
  }

  private String url() {
    return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
  }

  private static JsonNode ok(int status, Http.Answer a) {
    assertEquals(status, a.status(), a.toString());
    return a.json();
  }

  @Test
  void aBadKeyLimit_isRefusedWith400_itsStableCodeAndWhatWasWrong_andNothingIsMade()
      throws Exception {
    String path = "/v1/queues/tasks/subscriptions";
    try (SwitchboardServer server = server();
        Http http = new Http(server.uri())) {
      ok(201, http.post("/v1/queues", "{\"name\":\"tasks\"}"));
      Map<String, String> bad =
          Map.of(
              "{\"attribute\":\"tenant\"}",
              "keyLimit must give maxConcurrent, maxPerSecond or both",
              "{\"attribute\":\"a b\",\"maxConcurrent\":1}",
              "keyLimit.attribute must name a message attribute, [A-Za-z0-9_.-]{1,256}, got 'a b'",
              "{\"attribute\":\"tenant\",\"maxConcurrent\":0}",
              "keyLimit.maxConcurrent must be 1..1000, got 0",
              "{\"attribute\":\"tenant\",\"maxConcurrent\":1001}",
              "keyLimit.maxConcurrent must be 1..1000, got 1001",
              "{\"attribute\":\"tenant\",\"maxPerSecond\":0}",
              "keyLimit.maxPerSecond must be more than 0 and at most 100000, got 0.0",
              "{\"maxConcurrent\":2}",
              "attribute");
      for (Map.Entry<String, String> e : bad.entrySet()) {
        Http.Answer a =
            http.post(
                path,
                "{\"name\":\"hook\",\"url\":\"" + url() + "\",\"keyLimit\":" + e.getKey() + "}");
        assertEquals(400, a.status(), e.getKey() + ": " + a);
        assertEquals("INVALID_ARGUMENT", a.code(), e.getKey() + ": " + a);
        assertTrue(a.text().contains(e.getValue()), e.getKey() + ": " + a.text());
      }
      assertEquals(0, ok(200, http.get(path)).get("subscriptions").size(), "nothing made");
      ok(
          201,
          http.post(
              path,
              "{\"name\":\"hook\",\"url\":\""
                  + url()
                  + "\",\"paused\":true,\"keyLimit\":{\"attribute\":\"tenant\",\"maxConcurrent\":2}}"));
      Http.Answer replaced =
          http.send(
              "PUT",
              path + "/hook",
              "{\"url\":\""
                  + url()
                  + "\",\"keyLimit\":{\"attribute\":\"tenant\",\"maxConcurrent\":0}}");
      assertEquals(400, replaced.status(), replaced.toString());
      assertEquals("INVALID_ARGUMENT", replaced.code());
      assertEquals(
          2, ok(200, http.get(path + "/hook")).at("/keyLimit/maxConcurrent").asInt(), "kept");
    }
  }

  @Test
  void aSubscription_isKeptAcrossARestartOnRocksDb_andItsSecretIsShownOnlyWhenMade()
      throws Exception {
    String path = "/v1/queues/tasks/subscriptions";
    String secret;
    try (SwitchboardServer server = server();
        Http http = new Http(server.uri())) {
      ok(201, http.post("/v1/queues", "{\"name\":\"tasks\",\"order\":\"lifo\"}"));
      JsonNode made =
          ok(
              201,
              http.post(
                  path,
                  "{\"name\":\"hook\",\"url\":\""
                      + url()
                      + "\",\"maxPerSecond\":50,\"maxConcurrent\":1,"
                      + "\"headers\":{\"Authorization\":\"Bearer t0ken\"},\"paused\":true}"));
      secret = made.get("secret").asText();
      assertTrue(secret.length() >= 16, made.toString());
      JsonNode shown = ok(200, http.get(path + "/hook"));
      assertFalse(shown.has("secret"), "the secret is shown once: " + shown);
      assertEquals("(hidden)", shown.at("/headers/Authorization").asText());
      assertFalse(http.get(path).text().contains(secret));
      assertFalse(http.get(path).text().contains("t0ken"));

      assertEquals(409, http.post(path, "{\"name\":\"hook\",\"url\":\"" + url() + "\"}").status());
      assertEquals(
          "SUBSCRIPTION_EXISTS",
          http.post(path, "{\"name\":\"hook\",\"url\":\"" + url() + "\"}").code());
      Http.Answer badUrl = http.post(path, "{\"name\":\"b\",\"url\":\"ftp://example.com/\"}");
      assertEquals(400, badUrl.status(), badUrl.toString());
      assertTrue(badUrl.text().contains("ftp://example.com/"), badUrl.toString());
      Http.Answer metadata =
          http.post(path, "{\"name\":\"b\",\"url\":\"http://169.254.169.254/latest\"}");
      assertEquals(400, metadata.status(), metadata.toString());
      assertTrue(metadata.text().contains("link-local"), metadata.toString());
      Http.Answer rate =
          http.post(path, "{\"name\":\"b\",\"url\":\"" + url() + "\",\"maxPerSecond\":0}");
      assertEquals("INVALID_ARGUMENT", rate.code(), rate.toString());
      assertTrue(rate.text().contains("maxPerSecond"), rate.toString());
      assertEquals(404, http.get(path + "/nope").status());
      assertEquals("SUBSCRIPTION_NOT_FOUND", http.get(path + "/nope").code());
      assertEquals(404, http.get("/v1/queues/none/subscriptions").status());
      assertEquals(1, ok(200, http.get(path)).get("subscriptions").size(), "nothing else made");
    }

    try (SwitchboardServer server = server();
        Http http = new Http(server.uri())) {
      JsonNode listed = ok(200, http.get(path));
      assertEquals(1, listed.get("subscriptions").size(), listed.toString());
      assertEquals(true, listed.at("/subscriptions/0/paused").asBoolean());
      assertEquals(50.0, listed.at("/subscriptions/0/maxPerSecond").asDouble());
      ok(200, http.post(path + "/hook/resume", null));
      ok(201, http.post("/v1/queues/tasks/messages", "{\"body\":\"after the restart\"}"));
      Received r = received.poll(10, TimeUnit.SECONDS);
      assertTrue(r != null, "delivered after the restart");
      assertTrue(new String(r.body(), StandardCharsets.UTF_8).contains("after the restart"));
      assertTrue(signedWith(secret, r), "signed with the secret shown at creation");
      assertEquals("Bearer t0ken", r.authorization(), "its own headers are sent");
      Await.until(
          () ->
              http.get("/v1/queues/tasks/stats").json().get("available").asInt() == 0
                  && http.get("/v1/queues/tasks/stats").json().get("inFlight").asInt() == 0,
          "the delivered message acknowledged");
      JsonNode stats = ok(200, http.get(path + "/hook/stats"));
      assertEquals("running", stats.get("state").asText(), stats.toString());
      assertEquals(1, stats.get("delivered").asLong(), stats.toString());

      String metrics = http.get("/metrics").text();
      assertTrue(
          metrics
              .lines()
              .anyMatch(
                  l ->
                      l.startsWith("switchboard_push_delivered_total{")
                          && l.contains("subscription=\"hook\"")
                          && l.endsWith(" 1.0")),
          "the subscription's series on /metrics");

      try (SwitchboardClient client = SwitchboardClient.create(server.uri())) {
        PushWire.Subscription other =
            client.createSubscription(
                "tasks",
                new PushWire.Subscription(
                    "other", null, url(), null, null, null, null, null, null, 10, null, null, null,
                    null, true, null, null, null));
        assertTrue(other.secret() != null, "the client gets the secret at creation");
        assertEquals(10, other.batchSize());
        assertEquals(2, client.listSubscriptions("tasks").size());
        assertEquals(null, client.subscription("tasks", "other").secret());
        assertEquals("paused", client.subscriptionStats("tasks", "other").state());
        client.deleteSubscription("tasks", "other");
        assertEquals(1, client.listSubscriptions("tasks").size());
      }

      String rotated =
          ok(200, http.post(path + "/hook/rotate-secret", null)).get("secret").asText();
      assertNotEquals(secret, rotated);
      ok(201, http.post("/v1/queues/tasks/messages", "{\"body\":\"rotated\"}"));
      Received second = received.poll(10, TimeUnit.SECONDS);
      assertTrue(second != null && signedWith(rotated, second), "signed with the new secret");

      assertEquals(204, http.send("DELETE", path + "/hook", null).status());
      assertEquals(0, ok(200, http.get(path)).get("subscriptions").size());
    }
  }

  private static boolean signedWith(String secret, Received r) throws Exception {
    String[] parts = r.signature().split(",");
    String t = parts[0].substring(2);
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    mac.update((t + ".").getBytes(StandardCharsets.US_ASCII));
    return parts[1].equals("v1=" + HexFormat.of().formatHex(mac.doFinal(r.body())));
  }
}
