package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.QueueEngine;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.StartupException;
import io.switchboard.server.observability.HealthRegistry;
import io.switchboard.storage.rocksdb.FaultyStores;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /health} tells a store that cannot write and a dead background thread; sends are refused
 * with a retryable error that shows no server path.
 */
class StoreHealthTest {

  @TempDir Path dir;

  private ServerConfig durableConfig() {
    return ServerConfig.resolve(
        Map.of("port", "0", "data-dir", dir.toString(), "durability", "sync"), Map.of());
  }

  /**
   * The operator's report: on a full disk sends got a 503 naming the file, and /health said 200.
   */
  @Test
  void aFullDisk_makesHealthUnhealthy_andSendsRetryableWithoutAPath() {
    AtomicBoolean full = new AtomicBoolean();
    EngineFactory factory =
        new EngineFactory() {
          @Override
          public QueueEngine open(ServerConfig config) {
            throw new AssertionError("the server passes its health registry");
          }

          @Override
          public QueueEngine open(ServerConfig config, HealthRegistry health) {
            return EngineFactory.durable(
                config, health, d -> FaultyStores.diskFullWhen(d, full::get));
          }
        };
    try (SwitchboardServer server = SwitchboardServer.start(durableConfig(), factory);
        Http http = new Http(server.uri())) {
      assertEquals(201, http.post("/v1/queues", "{\"name\":\"orders\"}").status());
      assertEquals(200, http.get("/health").status());

      full.set(true);
      Http.Answer send = http.post("/v1/queues/orders/messages", "{\"body\":\"hello\"}");
      assertEquals(503, send.status(), send.toString());
      assertEquals("UNAVAILABLE", send.code());
      assertTrue(send.raw().headers().firstValue("Retry-After").isPresent(), send.toString());
      assertFalse(send.text().contains(dir.toString()), send.text());
      assertFalse(send.text().contains(".log"), send.text());
      Http.Answer health = http.get("/health");
      assertEquals(503, health.status());
      assertEquals("unhealthy", health.json().path("status").asText());
      assertEquals("store cannot write", health.json().path("reason").asText());
      assertTrue(
          http.get("/metrics").text().contains("switchboard_health_problems 1.0"),
          "an alert watches /health's problems through /metrics");

      full.set(false);
      assertEquals(201, http.post("/v1/queues/orders/messages", "{\"body\":\"x\"}").status());
      assertEquals(200, http.get("/health").status());
      assertTrue(http.get("/metrics").text().contains("switchboard_health_problems 0.0"));
    }
  }

  /** The operator's report: a store with 1,000 zeroed bytes in a table file started "ready". */
  @Test
  void aDamagedStore_refusesTheStart_namingTheFileAndTheSalvageCommand() throws Exception {
    try (SwitchboardServer server = SwitchboardServer.start(durableConfig());
        Http http = new Http(server.uri())) {
      assertEquals(201, http.post("/v1/queues", "{\"name\":\"orders\"}").status());
      for (int i = 0; i < 300; i++) {
        String body = "{\"body\":\"" + i + "x".repeat(300) + "\"}";
        assertEquals(201, http.post("/v1/queues/orders/messages", body).status());
      }
    }
    Path sst;
    try (var files = java.nio.file.Files.list(dir)) {
      sst =
          files
              .filter(p -> p.toString().endsWith(".sst"))
              .max(java.util.Comparator.comparingLong(p -> p.toFile().length()))
              .orElseThrow();
    }
    try (var f = new java.io.RandomAccessFile(sst.toFile(), "rw")) {
      f.seek(f.length() / 3);
      f.write(new byte[1000]);
    }
    StartupException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            StartupException.class, () -> SwitchboardServer.start(durableConfig()).stop());
    assertTrue(e.getMessage().contains(sst.getFileName().toString()), e.getMessage());
    assertTrue(
        e.getMessage().contains("switchboard store salvage --data-dir " + dir), e.getMessage());
  }

  @Test
  void aBackgroundThreadThatDies_makesHealthUnhealthy_andIsLogged() throws Exception {
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
        Http http = new Http(server.uri())) {
      assertEquals(200, http.get("/health").status());
      Thread t =
          Thread.ofPlatform()
              .name("switchboard-test-timer")
              .unstarted(
                  () -> {
                    throw new IllegalStateException("injected");
                  });
      t.start();
      t.join();
      Http.Answer health = http.get("/health");
      assertEquals(503, health.status(), health.toString());
      assertEquals("unhealthy", health.json().path("status").asText());
      assertTrue(
          health.json().path("reason").asText().contains("switchboard-test-timer"),
          health.toString());
    }
  }
}
