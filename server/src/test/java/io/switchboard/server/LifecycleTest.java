package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.QueueEngine;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.StartupException;
import io.switchboard.testing.Await;
import io.switchboard.testing.FreePorts;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start (ready only once the engine is open), graceful stop, and modes that cannot run yet. */
class LifecycleTest {

  @Test
  void health_isUnavailableUntilTheEngineIsOpen() throws Exception {
    int port = FreePorts.free();
    CountDownLatch recovered = new CountDownLatch(1);
    EngineFactory slow =
        config -> {
          try {
            recovered.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return QueueEngine.inMemory();
        };
    CompletableFuture<SwitchboardServer> starting =
        CompletableFuture.supplyAsync(
            () -> SwitchboardServer.start(ServerConfig.forTests().withPort(port), slow));
    try (Http http = new Http(URI.create("http://127.0.0.1:" + port))) {
      Http.Answer health = awaitListening(http);
      assertEquals(503, health.status(), health.toString());
      assertEquals("starting", health.json().get("status").asText());
      Http.Answer api = http.get("/v1/queues");
      assertEquals(503, api.status());
      assertEquals("UNAVAILABLE", api.code());
      recovered.countDown();
      try (SwitchboardServer server = starting.get(30, TimeUnit.SECONDS)) {
        assertTrue(server.ready());
        assertEquals(200, http.get("/health").status());
      }
    }
  }

  /**
   * A start that fails once the server listens (here: its engine cannot open) closes everything it
   * had opened, in reverse: no thread of it is left running. The read-timeout sweeper was: the
   * failed start's teardown list, one of three hand-written lists, forgot it, while stop and halt
   * closed it; now all three unwind one stack (OpenResources).
   */
  @Test
  void aFailedStart_leavesNoThreadBehind() {
    // a server started and stopped first, so that what a JVM starts once (and keeps) is there
    SwitchboardServer.start(ServerConfig.forTests()).stop();
    Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
    EngineFactory broken =
        config -> {
          throw new StartupException("the store cannot be opened (as the test asks)");
        };
    assertThrows(
        StartupException.class, () -> SwitchboardServer.start(ServerConfig.forTests(), broken));
    Await.until(
        () -> startedSince(before).isEmpty(),
        "the failed start's threads to end: " + startedSince(before));
  }

  /**
   * The threads alive now that were not in {@code before}, by name; but Helidon's idle-connection
   * timer, a daemon every WebServer makes and none stops (a stopped server leaves it too), which
   * ends when the WebServer is collected.
   */
  private static List<String> startedSince(Set<Thread> before) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && !before.contains(t))
        .filter(t -> !t.getName().equals("helidon-idle-connection-timer"))
        .map(Thread::getName)
        .sorted()
        .toList();
  }

  private static Http.Answer awaitListening(Http http) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        return http.get("/health");
      } catch (RuntimeException notYet) {
        if (System.nanoTime() > deadline) {
          throw notYet;
        }
        Thread.onSpinWait();
      }
    }
  }

  @Test
  void stop_answersBlockedLongPolls_thenRefusesConnections() throws Exception {
    SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests());
    try (Http http = new Http(server.uri())) {
      http.post("/v1/queues", "{\"name\":\"q\"}");
      CompletableFuture<Http.Answer> poll =
          CompletableFuture.supplyAsync(
              () -> http.post("/v1/queues/q/receive", "{\"waitTimeSeconds\":20}"));
      while (http.get("/v1/queues/q/stats").json().get("waitingReceivers").asInt() < 1) {
        Thread.onSpinWait();
      }
      long start = System.nanoTime();
      server.stop();
      Http.Answer answered = poll.get(10, TimeUnit.SECONDS);
      assertEquals(200, answered.status(), answered.toString());
      assertEquals(0, answered.json().get("messages").size());
      assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) < 10);
      assertThrows(RuntimeException.class, () -> http.get("/health"));
    }
  }

  @Test
  void durableMode_keepsQueuesAndMessagesAcrossARestart(@TempDir Path dir) throws Exception {
    Map<String, String> flags =
        Map.of("port", "0", "data-dir", dir.toString(), "durability", "sync");
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.resolve(flags, Map.of()));
        Http http = new Http(server.uri())) {
      assertEquals(201, http.post("/v1/queues", "{\"name\":\"kept\"}").status());
      assertEquals(201, http.post("/v1/queues/kept/messages", "{\"body\":\"survives\"}").status());
    }
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.resolve(flags, Map.of()));
        Http http = new Http(server.uri())) {
      Http.Answer got = http.post("/v1/queues/kept/receive", "{\"maxMessages\":1}");
      assertEquals(200, got.status(), got.toString());
      assertEquals("survives", got.json().get("messages").get(0).get("body").asText());
    }
  }

  @Test
  void durableMode_dataDirectoryInUse_isRefusedWithAClearMessage(@TempDir Path dir) {
    Map<String, String> flags = Map.of("port", "0", "data-dir", dir.toString());
    try (SwitchboardServer first = SwitchboardServer.start(ServerConfig.resolve(flags, Map.of()))) {
      StartupException e =
          assertThrows(
              StartupException.class,
              () -> SwitchboardServer.start(ServerConfig.resolve(flags, Map.of())));
      assertTrue(e.getMessage().contains("in use by another Switchboard process"), e.getMessage());
    }
  }

  @Test
  void portInUse_isAStartupError() throws IOException {
    try (ServerSocket taken = new ServerSocket(0)) {
      ServerConfig config = ServerConfig.forTests().withPort(taken.getLocalPort());
      StartupException e =
          assertThrows(StartupException.class, () -> SwitchboardServer.start(config).stop());
      assertTrue(e.getMessage().contains("cannot listen"), e.getMessage());
    }
  }
}
