package io.switchboard.bench.durable;

import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.bench.sqs.ChildServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A backlog bigger than memory, end to end (docs/design.md, "A backlog bigger than memory"): a
 * server on the embedded store in its own JVM ({@code -Xmx512m} by default) with the hot window on,
 * one queue filled with {@code --messages} messages of {@code --body} bytes (far beyond the window)
 * through the native API, then a mixed set of {@code --queues} queues sharing as many again. It
 * reports the server's heap after a full GC (and per cold message), its resident set, the store's
 * bytes on disk per message, send throughput, receive+ack throughput with the backlog waiting and
 * with 1,000 waiting, and the time a restart takes to answer {@code /health} 200.
 *
 * <p>{@code BacklogBench [--messages N] [--queues Q] [--body BYTES] [--heap 512m] [--window W]
 * [--threads T] [--dir PARENT] [--out DIR]}.
 */
public final class BacklogBench {

  static final String ENTRY = "backlog";

  private BacklogBench() {}

  private record Options(
      int messages, int queues, int body, String heap, int window, int threads, Path parent) {}

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    Options o = parse(ra.rest());
    Report report =
        Report.create(ENTRY, "Backlog on disk: one server, -Xmx" + o.heap(), "figure", "value");
    Path dir = DurableSendBench.tempDir(o.parent(), "backlog-");
    Path log = Files.createTempFile("backlog-server", ".log");
    List<String> settings = new ArrayList<>();
    settings.add("data-dir=" + dir);
    settings.add("durability=batch");
    settings.add("max-batch=100");
    if (o.window() >= 0) {
      settings.add("hot-window=" + o.window());
    }
    List<String> jvm = List.of("-Xmx" + o.heap(), "--enable-native-access=ALL-UNNAMED");
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    byte[] pool = pool();
    try {
      // the same restart with nothing stored: the figure the restart with a backlog is held to
      ChildServer.start("switchboard", BacklogServerMain.class, settings, jvm, log).close();
      long emptyStart = System.nanoTime();
      ChildServer server =
          ChildServer.start("switchboard", BacklogServerMain.class, settings, jvm, log);
      long baseline;
      awaitHealthy(http, server.uri);
      row(
          report,
          "restart to /health 200 with an empty store (s, incl. JVM start)",
          round2((System.nanoTime() - emptyStart) / 1e9));
      try {
        baseline = heapAfterGc(server);
        post(http, server.uri, "/v1/queues", "{\"name\":\"one\"}", 201);
        long t0 = System.nanoTime();
        AtomicLong refused = new AtomicLong();
        long one =
            fill(
                http,
                server.uri,
                List.of("one"),
                o.messages(),
                o.body(),
                o.threads(),
                pool,
                refused);
        double sendSeconds = (System.nanoTime() - t0) / 1e9;
        if (one < o.messages()) {
          throw new IllegalStateException("one queue took only " + one + " messages");
        }
        long heap = heapAfterGc(server);
        long disk = sizeOf(dir);
        row(report, "messages in one queue", o.messages());
        row(
            report,
            "send msg/s (one queue, batches of 100, " + o.threads() + " threads)",
            round(o.messages() / sendSeconds));
        row(report, "sends refused and retried", refused.get());
        row(report, "server heap after full GC, empty (MiB)", mib(baseline));
        row(report, "server heap after full GC, one queue full (MiB)", mib(heap));
        row(
            report,
            "heap bytes per cold message",
            round((heap - baseline) / (double) o.messages()));
        row(report, "server RSS (MiB)", mib(rss(server.pid)));
        row(report, "store on disk (MiB)", mib(disk));
        row(report, "disk bytes per message", round(disk / (double) o.messages()));

        int drained = Math.min(100_000, o.messages() / 2);
        double deep = drain(http, server.uri, "one", drained);
        row(report, "receive+ack msg/s with " + o.messages() + " waiting", round(drained / deep));
        post(http, server.uri, "/v1/queues", "{\"name\":\"small\"}", 201);
        double shallowSeconds = 0;
        int rounds = drained / 1000;
        for (int r = 0; r < rounds; r++) {
          fill(http, server.uri, List.of("small"), 1000, o.body(), 1, pool, refused);
          shallowSeconds += drain(http, server.uri, "small", 1000);
        }
        row(report, "receive+ack msg/s with 1,000 waiting", round(rounds * 1000 / shallowSeconds));
      } finally {
        server.close();
      }

      long start = System.nanoTime();
      server = ChildServer.start("switchboard", BacklogServerMain.class, settings, jvm, log);
      try {
        awaitHealthy(http, server.uri);
        double restart = (System.nanoTime() - start) / 1e9;
        row(
            report,
            "restart to /health 200 with "
                + (o.messages() - Math.min(100_000, o.messages() / 2))
                + " waiting (s, incl. JVM start)",
            round2(restart));
        row(report, "server heap after full GC, after the restart (MiB)", mib(heapAfterGc(server)));

        if (o.queues() > 0) { // --queues 0 skips the mixed set
          List<String> names = new ArrayList<>();
          for (int q = 0; q < o.queues(); q++) {
            names.add("mixed-" + q);
            post(http, server.uri, "/v1/queues", "{\"name\":\"mixed-" + q + "\"}", 201);
          }
          AtomicLong refused = new AtomicLong();
          long t1 = System.nanoTime();
          long mixed =
              fill(http, server.uri, names, o.messages(), o.body(), o.threads(), pool, refused);
          double mixedSeconds = (System.nanoTime() - t1) / 1e9;
          row(
              report,
              "messages over " + o.queues() + " queues (of " + o.messages() + " sent)",
              mixed);
          row(report, "send msg/s (" + o.queues() + " queues)", round(mixed / mixedSeconds));
          row(report, "sends refused and retried (" + o.queues() + " queues)", refused.get());
          row(report, "server heap after full GC, both sets (MiB)", mib(heapAfterGc(server)));
          row(report, "server RSS, both sets (MiB)", mib(rss(server.pid)));
          long disk = sizeOf(dir);
          row(report, "store on disk, both sets (MiB)", mib(disk));
        }
      } finally {
        server.close();
      }
    } finally {
      DurableSendBench.deleteTree(dir);
    }
    report.note("server log: " + log);
    report.write(
        ra.out(), RunInfo.capture(RunInfo.commandLine(BacklogBench.class, args)), System.out);
  }

  /** Adds a row and prints it at once (a long run shows its figures as it goes). */
  private static void row(Report report, String figure, Object value) {
    report.row(figure, value);
    System.err.println("backlog: " + figure + " = " + value);
  }

  private static Options parse(String[] a) {
    int messages = 1_000_000;
    int queues = 100;
    int body = 1024;
    String heap = "512m";
    int window = -1;
    int threads = 4;
    Path parent = Path.of(System.getProperty("java.io.tmpdir"));
    for (int i = 0; i < a.length; i++) {
      String v = i + 1 < a.length ? a[i + 1] : "";
      switch (a[i]) {
        case "--messages" -> messages = Integer.parseInt(v.replace("_", ""));
        case "--queues" -> queues = Integer.parseInt(v);
        case "--body" -> body = Integer.parseInt(v);
        case "--heap" -> heap = v;
        case "--window" -> window = Integer.parseInt(v);
        case "--threads" -> threads = Integer.parseInt(v);
        case "--dir" -> parent = Path.of(v);
        default -> throw new IllegalArgumentException("unknown option " + a[i]);
      }
      i++;
    }
    return new Options(messages, queues, body, heap, window, threads, parent);
  }

  /** 1 MiB of random letters and digits: bodies are slices of it, so LZ4 cannot shrink them. */
  static byte[] pool() {
    byte[] p = new byte[1 << 20];
    String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    Random r = new Random(42);
    for (int i = 0; i < p.length; i++) {
      p[i] = (byte) alphabet.charAt(r.nextInt(alphabet.length()));
    }
    return p;
  }

  /** Refusals for this long without one accepted send end a fill (the server is full). */
  private static final long GIVE_UP_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);

  /**
   * Sends {@code n} messages round-robin over {@code queues} in batches of 100, retrying refusals
   * (429, 503) after 100 ms; gives up when no send was accepted for 30 s. Returns how many were
   * accepted.
   */
  private static long fill(
      HttpClient http,
      URI uri,
      List<String> queues,
      int n,
      int body,
      int threads,
      byte[] pool,
      AtomicLong refused)
      throws Exception {
    AtomicLong next = new AtomicLong();
    AtomicLong accepted = new AtomicLong();
    AtomicLong lastAccepted = new AtomicLong(System.nanoTime());
    ExecutorService pool2 = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long seed = t;
        done.add(
            pool2.submit(
                () -> {
                  Random r = new Random(seed);
                  while (true) {
                    long from = next.getAndAdd(100);
                    if (from >= n) {
                      return null;
                    }
                    int count = (int) Math.min(100, n - from);
                    StringBuilder b =
                        new StringBuilder(count * (body + 16)).append("{\"messages\":[");
                    for (int i = 0; i < count; i++) {
                      int at = r.nextInt(pool.length - body);
                      b.append(i == 0 ? "" : ",")
                          .append("{\"body\":\"")
                          .append(
                              new String(
                                  pool, at, body, java.nio.charset.StandardCharsets.US_ASCII))
                          .append("\"}");
                    }
                    String q = queues.get((int) ((from / 100) % queues.size()));
                    String json = b.append("]}").toString();
                    while (true) {
                      HttpResponse<String> a =
                          send(http, uri, "/v1/queues/" + q + "/messages/batch", json);
                      if (a.statusCode() == 201) {
                        accepted.addAndGet(count);
                        lastAccepted.set(System.nanoTime());
                        break;
                      }
                      if (a.statusCode() == 429 || a.statusCode() == 503) {
                        refused.incrementAndGet();
                        if (System.nanoTime() - lastAccepted.get() > GIVE_UP_NANOS) {
                          System.err.println("giving up: " + a.statusCode() + " " + a.body());
                          next.set(n); // every thread stops
                          return null;
                        }
                        Thread.sleep(100);
                        continue;
                      }
                      throw new IllegalStateException("send: " + a.statusCode() + " " + a.body());
                    }
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      return accepted.get();
    } finally {
      pool2.shutdownNow();
    }
  }

  private static final Pattern RECEIPT = Pattern.compile("\"receipt\":\"([^\"]+)\"");

  /** Receives and acks {@code n} messages of {@code queue} on one thread; the seconds it took. */
  private static double drain(HttpClient http, URI uri, String queue, int n) throws Exception {
    long t0 = System.nanoTime();
    int got = 0;
    while (got < n) {
      HttpResponse<String> a =
          send(
              http,
              uri,
              "/v1/queues/" + queue + "/receive",
              "{\"maxMessages\":" + Math.min(100, n - got) + ",\"visibilityTimeoutSeconds\":300}");
      if (a.statusCode() != 200) {
        throw new IllegalStateException("receive: " + a.statusCode() + " " + a.body());
      }
      Matcher m = RECEIPT.matcher(a.body());
      StringBuilder acks = new StringBuilder("{\"receipts\":[");
      int k = 0;
      while (m.find()) {
        acks.append(k++ == 0 ? "" : ",").append('"').append(m.group(1)).append('"');
      }
      if (k == 0) {
        throw new IllegalStateException("the queue " + queue + " ran dry after " + got);
      }
      HttpResponse<String> ack = send(http, uri, "/v1/queues/" + queue + "/acks", acks + "]}");
      if (ack.statusCode() != 200) {
        throw new IllegalStateException("ack: " + ack.statusCode() + " " + ack.body());
      }
      got += k;
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  static HttpResponse<String> send(HttpClient http, URI uri, String path, String json)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri.resolve(path))
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(120))
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static void post(HttpClient http, URI uri, String path, String json, int status)
      throws IOException, InterruptedException {
    HttpResponse<String> a = send(http, uri, path, json);
    if (a.statusCode() != status) {
      throw new IllegalStateException(path + ": " + a.statusCode() + " " + a.body());
    }
  }

  private static void awaitHealthy(HttpClient http, URI uri) throws Exception {
    while (true) {
      try {
        HttpResponse<String> a =
            http.send(
                HttpRequest.newBuilder(uri.resolve("/health")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (a.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(20);
    }
  }

  private static long heapAfterGc(ChildServer server) throws InterruptedException {
    return server.allocatedBytes().orElse(-1);
  }

  /** Bytes of the regular files under {@code dir}. */
  static long sizeOf(Path dir) throws IOException {
    try (var files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  /** The resident set of a process from /proc (Linux), or -1. */
  static long rss(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux
    }
    return -1;
  }

  static Object mib(long bytes) {
    return bytes < 0
        ? Report.notMeasured("not readable on this machine (no /proc, or no answer)")
        : (Object) (Math.round(bytes / 1048576.0 * 10) / 10.0);
  }

  private static double round(double v) {
    return Math.round(v);
  }

  private static double round2(double v) {
    return Math.round(v * 100) / 100.0;
  }
}
