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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * bytes on disk per message, the bytes the server wrote to the device per body byte sent, the time
 * a restart takes to answer {@code /health} 200 (empty, and with the backlog), and the steady rates
 * with the backlog waiting against a queue of the same kind with 1,000 waiting.
 *
 * <p>The steady rates are measured in alternating steps, so that both queues meet the same
 * background work (the fill's compactions, the machine's other load): each round sends {@code
 * --step} messages to the deep queue and receives and acks as many, then does the same on the
 * shallow one, whose depth thus stays between 1,000 and 1,000 + step as the deep one's stays at the
 * backlog. Sends go out from {@code --threads} threads in batches of 100; receives and acks from
 * one thread, 100 at a time. Beside the rates it reports the server's CPU time per 1,000 received
 * and acked, by kind of thread ({@link ThreadCpu}), with the backlog and with 1,000: what the
 * difference between the two rates is spent on.
 *
 * <p>{@code --order fifo|lifo|priority} chooses the queues' order ({@code priority}: a FIFO queue
 * whose messages carry a random priority 0..9). {@code --filtered} makes both queues index the
 * attribute {@code tier}, every message {@code tier = 'basic'}, and adds the filtered receive of a
 * single {@code tier = 'vip'} message sent behind the backlog against the same behind 10,000 (p50,
 * p99; {@code --filter-rounds} of each, alternating).
 *
 * <p>{@code BacklogBench [--messages N] [--queues Q] [--body BYTES] [--heap 512m] [--window W]
 * [--threads T] [--order fifo|lifo|priority] [--filtered] [--then-lifo] [--rounds R] [--step S]
 * [--filter-rounds F] [--server-opt JVMFLAG]... [--dir PARENT] [--out DIR]}.
 */
public final class BacklogBench {

  static final String ENTRY = "backlog";

  private BacklogBench() {}

  /** The queues' order and how their messages are made. */
  enum Order {
    FIFO,
    LIFO,
    PRIORITY;

    static Order of(String v) {
      return switch (v) {
        case "fifo" -> FIFO;
        case "lifo" -> LIFO;
        case "priority" -> PRIORITY;
        default ->
            throw new IllegalArgumentException(
                "--order is fifo, lifo or priority, got '" + v + "'");
      };
    }
  }

  private record Options(
      int messages,
      int queues,
      int body,
      String heap,
      int window,
      int threads,
      Order order,
      boolean filtered,
      boolean thenLifo,
      int rounds,
      int step,
      int filterRounds,
      List<String> serverOpts,
      Path parent) {

    /** The create request of a queue of this run's kind. */
    String create(String name) {
      // past the server's default-max-depth (10,000,000): the backlog is the point
      return "{\"name\":\""
          + name
          + "\",\"maxDepth\":1000000000"
          + (order == Order.LIFO ? ",\"order\":\"LIFO\"" : "")
          + (filtered ? ",\"indexedAttributes\":[\"tier\"]" : "")
          + "}";
    }
  }

