package io.switchboard.bench.limits;

import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * How many idle connections and routing event streams one server holds at its default caps, and the
 * latency of other clients' requests meanwhile (docs/bench-history/limits.md): a native send on a
 * queue, timed one at a time from a client of its own, with nothing else open, with the connections
 * held, and with the streams held. The clients are in this JVM, on loopback addresses {@code
 * 127.0.0.1..4} (the caps are per address too), so this process holds both ends of every
 * connection: its file descriptor limit, not the server, bounds the connections tried ({@code
 * --connections}). The heap each held connection or stream costs is the heap in use after full
 * collections, over the baseline, divided by what is held; it includes the client's end, so it
 * overstates the server's share.
 */
public final class CapsBench {

  static final String ENTRY = "caps";

  private CapsBench() {}

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    int connections = 8_000;
    int streams = 2_000;
    int requests = 2_000;
    String[] rest = ra.rest();
    for (int i = 0; i + 1 < rest.length; i += 2) {
      switch (rest[i]) {
        case "--connections" -> connections = Integer.parseInt(rest[i + 1]);
        case "--streams" -> streams = Integer.parseInt(rest[i + 1]);
        case "--requests" -> requests = Integer.parseInt(rest[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + rest[i]);
      }
    }
    Report report =
        run(connections, streams, requests)
            .note(
                "default caps: max-connections 10000, max-connections-per-address 2500,"
                    + " max-event-streams 2000, max-event-streams-per-key 500; clients from"
                    + " 127.0.0.1..4; sends timed one at a time from another client");
    report.write(ra.out(), RunInfo.capture(RunInfo.commandLine(CapsBench.class, args)), System.out);
  }

  static Report run(int connections, int streams, int requests) throws Exception {
    Report r =
        Report.create(
            ENTRY,
            "Connections and event streams held at the default caps, and other clients' sends",
            "scenario",
            "tried",
            "held",
            "refused",
            "send p50 µs",
            "send p99 µs",
            "send max µs",
            "heap per held KB",
            "load average");
    List<Socket> open = new ArrayList<>();
    try (SwitchboardServer server =
        SwitchboardServer.start(
            ServerConfig.resolve(Map.of("port", "0", "in-memory", "true"), Map.of()))) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      URI base = server.uri();
      send(http, base, "POST", "/v1/queues", "{\"name\":\"bench\"}");
      sends(http, base, requests); // warm-up
      long[] idle = sends(http, base, requests);
      long baseHeap = usedHeapAfterGc();
      r.row("nothing else open", 0, 0, 0, p(idle, 50), p(idle, 99), p(idle, 100), 0, load());

      for (int i = 0; i < connections; i++) {
        open.add(connect(base, "127.0.0." + (1 + i % 4)));
      }
      long[] withConnections = sends(http, base, requests);
      // the server's count, less the measuring client's own connection
      int held = (int) metric(http, base, "switchboard_limit_used{limit=\"max-connections\"} ") - 1;
      double connectionKb = (usedHeapAfterGc() - baseHeap) / 1024.0 / Math.max(1, held);
      r.row(
          "idle connections",
          connections,
          held,
          connections - held,
          p(withConnections, 50),
          p(withConnections, 99),
          p(withConnections, 100),
          Math.round(connectionKb * 10) / 10.0,
          load());
      for (Socket s : open) {
        s.close();
      }
      open.clear();

      int streaming = 0;
      int tried = streams + streams / 10; // some over the cap
      for (int i = 0; i < tried; i++) {
        Socket s = connect(base, "127.0.0." + (1 + i % 4));
        open.add(s);
        s.getOutputStream()
            .write(
                "GET /v1/routing/events HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
        if (statusOk(s)) {
          streaming++;
        } else {
          s.close();
        }
      }
      long[] withStreams = sends(http, base, requests);
      double streamKb = (usedHeapAfterGc() - baseHeap) / 1024.0 / Math.max(1, streaming);
      r.row(
          "routing event streams",
          tried,
          streaming,
          tried - streaming,
          p(withStreams, 50),
          p(withStreams, 99),
          p(withStreams, 100),
          Math.round(streamKb * 10) / 10.0,
          load());
    } finally {
      for (Socket s : open) {
        s.close();
      }
    }
    return r;
  }

  private static Socket connect(URI base, String local) throws IOException {
    Socket s = new Socket();
    s.setSoTimeout(30_000);
    s.bind(new InetSocketAddress(local, 0));
    s.connect(new InetSocketAddress(base.getHost(), base.getPort()), 30_000);
    return s;
  }

  /** A figure of {@code /metrics}: the value on the line that starts with {@code prefix}. */
  private static double metric(HttpClient http, URI base, String prefix) throws Exception {
    String text =
        http.send(
                HttpRequest.newBuilder(base.resolve("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return text.lines()
        .filter(l -> l.startsWith(prefix))
        .mapToDouble(l -> Double.parseDouble(l.substring(prefix.length()).trim()))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no " + prefix + "in /metrics"));
  }

  /** Reads the status line: true for 200 (a stream started). */
  private static boolean statusOk(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    StringBuilder line = new StringBuilder();
    for (int b; (b = in.read()) >= 0 && b != '\n'; ) {
      line.append((char) b);
    }
    return line.toString().startsWith("HTTP/1.1 200");
  }

  private static long[] sends(HttpClient http, URI base, int n) throws Exception {
    long[] nanos = new long[n];
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      send(http, base, "POST", "/v1/queues/bench/messages", "{\"body\":\"hello\"}");
      nanos[i] = System.nanoTime() - start;
    }
    Arrays.sort(nanos);
    return nanos;
  }

  private static void send(HttpClient http, URI base, String method, String path, String body)
      throws Exception {
    HttpResponse<String> a =
        http.send(
            HttpRequest.newBuilder(base.resolve(path))
                .method(method, HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (a.statusCode() >= 300) {
      throw new IllegalStateException(method + " " + path + ": " + a.statusCode() + " " + a.body());
    }
  }

  private static double p(long[] sorted, int percentile) {
    int i = Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * percentile / 100.0) - 1);
    return Math.round(sorted[Math.max(0, i)] / 100.0) / 10.0;
  }

  /**
   * Heap in use after a few full collections: the difference over a baseline, divided by what is
   * held, is the heap each costs (both ends, since the clients are in this JVM too).
   */
  private static long usedHeapAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }

  private static String load() {
    return RunInfo.loadAverages(Machine.LOCAL);
  }
}
