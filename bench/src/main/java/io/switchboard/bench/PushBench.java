package io.switchboard.bench;

import io.switchboard.bench.durable.BacklogServerMain;
import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.bench.sqs.ChildServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bench/run.sh push}: push subscriptions end to end (docs/design.md, "Push delivery"), a
 * server in its own JVM (embedded store) pushing to a receiver in this JVM that counts (a minimal
 * HTTP/1.1 server on loopback). Two parts:
 *
 * <ul>
 *   <li><b>throughput</b>: {@code --messages} waiting messages pushed one per request at
 *       concurrency {@code --concurrency}, pushes/s and the server's CPU per push, beside the same
 *       messages taken by {@code --concurrency} HTTP consumers doing receive + ack of one; each
 *       after {@code --warmup} messages done the same way, untimed;
 *   <li><b>seed 002</b>: {@code --rate} tasks/s for {@code --seconds} into a LIFO queue with a TTL
 *       of 60 s, pushed at concurrency 1 and 50/s: the most requests the receiver saw at once and
 *       in any 1 s window, the deliveries that were the newest task sent by then, tasks delivered
 *       twice, and the tasks that expired;
 *   <li><b>outage</b>: a receiver answering 503 for {@code --outage-seconds} (10), then healthy:
 *       the requests refused while down, every message delivered, the most deliveries in any 1 s
 *       after, and how long after it is healthy the subscription is back at its rate.
 * </ul>
 *
 * <p>{@code PushBench [--messages N] [--concurrency C] [--rate R] [--seconds S] [--warmup W]
 * [--outage-seconds O] [--server-jvm "FLAGS"] [--out DIR]}.
 */
public final class PushBench {

  static final String ENTRY = "push";
  private static final Pattern BODY = Pattern.compile("\"body\":\"[tm]-(\\d+)\"");

