package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.switchboard.server.config.ServerConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The heap exhaustion an operator met (docs/operations.md, "Limits"): a durable server with a small
 * heap, flooded by producers with 64 KB messages that nobody consumes. With the default limits it
 * pushes back (503 {@code SERVER_FULL}) before its heap runs out, stays healthy, never throws
 * OutOfMemoryError, and after a kill and a restart on the same data directory every acknowledged
 * send is there.
 *
 * <p>This is the server with its hot window {@code off} (every queued message in the heap, as with
 * the in-memory engine); with the window on, {@link
 * #withTheHotWindow_aFloodPastTheHeapGoesToDisk_andKeepsEveryAck} shows the same flood taken past
 * the heap.
 *
 * <p>The server runs in a child JVM ({@code -Xmx128m -XX:+ExitOnOutOfMemoryError}, as the launcher
 * runs it), so an OutOfMemoryError would end it. The flood ends by counts, not by time: each
 * producer stops after its 25th refusal.
 */
class HeapFloodTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BODY = "x".repeat(64 * 1024);
  private static final int PRODUCERS = 4;
  private static final int REFUSALS_PER_PRODUCER = 25;
  private static final List<String> QUEUES = List.of("flood-a", "flood-b");

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aSmallHeapFloodedWith64KbMessages_pushesBack_staysHealthy_andKeepsEveryAck(@TempDir Path dir)
      throws Exception {
    Path data = dir.resolve("data");
    Set<String> acked = ConcurrentHashMap.newKeySet();
    Map<Integer, AtomicInteger> refusals = new ConcurrentHashMap<>();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    try (Child server = Child.start(data)) {
      for (String q : QUEUES) {
        assertEquals(
            201, post(http, server.uri, "/v1/queues", "{\"name\":\"" + q + "\"}").statusCode());
      }
      ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
      List<Future<?>> done = new ArrayList<>();
      for (int p = 0; p < PRODUCERS; p++) {
        String queue = QUEUES.get(p % QUEUES.size());
        done.add(
            producers.submit(
                () -> {
                  int refused = 0;
                  while (refused < REFUSALS_PER_PRODUCER) {
                    HttpResponse<String> r =
                        post(
                            http,
                            server.uri,
                            "/v1/queues/" + queue + "/messages",
                            "{\"body\":\"" + BODY + "\"}");
                    if (r.statusCode() == 201) {
                      acked.add(queue + " " + JSON.readTree(r.body()).at("/id").asText());
                    } else {
                      assertTrue(
                          r.statusCode() == 503 || r.statusCode() == 429,
                          "a refusal is 429 or 503, got " + r.statusCode() + " " + r.body());
                      assertEquals("1", r.headers().firstValue("Retry-After").orElse(""), r.body());
                      refusals
                          .computeIfAbsent(r.statusCode(), s -> new AtomicInteger())
                          .incrementAndGet();
                      refused++;
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(90, TimeUnit.SECONDS);
      }
      producers.shutdown();

      assertEquals(PRODUCERS * REFUSALS_PER_PRODUCER, refusals.get(503).get(), refusals.toString());
      assertTrue(acked.size() > 100, "the heap's share took " + acked.size() + " messages");
      HttpResponse<String> health = get(http, server.uri, "/health");
      assertEquals(200, health.statusCode(), health.body());
      String metrics = get(http, server.uri, "/metrics").body();
      assertTrue(metrics.contains("switchboard_limit_used{limit=\"max-queued-bytes\"}"), metrics);
      assertTrue(server.alive(), "the server still runs");
      server.kill();
      assertFalse(server.output().contains("OutOfMemoryError"), server.output());
    }

    try (Child restarted = Child.start(data)) {
      Set<String> stored = stored(http, restarted.uri);
      Set<String> missing = new HashSet<>(acked);
      missing.removeAll(stored);
      assertEquals(Set.of(), missing, "every acknowledged send survives the kill");
      assertEquals(acked.size(), stored.size(), "a refused send stored nothing");
      String metrics = get(http, restarted.uri, "/metrics").body();
      String used = "switchboard_limit_used{limit=\"max-queued-bytes\"} ";
      double queued =
          metrics
              .lines()
              .filter(l -> l.startsWith(used))
              .mapToDouble(l -> Double.parseDouble(l.substring(used.length())))
              .findFirst()
              .orElseThrow();
      assertEquals(
          stored.size() * (double) (BODY.length() + 256),
          queued,
          "the recovered messages count toward the limit");
      restarted.kill();
      assertFalse(restarted.output().contains("OutOfMemoryError"), restarted.output());
    }
  }

  /**
   * The same small heap with the default hot window: 150 MB of 64 KB messages (more than the whole
   * 128 MB heap) are taken, the cold ones kept on disk only, the server stays healthy, and after a
   * kill every acknowledged send is back (docs/design.md, "A backlog bigger than memory").
   */
  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void withTheHotWindow_aFloodPastTheHeapGoesToDisk_andKeepsEveryAck(@TempDir Path dir)
      throws Exception {
    Path data = dir.resolve("data");
    int perProducer = 600; // 4 × 600 × 64 KB = 150 MB
    Set<String> acked = ConcurrentHashMap.newKeySet();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    try (Child server = Child.start(data, "10000")) {
      for (String q : QUEUES) {
        assertEquals(
            201, post(http, server.uri, "/v1/queues", "{\"name\":\"" + q + "\"}").statusCode());
      }
      ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
      List<Future<?>> done = new ArrayList<>();
      for (int p = 0; p < PRODUCERS; p++) {
        String queue = QUEUES.get(p % QUEUES.size());
        done.add(
            producers.submit(
                () -> {
                  int sent = 0;
                  while (sent < perProducer) {
                    HttpResponse<String> r =
                        post(
                            http,
                            server.uri,
                            "/v1/queues/" + queue + "/messages",
                            "{\"body\":\"" + BODY + "\"}");
                    if (r.statusCode() == 201) {
                      acked.add(queue + " " + JSON.readTree(r.body()).at("/id").asText());
                      sent++;
                    } else {
                      // a refusal pushes back as any (the hot windows trim between operations)
                      assertTrue(
                          r.statusCode() == 503 || r.statusCode() == 429,
                          "a refusal is 429 or 503, got " + r.statusCode() + " " + r.body());
                      Thread.sleep(50);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(150, TimeUnit.SECONDS);
      }
      producers.shutdown();
      assertEquals(PRODUCERS * perProducer, acked.size());
      assertEquals(200, get(http, server.uri, "/health").statusCode());
      assertTrue(server.alive(), "the server still runs");
      server.kill();
      assertFalse(server.output().contains("OutOfMemoryError"), server.output());
    }
    try (Child restarted = Child.start(data, "10000")) {
      Set<String> stored = stored(http, restarted.uri);
      assertEquals(acked, stored, "every acknowledged send survives the kill");
      restarted.kill();
      assertFalse(restarted.output().contains("OutOfMemoryError"), restarted.output());
    }
  }

  /**
   * Every message id of {@link #QUEUES} on the server at {@code base}, as "queue id", by browse.
   */
  private static Set<String> stored(HttpClient http, URI base)
      throws IOException, InterruptedException {
    Set<String> stored = new HashSet<>();
    for (String q : QUEUES) {
      String cursor = null;
      do {
        String path =
            "/v1/queues/"
                + q
                + "/messages?limit=1000"
                + (cursor == null
                    ? ""
                    : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
        JsonNode page = JSON.readTree(get(http, base, path).body());
        page.at("/messages").forEach(m -> stored.add(q + " " + m.at("/id").asText()));
        cursor = page.hasNonNull("nextCursor") ? page.at("/nextCursor").asText() : null;
      } while (cursor != null);
    }
    return stored;
  }

  private static HttpResponse<String> post(HttpClient http, URI base, String path, String body)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(HttpClient http, URI base, String path)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The server in a child JVM with a small heap and the launcher's OutOfMemoryError flag. */
  private static final class Child implements AutoCloseable {
    final Process process;
    final URI uri;
    private final StringBuilder output = new StringBuilder();
    private final Thread reader;

    private Child(Process process) throws IOException, InterruptedException {
      this.process = process;
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      String port = null;
      for (String line; port == null && (line = in.readLine()) != null; ) {
        append(line);
        if (line.startsWith("PORT ")) {
          port = line.substring(5);
        }
      }
      if (port == null) {
        process.waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError("the server did not start:\n" + output());
      }
      uri = URI.create("http://127.0.0.1:" + port);
      reader =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    try {
                      for (String line; (line = in.readLine()) != null; ) {
                        append(line);
                      }
                    } catch (IOException ignored) {
                      // the child is gone
                    }
                  });
    }

    static Child start(Path data) throws IOException, InterruptedException {
      return start(data, "off");
    }

    /** With the server's {@code hot-window} setting ({@code off}: every message in the heap). */
    static Child start(Path data, String hotWindow) throws IOException, InterruptedException {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-Xmx128m");
      command.add("-XX:+ExitOnOutOfMemoryError");
      command.add("--enable-native-access=ALL-UNNAMED");
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add(Main.class.getName());
      command.add(data.toString());
      command.add(hotWindow);
      Files.createDirectories(data.getParent());
      return new Child(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    private synchronized void append(String line) {
      output.append(line).append('\n');
    }

    synchronized String output() {
      return output.toString();
    }

    boolean alive() {
      return process.isAlive();
    }

    /** Kills the child (SIGKILL: no graceful stop) and waits for its output to end. */
    void kill() throws InterruptedException {
      process.toHandle().destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
      reader.join(10_000);
    }

    @Override
    public void close() throws InterruptedException {
      if (process.isAlive()) {
        kill();
      }
    }
  }

  /** The child: a durable server with the default limits on a free port; prints its port. */
  public static final class Main {
    public static void main(String[] args) throws Exception {
      SwitchboardServer server =
          SwitchboardServer.start(
              ServerConfig.resolve(
                  Map.of(
                      "port",
                      "0",
                      "data-dir",
                      args[0],
                      "durability",
                      "sync",
                      "hot-window",
                      args.length > 1 ? args[1] : "10000"),
                  Map.of()));
      System.out.println("PORT " + server.uri().getPort());
      System.out.flush();
      Thread.currentThread().join(); // until killed
    }
  }
}
