package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.testing.Await;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * Assignment callbacks on servers sharing PostgreSQL (docs/routing.md, "Assignment callbacks"):
 * only the routing leader sends them, once per offer, signed with the secret the workspace's
 * creation (through the follower) returned; the secret is stored with the workspace, so the server
 * that takes over after the leader's death signs with the same one.
 */
class PostgresCallbacksTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private static final String W = "/v1/workspaces/centre";

  private final BlockingQueue<String[]> received = new LinkedBlockingQueue<>();

  private static JsonNode ok(int status, Http.Answer a) {
    assertEquals(status, a.status(), a.toString());
    return a.json();
  }

  private static String hmac(String secret, String text) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return HexFormat.of().formatHex(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static void verify(String secret, String[] request) throws Exception {
    String[] parts = request[0].split(",");
    String t = parts[0].substring(2);
    assertEquals(hmac(secret, t + "." + request[1]), parts[1].substring(3), request[0]);
  }

  private String[] request() throws InterruptedException {
    String[] r = received.poll(20, TimeUnit.SECONDS);
    assertNotNull(r, "the receiver got no callback");
    return r;
  }

  private static String state(Http h, String contact) {
    Http.Answer a = h.get(W + "/contacts/" + contact);
    return a.status() == 200 ? a.json().path("state").asText() : "";
  }

  @Test
  void onlyTheLeaderCallsBack_withTheStoredSecret_alsoAfterTakingOver() throws Exception {
    HttpServer receiver =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext(
        "/offers",
        ex -> {
          received.add(
              new String[] {
                ex.getRequestHeaders().getFirst("X-Switchboard-Signature"),
                new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)
              });
          byte[] answer = "{\"instruction\":\"accept\"}".getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, answer.length);
          ex.getResponseBody().write(answer);
          ex.close();
        });
    receiver.start();
    String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/offers";
    String db = SharedPostgres.database("callbacks");
    ServerConfig config =
        ServerConfig.resolve(
            Map.of(
                "port", "0",
                "routing-lease", "2s",
                "postgres-url", db,
                "postgres-user", "postgres",
                "postgres-password", "postgres"),
            Map.of());
    SwitchboardServer one = SwitchboardServer.start(config);
    SwitchboardServer two = SwitchboardServer.start(config);
    try (Http b = new Http(two.uri())) {
      assertTrue(one.cluster().orElseThrow().leading());
      String secret =
          ok(
                  201,
                  b.post(
                      "/v1/workspaces",
                      "{\"name\":\"centre\",\"activities\":[{\"name\":\"Ready\","
                          + "\"available\":true},{\"name\":\"offline\",\"available\":false}]}"))
              .get("callbackSecret")
              .asText();
      ok(200, b.send("PUT", W + "/task-queues/general", "{}"));
      ok(
          200,
          b.send(
              "PUT",
              W + "/workflows/support",
              "{\"defaultFilter\":{\"targets\":[{\"queue\":\"general\"}]},"
                  + "\"assignmentCallbackUrl\":\""
                  + url
                  + "\"}"));
      for (String agent : new String[] {"ann", "bob"}) {
        ok(
            201,
            b.post(
                W + "/agents",
                "{\"id\":\"" + agent + "\",\"capacity\":{\"voice\":1},\"activity\":\"Ready\"}"));
      }
      ok(
          201,
          b.post(
              W + "/contacts", "{\"id\":\"c1\",\"channel\":\"voice\",\"workflow\":\"support\"}"));
      verify(secret, request());
      Await.until(() -> state(b, "c1").equals("assigned"), "c1 assigned by the callback", WAIT);
      assertTrue(received.isEmpty(), "more than one callback for one offer: " + received);

      one.halt();
      String twoId = two.cluster().orElseThrow().serverId();
      Await.until(
          () ->
              b.get(W)
                  .raw()
                  .headers()
                  .firstValue("X-Switchboard-Routed-By")
                  .orElse("")
                  .equals(twoId),
          "the follower takes over",
          WAIT);
      ok(
          201,
          b.post(
              W + "/contacts", "{\"id\":\"c2\",\"channel\":\"voice\",\"workflow\":\"support\"}"));
      String[] again = request();
      verify(secret, again);
      JsonNode body = WireFormat.parse(again[1].getBytes(StandardCharsets.UTF_8));
      assertEquals("c2", body.at("/contact/id").asText());
      Await.until(
          () -> state(b, "c2").equals("assigned"),
          "c2 assigned by the new leader's callback",
          WAIT);
    } finally {
      two.stop();
      one.stop();
      receiver.stop(0);
    }
  }
}