  /** Makes the JSON of one message: its body, and its priority and tier if the run has them. */
  private record Messages(Options o, byte[] pool) {
    void append(StringBuilder b, Random r, String tier) {
      int at = r.nextInt(pool.length - o.body());
      b.append("{\"body\":\"")
          .append(new String(pool, at, o.body(), java.nio.charset.StandardCharsets.US_ASCII))
          .append('"');
      if (o.order() == Order.PRIORITY) {
        b.append(",\"priority\":").append(r.nextInt(10));
      }
      if (o.filtered()) {
        b.append(",\"attributes\":{\"tier\":\"").append(tier).append("\"}");
      }
      b.append('}');
    }
  }

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    Options o = parse(ra.rest());
    Report report =
        Report.create(
            ENTRY,
            "Backlog on disk: one server, -Xmx"
                + o.heap()
                + ", "
                + o.order().name().toLowerCase(java.util.Locale.ROOT)
                + (o.filtered() ? ", one indexed attribute" : ""),
            "figure",
            "value");
    Path dir = DurableSendBench.tempDir(o.parent(), "backlog-");
    Path log = Files.createTempFile("backlog-server", ".log");
    List<String> settings = new ArrayList<>();
    settings.add("data-dir=" + dir);
    settings.add("durability=batch");
    settings.add("max-batch=100");
    if (o.window() >= 0) {
      settings.add("hot-window=" + o.window());
    }
    List<String> jvm =
        new ArrayList<>(List.of("-Xmx" + o.heap(), "--enable-native-access=ALL-UNNAMED"));
    jvm.addAll(o.serverOpts());
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    Messages messages = new Messages(o, pool());
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
      row(report, "of which opening the store and recovering, empty (ms)", storageOpened(log));
      try {
        baseline = heapAfterGc(server);
        post(http, server.uri, "/v1/queues", o.create("one"), 201);
        long written0 = writeBytes(server.pid);
        long t0 = System.nanoTime();
        AtomicLong refused = new AtomicLong();
        long one =
            fill(http, server.uri, List.of("one"), o.messages(), o.threads(), messages, refused);
        double sendSeconds = (System.nanoTime() - t0) / 1e9;
        long written = writeBytes(server.pid) - written0;
        if (one < o.messages()) {
          throw new IllegalStateException("one queue took only " + one + " messages");
        }
        long heap = heapAfterGc(server);
        long disk = sizeOf(dir);
        row(report, "messages in one queue", o.messages());
        row(
            report,
            "send msg/s while filling (one queue, batches of 100, " + o.threads() + " threads)",
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
        row(
            report,
            "bytes written to the device per body byte sent (the fill)",
            written0 < 0 || written < 0
                ? Report.notMeasured("no /proc/<pid>/io here")
                : (Object) round2(written / ((double) o.messages() * o.body())));

        post(http, server.uri, "/v1/queues", o.create("small"), 201);
        fill(http, server.uri, List.of("small"), 1000, o.threads(), messages, refused);
        steadyPhase(report, http, server, o, messages, refused, "");
        if (o.thenLifo()) {
          // the same backlog served newest first: a change of order reads nothing back
          for (String q : List.of("one", "small")) {
            patch(http, server.uri, "/v1/queues/" + q, "{\"order\":\"LIFO\"}");
          }
          steadyPhase(report, http, server, o, messages, refused, "LIFO, ");
        }

        if (o.filtered()) {
          post(http, server.uri, "/v1/queues", o.create("tenk"), 201);
          fill(http, server.uri, List.of("tenk"), 10_000, o.threads(), messages, refused);
          long[] deepNanos = new long[o.filterRounds()];
          long[] shallowNanos = new long[o.filterRounds()];
          Random r = new Random(7);
          for (int i = 0; i < o.filterRounds(); i++) {
            deepNanos[i] = filteredReceive(http, server.uri, "one", messages, r);
            shallowNanos[i] = filteredReceive(http, server.uri, "tenk", messages, r);
          }
          java.util.Arrays.sort(deepNanos);
          java.util.Arrays.sort(shallowNanos);
          double p50Deep = micros(percentile(deepNanos, 0.50));
          double p50Shallow = micros(percentile(shallowNanos, 0.50));
          row(
              report,
              "filtered receive p50 / p99 with " + o.messages() + " waiting (µs)",
              round(p50Deep) + " / " + round(micros(percentile(deepNanos, 0.99))));
          row(
              report,
              "filtered receive p50 / p99 with 10,000 waiting (µs)",
              round(p50Shallow) + " / " + round(micros(percentile(shallowNanos, 0.99))));
          row(
              report,
              "filtered receive p50: with the backlog / with 10,000 (target <= 2)",
              round2(p50Deep / p50Shallow));
        }
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
            "restart to /health 200 with " + o.messages() + " waiting (s, incl. JVM start)",
            round2(restart));
        row(
            report,
            "of which opening the store and recovering, with " + o.messages() + " waiting (ms)",
            storageOpened(log));
        row(report, "server heap after full GC, after the restart (MiB)", mib(heapAfterGc(server)));

        if (o.queues() > 0) { // --queues 0 skips the mixed set
          List<String> names = new ArrayList<>();
          for (int q = 0; q < o.queues(); q++) {
            names.add("mixed-" + q);
            post(http, server.uri, "/v1/queues", o.create("mixed-" + q), 201);
          }
          AtomicLong refused = new AtomicLong();
          long t1 = System.nanoTime();
          long mixed = fill(http, server.uri, names, o.messages(), o.threads(), messages, refused);
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

  /**
   * The steady phase: {@code --rounds} alternating steps on the deep queue and the shallow one, and
   * their rates, ratios and the server's CPU by kind of thread; each figure's name begins with
   * {@code label}.
   */
  private static void steadyPhase(
      Report report,
      HttpClient http,
      ChildServer server,
      Options o,
      Messages messages,
      AtomicLong refused,
      String label)
      throws Exception {
    double[] deep = new double[2];
    double[] shallow = new double[2];
    Map<String, Long> deepCpu = new LinkedHashMap<>();
    Map<String, Long> shallowCpu = new LinkedHashMap<>();
    for (int r = 0; r < o.rounds(); r++) {
      steadyStep(http, server, "one", o, messages, refused, deep, deepCpu);
      steadyStep(http, server, "small", o, messages, refused, shallow, shallowCpu);
    }
    long moved = (long) o.rounds() * o.step();
    double sendRatio = (moved / deep[0]) / (moved / shallow[0]);
    double receiveRatio = (moved / deep[1]) / (moved / shallow[1]);
    row(report, label + "send msg/s with " + o.messages() + " waiting", round(moved / deep[0]));
    row(report, label + "send msg/s with 1,000 waiting", round(moved / shallow[0]));
    row(report, label + "send: with the backlog / with 1,000 (target >= 0.8)", round2(sendRatio));
    row(
        report,
        label + "receive+ack msg/s with " + o.messages() + " waiting",
        round(moved / deep[1]));
    row(report, label + "receive+ack msg/s with 1,000 waiting", round(moved / shallow[1]));
    row(
        report,
        label + "receive+ack: with the backlog / with 1,000 (target >= 0.8)",
        round2(receiveRatio));
    // what bounds the ratio: the server's CPU by kind of thread, per 1,000 received and acked
    long deepTotal = 0;
    long shallowTotal = 0;
    for (String kind : ThreadCpu.KINDS) {
      long d = deepCpu.getOrDefault(kind, 0L);
      long sh = shallowCpu.getOrDefault(kind, 0L);
      deepTotal += d;
      shallowTotal += sh;
      row(
          report,
          label + "receive+ack, server CPU ms per 1,000 (backlog / 1,000 waiting): " + kind,
          perThousand(d, moved) + " / " + perThousand(sh, moved));
    }
    row(
        report,
        label + "receive+ack, server CPU ms per 1,000 (backlog / 1,000 waiting): all threads",
        perThousand(deepTotal, moved) + " / " + perThousand(shallowTotal, moved));
  }

  /**
   * One step of the steady phase on {@code queue}: sends {@code --step} messages, then receives and
   * acks as many; adds the seconds of each to {@code seconds[0]} and {@code seconds[1]}.
   */
  private static void steadyStep(
      HttpClient http,
      ChildServer server,
      String queue,
      Options o,
      Messages messages,
      AtomicLong refused,
      double[] seconds,
      Map<String, Long> drainCpu)
      throws Exception {
    long t0 = System.nanoTime();
    long sent = fill(http, server.uri, List.of(queue), o.step(), o.threads(), messages, refused);
    long t1 = System.nanoTime();
    if (sent < o.step()) {
      throw new IllegalStateException(queue + " took only " + sent + " of a step");
    }
    seconds[0] += (t1 - t0) / 1e9;
    Map<String, Long> before = ThreadCpu.read(server.pid);
    seconds[1] += drain(http, server.uri, queue, o.step());
    ThreadCpu.addDelta(before, ThreadCpu.read(server.pid), drainCpu);
  }

  private static long perThousand(long millis, long messages) {
    return Math.round(millis * 1000.0 / messages);
  }

  /**
   * Sends one {@code tier = 'vip'} message to {@code queue}, then times the receive of {@code tier
   * = 'vip'} that gets it, and acks it; the receive's nanoseconds.
   */
  private static long filteredReceive(
      HttpClient http, URI uri, String queue, Messages messages, Random r) throws Exception {
    StringBuilder b = new StringBuilder("{\"messages\":[");
    messages.append(b, r, "vip");
    post(http, uri, "/v1/queues/" + queue + "/messages/batch", b.append("]}").toString(), 201);
    long t0 = System.nanoTime();
    HttpResponse<String> a =
        send(
            http,
            uri,
            "/v1/queues/" + queue + "/receive",
            "{\"maxMessages\":1,\"visibilityTimeoutSeconds\":300,\"selector\":\"tier = 'vip'\"}");
    long took = System.nanoTime() - t0;
    Matcher m = RECEIPT.matcher(a.body());
    if (a.statusCode() != 200 || !m.find()) {
      throw new IllegalStateException("filtered receive: " + a.statusCode() + " " + a.body());
    }
    post(
        http, uri, "/v1/queues/" + queue + "/acks", "{\"receipts\":[\"" + m.group(1) + "\"]}", 200);
    return took;
  }

  private static long percentile(long[] sorted, double p) {
    return sorted[Math.min(sorted.length - 1, (int) Math.floor(p * sorted.length))];
  }

  private static double micros(long nanos) {
    return nanos / 1e3;
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
    Order order = Order.FIFO;
    boolean filtered = false;
    boolean thenLifo = false;
    int rounds = 10;
    int step = 10_000;
    int filterRounds = 300;
    List<String> serverOpts = new ArrayList<>();
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
        case "--order" -> order = Order.of(v);
        case "--filtered" -> {
          filtered = true;
          i--; // a flag: no value
        }
        case "--then-lifo" -> {
          thenLifo = true;
          i--; // a flag: no value
        }
        case "--rounds" -> rounds = Integer.parseInt(v);
        case "--step" -> step = Integer.parseInt(v.replace("_", ""));
        case "--filter-rounds" -> filterRounds = Integer.parseInt(v);
        case "--server-opt" -> serverOpts.add(v);
        case "--dir" -> parent = Path.of(v);
        default -> throw new IllegalArgumentException("unknown option " + a[i]);
      }
      i++;
    }
    return new Options(
        messages,
        queues,
        body,
        heap,
        window,
        threads,
        order,
        filtered,
        thenLifo,
        rounds,
        step,
        filterRounds,
        List.copyOf(serverOpts),
        parent);
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
      int threads,
      Messages messages,
      AtomicLong refused)
      throws Exception {
    AtomicLong next = new AtomicLong();
    AtomicLong accepted = new AtomicLong();
    AtomicLong lastAccepted = new AtomicLong(System.nanoTime());
    ExecutorService senders = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long seed = SEEDS.incrementAndGet();
        done.add(
            senders.submit(
                () -> {
                  Random r = new Random(seed);
                  while (true) {
                    long from = next.getAndAdd(100);
                    if (from >= n) {
                      return null;
                    }
                    int count = (int) Math.min(100, n - from);
                    StringBuilder b =
                        new StringBuilder(count * (messages.o().body() + 64))
                            .append("{\"messages\":[");
                    for (int i = 0; i < count; i++) {
                      if (i > 0) {
                        b.append(',');
                      }
                      messages.append(b, r, "basic");
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
      senders.shutdownNow();
    }
  }

  /** Each sender thread of each fill draws its bodies from its own seed. */
  private static final AtomicLong SEEDS = new AtomicLong();

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

  private static void patch(HttpClient http, URI uri, String path, String json)
      throws IOException, InterruptedException {
    HttpResponse<String> a =
        http.send(
            HttpRequest.newBuilder(uri.resolve(path))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(120))
                .method("PATCH", HttpRequest.BodyPublishers.ofString(json))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (a.statusCode() != 200) {
      throw new IllegalStateException(path + ": " + a.statusCode() + " " + a.body());
    }
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

  private static final Pattern STORAGE_OPENED = Pattern.compile("storageOpenedMs=\"?(\\d+)");

  /**
   * What the server's last "switchboard ready" line in {@code log} says opening its store and
   * recovering took, the part of a restart that a backlog could lengthen (the rest is the JVM and
   * the server starting).
   */
  private static Object storageOpened(Path log) throws IOException {
    Matcher m = STORAGE_OPENED.matcher(Files.readString(log));
    String last = null;
    while (m.find()) {
      last = m.group(1);
    }
    return last == null
        ? Report.notMeasured("the server log has no storageOpenedMs")
        : (Object) Long.parseLong(last);
  }

  /** Bytes the process caused to be written to storage so far (Linux), or -1. */
  static long writeBytes(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "io"))) {
        if (line.startsWith("write_bytes:")) {
          return Long.parseLong(line.substring("write_bytes:".length()).trim());
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux, or not readable
    }
    return -1;
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
