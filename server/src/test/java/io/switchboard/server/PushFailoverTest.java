package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.testing.Await;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Push delivery across two servers on one PostgreSQL database (docs/design.md, "Push delivery", "At
 * most one server at a time"): the routing leader delivers; when it dies without a word while
 * deliveries are in flight, the other server takes over once the leadership lease ran out and
 * delivers every message, those whose deliveries were in flight at the failover again once their
 * leases ran out. Nothing acknowledged is lost. Waits are bounded polls of a condition.
 */
class PushFailoverTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private static JsonNode ok(int status, Http.Answer a) {
    assertEquals(status, a.status(), a.toString());
    return a.json();
  }

  private static String send(Http server, int i) {
    return ok(201, server.post("/v1/queues/tasks/messages", "{\"body\":\"t" + i + "\"}"))
        .get("id")
        .asText();
  }

  @Test
  void leaderDiesWithDeliveriesInFlight_otherDeliversEverything_theInFlightOnesAgain()
      throws Exception {
    String db = SharedPostgres.database("push_failover");
    ServerConfig config =
        ServerConfig.resolve(
            Map.of(
                "port", "0",
                "routing-lease", "2s",
                "postgres-url", db,
                "postgres-user", "postgres",
                "postgres-password", "postgres"),
            Map.of());

    // the receiver: counts each message id it is sent; while `hold` is down, it keeps requests
    // waiting (deliveries in flight) until released
    Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    Set<String> held = ConcurrentHashMap.newKeySet();
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger holding = new AtomicInteger(); // 1: hold the requests that arrive
    HttpServer receiver =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext(
        "/push",
        x -> {
          JsonNode body = WireFormat.parse(x.getRequestBody().readAllBytes());
          List<String> ids = new ArrayList<>();
          body.get("messages").forEach(m -> ids.add(m.get("id").asText()));
          ids.forEach(id -> seen.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet());
          if (holding.get() == 1) {
            held.addAll(ids);
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          try {
            x.sendResponseHeaders(204, -1);
          } catch (java.io.IOException gone) {
            // the server that sent it is gone
          }
          x.close();
        });
    receiver.setExecutor(Executors.newCachedThreadPool());
    receiver.start();
    String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/push";

    SwitchboardServer one = SwitchboardServer.start(config);
    SwitchboardServer two = SwitchboardServer.start(config);
    try (Http a = new Http(one.uri());
        Http b = new Http(two.uri())) {
      assertTrue(one.cluster().orElseThrow().leading(), "the first server leads");
      ok(201, a.post("/v1/queues", "{\"name\":\"tasks\"}"));
      ok(
          201,
          a.post(
              "/v1/queues/tasks/subscriptions",
              "{\"name\":\"hook\",\"url\":\""
                  + url
                  + "\",\"maxConcurrent\":4,\"timeoutSeconds\":5,\"minBackoffMillis\":100}"));
      Set<String> sent = ConcurrentHashMap.newKeySet();
      for (int i = 0; i < 50; i++) {
        sent.add(send(b, i));
      }
      Await.until(() -> seen.size() == 50, "the leader delivering", WAIT);
      holding.set(1);
      for (int i = 50; i < 100; i++) {
        sent.add(send(b, i));
      }
      Await.until(() -> held.size() == 4, "four deliveries in flight, held by the receiver", WAIT);
      assertEquals(
          "idle",
          ok(200, b.get("/v1/queues/tasks/subscriptions/hook/stats")).get("state").asText());

      one.halt(); // dies: no lease released, nothing settled, connections dropped
      holding.set(0);
      release.countDown(); // their answers go to a dead server: nothing acknowledges them
      Set<String> heldAtFailover = Set.copyOf(held);
      for (int i = 100; i < 200; i++) {
        sent.add(send(b, i));
      }

      Await.until(() -> two.cluster().orElseThrow().leading(), "the other server leads", WAIT);
      Await.until(
          () -> b.get("/v1/queues/tasks/stats").json().get("depth").asLong() == 0,
          "every message delivered and acknowledged by the new leader",
          WAIT);
      assertEquals(200, sent.size());
      assertTrue(seen.keySet().containsAll(sent), "every message delivered at least once");
      for (String id : heldAtFailover) {
        assertTrue(
            seen.get(id).get() >= 2,
            "in flight at the failover, delivered again after its lease ran out: " + id);
      }
      JsonNode stats = ok(200, b.get("/v1/queues/tasks/subscriptions/hook/stats"));
      assertEquals("running", stats.get("state").asText(), stats.toString());
      assertFalse(seen.size() > 200, "nothing but what was sent");
    } finally {
      two.stop();
      one.stop();
      receiver.stop(0);
    }
  }
}