  private PushBench() {}

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    int messages = 50_000;
    int concurrency = 64;
    int rate = 1_000;
    int seconds = 60;
    int warmup = 10_000;
    int outage = 10;
    List<String> serverJvm = SERVER_JVM;
    String[] rest = ra.rest();
    for (int i = 0; i + 1 < rest.length; i += 2) {
      String v = rest[i + 1];
      switch (rest[i]) {
        case "--messages" -> messages = Integer.parseInt(v.replace("_", ""));
        case "--concurrency" -> concurrency = Integer.parseInt(v);
        case "--rate" -> rate = Integer.parseInt(v);
        case "--seconds" -> seconds = Integer.parseInt(v);
        case "--warmup" -> warmup = Integer.parseInt(v.replace("_", ""));
        case "--outage-seconds" -> outage = Integer.parseInt(v);
        case "--server-jvm" -> serverJvm = List.of(v.trim().split("\\s+"));
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + rest[i]
                    + "; options are --messages, --concurrency, --rate, --seconds, --warmup,"
                    + " --outage-seconds, --server-jvm"
                    + " (the server JVM's flags, e.g. \"-Xmx1g"
                    + " -XX:StartFlightRecording=filename=/tmp/push.jfr,settings=profile\"), --out");
      }
    }
    Report r = run(messages, concurrency, rate, seconds, warmup, outage, serverJvm);
    r.write(ra.out(), RunInfo.capture(RunInfo.commandLine(PushBench.class, args)), System.out);
  }

  /**
   * The receiver: answers 200 to every POST, counting requests, concurrency and task numbers. A
   * minimal HTTP/1.1 server of its own (a virtual thread per kept-alive connection, requests with a
   * {@code Content-Length}, answers without a body), so that what it costs a request leaves the two
   * cores to the server: the JDK's {@code HttpServer} took ~400 µs of CPU a request here.
   */
  private static final class Receiver implements AutoCloseable {
    final ServerSocket server;
    final AtomicLong requests = new AtomicLong();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger maxInFlight = new AtomicInteger();
    final ConcurrentLinkedQueue<long[]> seen = new ConcurrentLinkedQueue<>(); // {nanos, task}
    final AtomicLong refused = new AtomicLong();
    private final java.util.Set<Socket> open = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Until when (System.nanoTime) it answers 503 to every request. */
    volatile long downUntil = Long.MIN_VALUE;

    private static final byte[] OK =
        "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DOWN =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII);

    Receiver() throws IOException {
      server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
      Thread.ofPlatform()
          .daemon()
          .name("push-receiver-accept")
          .start(
              () -> {
                while (!server.isClosed()) {
                  try {
                    Socket s = server.accept();
                    s.setTcpNoDelay(true);
                    open.add(s);
                    Thread.ofVirtual().start(() -> serve(s));
                  } catch (IOException closed) {
                    return;
                  }
                }
              });
    }

    /** Answers the requests of one connection until the client closes it. */
    private void serve(Socket s) {
      try (s;
          InputStream in = s.getInputStream();
          OutputStream out = s.getOutputStream()) {
        byte[] buf = new byte[16 * 1024];
        int have = 0;
        while (true) {
          int headEnd;
          while ((headEnd = headEnd(buf, have)) < 0) {
            if (have == buf.length) {
              buf = java.util.Arrays.copyOf(buf, buf.length * 2);
            }
            int n = in.read(buf, have, buf.length - have);
            if (n < 0) {
              return;
            }
            have += n;
          }
          int length = contentLength(buf, headEnd);
          int total = headEnd + length;
          if (buf.length < total) {
            buf = java.util.Arrays.copyOf(buf, total);
          }
          while (have < total) {
            int n = in.read(buf, have, buf.length - have);
            if (n < 0) {
              return;
            }
            have += n;
          }
          int now = inFlight.incrementAndGet();
          maxInFlight.accumulateAndGet(now, Math::max);
          byte[] answer;
          try {
            if (System.nanoTime() < downUntil) {
              refused.incrementAndGet();
              answer = DOWN;
            } else {
              String body = new String(buf, headEnd, length, StandardCharsets.UTF_8);
              long at = System.nanoTime();
              Matcher m = BODY.matcher(body);
              while (m.find()) {
                seen.add(new long[] {at, Long.parseLong(m.group(1))});
              }
              requests.incrementAndGet();
              answer = OK;
            }
          } finally {
            inFlight.decrementAndGet();
          }
          out.write(answer);
          out.flush();
          System.arraycopy(buf, total, buf, 0, have - total);
          have -= total;
        }
      } catch (IOException | RuntimeException gone) {
        // the client closed the connection, or sent what this receiver does not read
      } finally {
        open.remove(s);
      }
    }

    /** Where the head ends (after its blank line), or -1 when it has not arrived whole. */
    private static int headEnd(byte[] b, int n) {
      for (int i = 3; i < n; i++) {
        if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
          return i + 1;
        }
      }
      return -1;
    }

    private static int contentLength(byte[] b, int headEnd) {
      String head = new String(b, 0, headEnd, StandardCharsets.ISO_8859_1);
      int at = head.toLowerCase(java.util.Locale.ROOT).indexOf("\r\ncontent-length:");
      if (at < 0) {
        return 0;
      }
      int from = at + "\r\ncontent-length:".length();
      return Integer.parseInt(head.substring(from, head.indexOf('\r', from)).trim());
    }

    String url(String path) {
      return "http://127.0.0.1:" + server.getLocalPort() + path;
    }

    void reset() {
      refused.set(0);
      downUntil = Long.MIN_VALUE;
      requests.set(0);
      maxInFlight.set(0);
      seen.clear();
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : open) {
        s.close();
      }
    }
  }

  /** The server JVM's flags unless {@code --server-jvm} gives others. */
  static final List<String> SERVER_JVM = List.of("-Xmx1g", "--enable-native-access=ALL-UNNAMED");

  static Report run(int messages, int concurrency, int rate, int seconds, int outage)
      throws Exception {
    return run(messages, concurrency, rate, seconds, Math.min(messages, 100), outage, SERVER_JVM);
  }

  /**
   * @param warmup messages pushed, and as many received and acknowledged, before each of the two
   *     measured throughput phases (their own queues), so that both measure a server whose code is
   *     compiled: the JIT took a third of the server's CPU in a cold push phase
   * @param outage seconds the receiver answers 503 in the outage case
   */
  static Report run(
      int messages,
      int concurrency,
      int rate,
      int seconds,
      int warmup,
      int outage,
      List<String> serverJvm)
      throws Exception {
    Report r =
        Report.create(ENTRY, "Push subscriptions to a local receiver", "figure", "value")
            .note(
                "server in its own JVM (-Xmx1g, embedded store, default durability) on loopback;"
                    + " the receiver is a minimal HTTP/1.1 server (kept-alive connections) in the"
                    + " bench's JVM; "
                    + warmup
                    + " messages pushed and as many received before the measured phases; server"
                    + " CPU from /proc; load average "
                    + RunInfo.loadAverages(Machine.LOCAL));
    Path dir = Files.createTempDirectory("sb-push-");
    Path log = dir.resolve("server.log");
    List<String> settings = List.of("in-memory=false", "data-dir=" + dir.resolve("data"));
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    try (Receiver receiver = new Receiver();
        ChildServer server =
            ChildServer.start("switchboard", BacklogServerMain.class, settings, serverJvm, log)) {
      URI base = server.uri;
      // warm-up: the same pushes, untimed
      if (warmup > 0) {
        post(http, base, "/v1/queues", "{\"name\":\"warm\"}");
        fill(http, base, "warm", warmup);
        post(
            http,
            base,
            "/v1/queues/warm/subscriptions",
            "{\"name\":\"sink\",\"url\":\""
                + receiver.url("/warm")
                + "\",\"maxConcurrent\":"
                + concurrency
                + "}");
        while (receiver.requests.get() < warmup) {
          Thread.sleep(5);
        }
        post(http, base, "/v1/queues/warm/subscriptions/sink/pause", "");
        receiver.reset();
      }
      // throughput: pushes at concurrency C
      post(http, base, "/v1/queues", "{\"name\":\"thr\"}");
      fill(http, base, "thr", messages);
      long self = ProcessHandle.current().pid();
      OptionalLong cpu0 = Machine.LOCAL.cpuNanos(server.pid);
      OptionalLong own0 = Machine.LOCAL.cpuNanos(self);
      long t0 = System.nanoTime();
      long wall0 = System.currentTimeMillis();
      post(
          http,
          base,
          "/v1/queues/thr/subscriptions",
          "{\"name\":\"sink\",\"url\":\""
              + receiver.url("/thr")
              + "\",\"maxConcurrent\":"
              + concurrency
              + "}");
      while (receiver.requests.get() < messages) {
        Thread.sleep(5);
      }
      double pushSeconds = (System.nanoTime() - t0) / 1e9;
      // the phase's wall-clock bounds, to cut a profile of the server (--server-jvm) to it
      System.err.println(
          "push: throughput phase from " + wall0 + " to " + System.currentTimeMillis() + " (ms)");
      OptionalLong cpu1 = Machine.LOCAL.cpuNanos(server.pid);
      OptionalLong own1 = Machine.LOCAL.cpuNanos(self);
      r.row(
          "pushes/s (one message a request, concurrency " + concurrency + ")",
          round(messages / pushSeconds));
      r.row("server CPU µs per push", cpuPer(cpu0, cpu1, messages));
      r.row("receiver's CPU µs per push (the bench's JVM)", cpuPer(own0, own1, messages));
      r.row("most requests at once at the receiver", receiver.maxInFlight.get());
      post(http, base, "/v1/queues/thr/subscriptions/sink/pause", "");

      // the same messages by receive + ack of one, C consumers, after as many untimed
      if (warmup > 0) {
        post(http, base, "/v1/queues", "{\"name\":\"warm-pull\"}");
        fill(http, base, "warm-pull", warmup);
        consume(http, base, "warm-pull", warmup, concurrency);
      }
      post(http, base, "/v1/queues", "{\"name\":\"pull\"}");
      fill(http, base, "pull", messages);
      OptionalLong cpu2 = Machine.LOCAL.cpuNanos(server.pid);
      OptionalLong own2 = Machine.LOCAL.cpuNanos(self);
      long t1 = System.nanoTime();
      long wall1 = System.currentTimeMillis();
      consume(http, base, "pull", messages, concurrency);
      double pullSeconds = (System.nanoTime() - t1) / 1e9;
      System.err.println(
          "push: receive+ack phase from " + wall1 + " to " + System.currentTimeMillis() + " (ms)");
      OptionalLong cpu3 = Machine.LOCAL.cpuNanos(server.pid);
      OptionalLong own3 = Machine.LOCAL.cpuNanos(self);
      r.row(
          "receive+ack msg/s (one a request, " + concurrency + " consumers)",
          round(messages / pullSeconds));
      r.row("server CPU µs per receive+ack", cpuPer(cpu2, cpu3, messages));
      r.row("consumers' CPU µs per receive+ack (the bench's JVM)", cpuPer(own2, own3, messages));

      // seed 002: LIFO, TTL 60 s, 50/s at concurrency 1
      receiver.reset();
      post(
          http,
          base,
          "/v1/queues",
          "{\"name\":\"legacy\",\"order\":\"lifo\",\"retentionSeconds\":60}");
      post(
          http,
          base,
          "/v1/queues/legacy/subscriptions",
          "{\"name\":\"validator\",\"url\":\""
              + receiver.url("/legacy")
              + "\",\"maxConcurrent\":1,\"maxPerSecond\":50,\"burst\":1}");
      long[] sentAt = new long[rate * seconds];
      long start = System.nanoTime();
      long interval = 10_000_000_000L / rate; // a batch of 10
      for (int i = 0; i < sentAt.length; i += 10) {
        long due = start + (i / 10) * interval;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        StringBuilder b = new StringBuilder("{\"messages\":[");
        for (int k = 0; k < 10 && i + k < sentAt.length; k++) {
          b.append(k == 0 ? "" : ",").append("{\"body\":\"t-").append(i + k).append("\"}");
        }
        post(http, base, "/v1/queues/legacy/messages/batch", b.append("]}").toString());
        long now = System.nanoTime();
        for (int k = 0; k < 10 && i + k < sentAt.length; k++) {
          sentAt[i + k] = now;
        }
      }
      Thread.sleep(1_000); // the last deliveries
      List<long[]> got = new ArrayList<>(receiver.seen);
      got.sort((a, b) -> Long.compare(a[0], b[0]));
      int maxWindow = 0;
      for (int i = 0, j = 0; i < got.size(); i++) {
        while (got.get(i)[0] - got.get(j)[0] >= 1_000_000_000L) {
          j++;
        }
        maxWindow = Math.max(maxWindow, i - j + 1);
      }
      int newest = 0;
      java.util.Set<Long> delivered = new java.util.HashSet<>();
      int twice = 0;
      for (long[] g : got) {
        if (!delivered.add(g[1])) {
          twice++;
        }
        // the newest task sent at least 20 ms before it arrived (a send in flight may not count)
        long newestSent = -1;
        for (int t = sentAt.length - 1; t >= 0; t--) {
          if (sentAt[t] != 0 && sentAt[t] <= g[0] - 20_000_000L) {
            newestSent = t;
            break;
          }
        }
        if (g[1] >= newestSent) {
          newest++;
        }
      }
      r.row("seed 002: tasks sent (" + rate + "/s for " + seconds + " s)", sentAt.length);
      r.row("seed 002: deliveries", got.size());
      r.row("seed 002: most requests at once", receiver.maxInFlight.get());
      r.row("seed 002: most deliveries in any 1 s", maxWindow);
      r.row("seed 002: deliveries of the newest task sent by then", newest);
      r.row("seed 002: tasks delivered twice", twice);
      post(http, base, "/v1/queues/legacy/subscriptions/validator/pause", "");

      // a receiver answering 503 for a while, then healthy: 50/s allowed, concurrency 4, burst 5
      receiver.reset();
      int flaky = Math.min(1_000, messages);
      post(http, base, "/v1/queues", "{\"name\":\"flaky\"}");
      fill(http, base, "flaky", flaky);
      long downFrom = System.nanoTime();
      receiver.downUntil = downFrom + outage * 1_000_000_000L;
      post(
          http,
          base,
          "/v1/queues/flaky/subscriptions",
          "{\"name\":\"flaky\",\"url\":\""
              + receiver.url("/flaky")
              + "\",\"maxConcurrent\":4,\"maxPerSecond\":50,\"burst\":5}");
      long give = System.nanoTime() + 120_000_000_000L;
      while (depth(http, base, "flaky") > 0 && System.nanoTime() < give) {
        Thread.sleep(200);
      }
      List<long[]> ok = new ArrayList<>(receiver.seen);
      ok.sort((a, b) -> Long.compare(a[0], b[0]));
      java.util.Set<Long> tasks = new java.util.HashSet<>();
      ok.forEach(g -> tasks.add(g[1]));
      int most = 0;
      for (int i = 0, j = 0; i < ok.size(); i++) {
        while (ok.get(i)[0] - ok.get(j)[0] >= 1_000_000_000L) {
          j++;
        }
        most = Math.max(most, i - j + 1);
      }
      // recovered: the first 1 s window after the outage holding at least 45 deliveries
      double recovered = Double.NaN;
      for (int i = 0, j = 0; i < ok.size(); i++) {
        while (ok.get(i)[0] - ok.get(j)[0] >= 1_000_000_000L) {
          j++;
        }
        if (i - j + 1 >= 45) {
          recovered = round((ok.get(i)[0] - receiver.downUntil) / 1e9);
          break;
        }
      }
      String down = "503 for " + outage + " s: ";
      r.row(down + "requests refused while down", receiver.refused.get());
      r.row(down + "messages sent / delivered", flaky + " / " + tasks.size());
      r.row(down + "left in the queue", depth(http, base, "flaky"));
      r.row(down + "most deliveries in any 1 s after", most);
      r.row(
          down + "seconds after healthy to 45+ a second",
          Double.isNaN(recovered) ? "never" : recovered);
    } finally {
      try (var walk = Files.walk(dir)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    return r;
  }

  private static long depth(HttpClient http, URI base, String queue) throws Exception {
    HttpResponse<String> res =
        http.send(
            HttpRequest.newBuilder(base.resolve("/v1/queues/" + queue + "/stats")).build(),
            HttpResponse.BodyHandlers.ofString());
    Matcher m = Pattern.compile("\"depth\":(\\d+)").matcher(res.body());
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  private static Object cpuPer(OptionalLong before, OptionalLong after, long n) {
    if (before.isEmpty() || after.isEmpty()) {
      return Report.notMeasured("the server's CPU time is not readable here");
    }
    return Math.round((after.getAsLong() - before.getAsLong()) / 1e3 / n * 10) / 10.0;
  }

  private static void fill(HttpClient http, URI base, String queue, int n) throws Exception {
    for (int i = 0; i < n; i += 100) {
      StringBuilder b = new StringBuilder("{\"messages\":[");
      for (int k = 0; k < 100 && i + k < n; k++) {
        b.append(k == 0 ? "" : ",").append("{\"body\":\"m-").append(i + k).append("\"}");
      }
      post(http, base, "/v1/queues/" + queue + "/messages/batch", b.append("]}").toString());
    }
  }

  private static final Pattern RECEIPT = Pattern.compile("\"receipt\":\"([^\"]+)\"");

  private static void consume(HttpClient http, URI base, String queue, int n, int threads)
      throws Exception {
    AtomicLong left = new AtomicLong(n);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  while (left.get() > 0) {
                    String got =
                        post(
                            http,
                            base,
                            "/v1/queues/" + queue + "/receive",
                            "{\"maxMessages\":1,\"waitTimeSeconds\":1}");
                    Matcher m = RECEIPT.matcher(got);
                    if (m.find()) {
                      post(
                          http, base, "/v1/queues/" + queue + "/leases/" + m.group(1) + "/ack", "");
                      left.decrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static String post(HttpClient http, URI base, String path, String json)
      throws IOException, InterruptedException {
    HttpResponse<String> a =
        http.send(
            HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (a.statusCode() / 100 != 2) {
      throw new IllegalStateException(path + ": " + a.statusCode() + " " + a.body());
    }
    return a.body();
  }

  private static double round(double v) {
    return Math.round(v);
  }

  static String fmt(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
