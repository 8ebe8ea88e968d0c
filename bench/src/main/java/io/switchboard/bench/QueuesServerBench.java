package io.switchboard.bench;

import io.switchboard.bench.durable.BacklogServerMain;
import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.bench.sqs.ChildServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code bench/run.sh queues-server}: the many-queues figures an operator sees over HTTP, on a
 * server in its own JVM with the RocksDB store: queues created through the native API from 8
 * threads, the size and time of one {@code /metrics} scrape, the first page of the native list and
 * of SQS {@code ListQueues}, a busy queue's round trip (send, receive, ack over HTTP) among them
 * against the same with 10 queues, and the time to a listening server after a clean stop and after
 * kill -9. {@link QueuesBench} has the in-process figures (heap per queue, the engine's calls).
 */
public final class QueuesServerBench {

  static final String ENTRY = "queues-server";
  private static final int THREADS = 8;

  private QueuesServerBench() {}

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    int queues = 200_000;
    int roundTrips = 2_000;
    String serverHeap = "-Xmx2g";
    String durability = "";
    boolean baseline = true;
    String[] rest = ra.rest();
    for (int i = 0; i + 1 < rest.length; i += 2) {
      switch (rest[i]) {
        case "--queues" -> queues = Integer.parseInt(rest[i + 1]);
        case "--round-trips" -> roundTrips = Integer.parseInt(rest[i + 1]);
        case "--server-heap" -> serverHeap = "-Xmx" + rest[i + 1];
        case "--durability" -> durability = rest[i + 1];
        case "--baseline" -> baseline = Boolean.parseBoolean(rest[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + rest[i]);
      }
    }
    Report r = run(queues, roundTrips, serverHeap, durability, baseline);
    r.write(
        ra.out(), RunInfo.capture(RunInfo.commandLine(QueuesServerBench.class, args)), System.out);
  }

  /**
   * {@code queues} queues on a server with {@code serverHeap}, and first the same with 10 queues if
   * {@code baseline}; {@code durability} is the server's setting ({@code ""}: its default).
   */
  static Report run(
      int queues, int roundTrips, String serverHeap, String durability, boolean baseline)
      throws Exception {
    Report r =
        Report.create(
                ENTRY,
                "Many queues on one server, over HTTP (RocksDB store)",
                "queues",
                "creates/s (native, 8 threads)",
                "server heap after GC MiB",
                "scrape KB",
                "scrape ms",
                "native first page ms",
                "SQS ListQueues first page ms",
                "busy queue p50 ms",
                "busy queue p99 ms",
                "start after stop s",
                "start after kill -9 s",
                "load average")
            .note(
                "server in its own JVM ("
                    + serverHeap
                    + ", RocksDB store, durability "
                    + (durability.isEmpty() ? "as configured by default" : durability)
                    + ") on loopback; the"
                    + " client is java.net.http over HTTP/1.1; a page is 1,000 names; scrape and"
                    + " page times are the best of 5 after one warm-up; a start is the time from"
                    + " launching the JVM to its listening port (the store open and recovered); heap in"
                    + " use after a full collection, as the server reports it");
    if (baseline) {
      row(r, 10, roundTrips, serverHeap, durability);
    }
    row(r, queues, roundTrips, serverHeap, durability);
    return r;
  }

  private static void row(
      Report r, int queues, int roundTrips, String serverHeap, String durability) throws Exception {
    Path dir = Files.createTempDirectory("sb-queues-server-");
    Path log = dir.resolve("server.log");
    List<String> settings =
        new ArrayList<>(
            List.of(
                "in-memory=false",
                "data-dir=" + dir.resolve("data"),
                // the setting's ceiling is 1,000,000: a million leaves no room to spare
                "max-queues=" + Math.min(queues + 10, 1_000_000)));
    if (!durability.isEmpty()) {
      settings.add("durability=" + durability);
    }
    List<String> jvm = List.of(serverHeap, "--enable-native-access=ALL-UNNAMED");
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    try {
      double rate;
      long scrapeBytes;
      double scrapeMs;
      double nativePage;
      double sqsPage;
      long[] lat;
      long heap;
      try (ChildServer server =
          ChildServer.start("switchboard", BacklogServerMain.class, settings, jvm, log)) {
        URI base = server.uri;
        long t0 = System.nanoTime();
        create(http, base, queues);
        rate = queues / ((System.nanoTime() - t0) / 1e9);
        heap = server.allocatedBytes().orElse(-1);
        scrapeBytes = get(http, base.resolve("/metrics")).length;
        scrapeMs = bestMillis(() -> get(http, base.resolve("/metrics")));
        nativePage = bestMillis(() -> get(http, base.resolve("/v1/queues?limit=1000")));
        sqsPage =
            bestMillis(
                () ->
                    send(
                        http,
                        HttpRequest.newBuilder(base.resolve("/"))
                            .header("Content-Type", "application/x-amz-json-1.0")
                            .header("X-Amz-Target", "AmazonSQS.ListQueues")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"MaxResults\":1000}"))
                            .build()));
        lat = roundTrips(http, base, QueuesBench.name(queues / 2), roundTrips);
      }
      double afterStop = startSeconds(settings, jvm, log, false);
      double afterKill = startSeconds(settings, jvm, log, true);
      r.row(
          queues,
          queues < 1000 ? "" : Math.round(rate),
          heap < 0 ? "" : fmt(heap / 1048576.0),
          fmt(scrapeBytes / 1024.0),
          fmt(scrapeMs),
          fmt(nativePage),
          fmt(sqsPage),
          fmt(percentile(lat, 50) / 1e6),
          fmt(percentile(lat, 99) / 1e6),
          fmt(afterStop),
          fmt(afterKill),
          RunInfo.loadAverages(Machine.LOCAL));
    } finally {
      try (var walk = Files.walk(dir)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * Starts a server on the store just left, measures the time to its listening port, and stops it
   * cleanly ({@code kill == false}) or by kill -9, so the next start recovers after that.
   */
  private static double startSeconds(
      List<String> settings, List<String> jvm, Path log, boolean kill) throws Exception {
    long t0 = System.nanoTime();
    ChildServer server =
        ChildServer.start("switchboard", BacklogServerMain.class, settings, jvm, log);
    double seconds = (System.nanoTime() - t0) / 1e9;
    if (kill) {
      server.process().destroyForcibly();
      server.process().onExit().get();
    } else {
      server.close();
    }
    return seconds;
  }

  private static void create(HttpClient http, URI base, int n) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int first = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = first; i < n; i += THREADS) {
                    send(
                        http,
                        HttpRequest.newBuilder(base.resolve("/v1/queues"))
                            .header("Content-Type", "application/json")
                            .POST(
                                HttpRequest.BodyPublishers.ofString(
                                    "{\"name\":\"" + QueuesBench.name(i) + "\"}"))
                            .build());
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  /** Send, receive and ack one message over HTTP, {@code n} times (a tenth more first). */
  private static long[] roundTrips(HttpClient http, URI base, String queue, int n)
      throws IOException, InterruptedException {
    URI messages = base.resolve("/v1/queues/" + queue + "/messages");
    URI receive = base.resolve("/v1/queues/" + queue + "/receive");
    long[] nanos = new long[n];
    for (int i = -n / 10; i < n; i++) {
      long t0 = System.nanoTime();
      send(
          http,
          HttpRequest.newBuilder(messages)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString("{\"body\":\"m\"}"))
              .build());
      String got =
          new String(
              send(
                  http,
                  HttpRequest.newBuilder(receive)
                      .header("Content-Type", "application/json")
                      .POST(HttpRequest.BodyPublishers.ofString("{\"maxMessages\":1}"))
                      .build()),
              StandardCharsets.UTF_8);
      String receipt = field(got, "receipt");
      send(
          http,
          HttpRequest.newBuilder(
                  base.resolve("/v1/queues/" + queue + "/leases/" + receipt + "/ack"))
              .POST(HttpRequest.BodyPublishers.noBody())
              .build());
      if (i >= 0) {
        nanos[i] = System.nanoTime() - t0;
      }
    }
    Arrays.sort(nanos);
    return nanos;
  }

  /** The string value of {@code "name":"..."} in a JSON answer (receipts need no unescaping). */
  private static String field(String json, String name) {
    String key = "\"" + name + "\":\"";
    int at = json.indexOf(key);
    if (at < 0) {
      throw new IllegalStateException("no " + name + " in " + json);
    }
    int from = at + key.length();
    return json.substring(from, json.indexOf('"', from));
  }

  private static byte[] get(HttpClient http, URI uri) throws IOException, InterruptedException {
    return send(http, HttpRequest.newBuilder(uri).GET().build());
  }

  private static byte[] send(HttpClient http, HttpRequest request)
      throws IOException, InterruptedException {
    HttpResponse<byte[]> answer = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    if (answer.statusCode() / 100 != 2) {
      throw new IOException(
          request.method()
              + " "
              + request.uri()
              + " answered "
              + answer.statusCode()
              + ": "
              + new String(answer.body(), StandardCharsets.UTF_8));
    }
    return answer.body();
  }

  private interface Call {
    Object run() throws Exception;
  }

  private static double bestMillis(Call work) throws Exception {
    work.run(); // warm-up
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      long t0 = System.nanoTime();
      work.run();
      best = Math.min(best, System.nanoTime() - t0);
    }
    return best / 1e6;
  }

  private static long percentile(long[] sorted, int percentile) {
    int i = Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * percentile / 100.0) - 1);
    return sorted[Math.max(0, i)];
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
