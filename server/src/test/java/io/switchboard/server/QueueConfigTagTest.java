package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.client.SwitchboardClient;
import io.switchboard.queue.QueueConfig;
import io.switchboard.server.config.ServerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A queue's configuration carries a tag ({@code ETag}); a PATCH with {@code If-Match} applies only
 * to the configuration that was read, so a read-modify-write over HTTP (the Java client's {@code
 * updateQueue(name, change)}) loses no concurrent change.
 */
class QueueConfigTagTest {

  private static final Map<String, String> JSON = Map.of("Content-Type", "application/json");

  @Test
  void patchWithAStaleIfMatch_isRefused412_andChangesNothing() {
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        Http http = new Http(server.uri())) {
      Http.Answer created = http.post("/v1/queues", "{\"name\":\"q\"}");
      String tag = created.raw().headers().firstValue("ETag").orElseThrow();
      assertEquals(tag, http.get("/v1/queues/q").raw().headers().firstValue("ETag").orElseThrow());

      Http.Answer first =
          http.send(
              "PATCH",
              "/v1/queues/q",
              "{\"visibilityTimeoutSeconds\":40}",
              with(JSON, "If-Match", tag));
      assertEquals(200, first.status(), first.toString());
      String newTag = first.raw().headers().firstValue("ETag").orElseThrow();
      assertNotEquals(tag, newTag, "a changed configuration has a new tag");

      Http.Answer stale =
          http.send(
              "PATCH",
              "/v1/queues/q",
              "{\"visibilityTimeoutSeconds\":50}",
              with(JSON, "If-Match", tag));
      assertEquals(412, stale.status(), stale.toString());
      assertEquals("PRECONDITION_FAILED", stale.code());
      String message = stale.json().path("message").asText();
      assertTrue(message.contains(tag) && message.contains(newTag), message);
      assertEquals(
          40,
          http.get("/v1/queues/q").json().path("config").path("visibilityTimeoutSeconds").asInt(),
          "the refused PATCH changed nothing");

      Http.Answer any =
          http.send(
              "PATCH",
              "/v1/queues/q",
              "{\"visibilityTimeoutSeconds\":60}",
              with(JSON, "If-Match", "*"));
      assertEquals(200, any.status(), any.toString());
    }
  }

  @Test
  void clientsIncrementingOneFieldConcurrently_loseNoIncrement() throws Exception {
    int clients = 4;
    int rounds = 25;
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        ExecutorService threads = Executors.newFixedThreadPool(clients)) {
      List<SwitchboardClient> all = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        all.add(SwitchboardClient.create(server.uri()));
      }
      all.get(0).createQueue("counted", QueueConfig.defaults());
      List<Future<?>> done = new ArrayList<>();
      for (SwitchboardClient client : all) {
        done.add(
            threads.submit(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    client.updateQueue(
                        "counted",
                        c -> {
                          Map<String, String> m = new HashMap<>(c.metadata());
                          int n = Integer.parseInt(m.getOrDefault("n", "0"));
                          m.put("n", Integer.toString(n + 1));
                          return c.toBuilder()
                              .metadata(m)
                              .visibilityTimeout(c.visibilityTimeout().plusSeconds(1))
                              .build();
                        });
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      QueueConfig end = all.get(0).queue("counted").config();
      assertEquals(Integer.toString(clients * rounds), end.metadata().get("n"));
      assertEquals(
          QueueConfig.defaults().visibilityTimeout().plus(Duration.ofSeconds(clients * rounds)),
          end.visibilityTimeout());
      all.forEach(SwitchboardClient::close);
    }
  }

  private static Map<String, String> with(Map<String, String> m, String k, String v) {
    Map<String, String> out = new HashMap<>(m);
    out.put(k, v);
    return out;
  }
}
