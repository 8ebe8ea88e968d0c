package io.switchboard.bench.limits;

import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The frozen queue of docs/bench-history/limits.md, over HTTP: 20 messages with a 200 KB attribute,
 * two consumers receiving in a loop with {@code s LIKE '%' + 4,000 × '_' + 'X%'} (which matches
 * none of them), and the latency of plain sends to the same queue meanwhile, against one or more
 * server builds, each run in a child JVM of its own ({@code SqsServerMain switchboard} from the
 * given jar), in the same run: {@code --servers
 * before=/path/old-benchmarks.jar,after=bench/target/benchmarks.jar}. Only the native HTTP API is
 * used, so builds of other commits compare.
 */
public final class SelectorStallBench {

  static final String ENTRY = "selector-stall";
  static final String SELECTOR = "s LIKE '%" + "_".repeat(4000) + "X%'";

  private SelectorStallBench() {}

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    List<String[]> servers = new ArrayList<>();
    int sends = 300;
    String[] rest = ra.rest();
    for (int i = 0; i + 1 < rest.length; i += 2) {
      switch (rest[i]) {
        case "--servers" -> {
          for (String s : rest[i + 1].split(",")) {
            servers.add(s.split("=", 2));
          }
        }
        case "--sends" -> sends = Integer.parseInt(rest[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + rest[i]);
      }
    }
    if (servers.isEmpty()) {
      servers.add(new String[] {"this build", "bench/target/benchmarks.jar"});
    }
    Report r =
        Report.create(
                ENTRY,
                "Plain sends while two receives run a pathological LIKE on the same queue",
                "server",
                "selector receives",
                "sends",
                "send p50 µs",
                "send p99 µs",
                "send max µs",
                "selector receives done",
                "load average")
            .note(
                "20 messages with a 200 KB attribute s; receivers loop on "
                    + "s LIKE '%' + 4000 x '_' + 'X%' (wait 0); sends of 5 bytes timed one at a"
                    + " time");
    for (String[] server : servers) {
      run(r, server[0], Path.of(server[1]), sends);
    }
    r.write(
        ra.out(), RunInfo.capture(RunInfo.commandLine(SelectorStallBench.class, args)), System.out);
  }

  static void run(Report r, String name, Path jar, int sends) throws Exception {
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g",
                "-cp",
                jar.toString(),
                "io.switchboard.bench.sqs.SqsServerMain",
                "switchboard")
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = out.readLine()) != null && !line.startsWith("LISTENING ")) {
        // the server's log
      }
      if (line == null) {
        throw new IllegalStateException("the server in " + jar + " did not start");
      }
      URI base = URI.create("http://127.0.0.1:" + line.substring("LISTENING ".length()).trim());
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      post(http, base, "/v1/queues", "{\"name\":\"stall\",\"maxMessageSizeBytes\":262144}");
      String big = "a".repeat(200 * 1024);
      for (int i = 0; i < 20; i++) {
        post(
            http,
            base,
            "/v1/queues/stall/messages",
            "{\"body\":\"x\",\"attributes\":{\"s\":\"" + big + "\"}}");
      }
      sends(http, base, sends); // warm-up
      long[] quiet = sends(http, base, sends);
      r.row(name, 0, sends, p(quiet, 50), p(quiet, 99), p(quiet, 100), 0, load());

      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong receives = new AtomicLong();
      List<Thread> receivers = new ArrayList<>();
      String receive =
          "{\"maxMessages\":10,\"waitTimeSeconds\":0,\"selector\":\"" + SELECTOR + "\"}";
      for (int i = 0; i < 2; i++) {
        receivers.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      while (!stop.get()) {
                        try {
                          post(http, base, "/v1/queues/stall/receive", receive);
                          receives.incrementAndGet();
                        } catch (Exception e) {
                          throw new IllegalStateException(e);
                        }
                      }
                    }));
      }
      while (receives.get() < 2) {
        Thread.onSpinWait(); // both receivers are running
      }
      long[] stalled = sends(http, base, sends);
      stop.set(true);
      for (Thread t : receivers) {
        t.join();
      }
      r.row(
          name, 2, sends, p(stalled, 50), p(stalled, 99), p(stalled, 100), receives.get(), load());
    } finally {
      child.getOutputStream().close(); // the server stops when its input closes
      child.waitFor();
    }
  }

  private static long[] sends(HttpClient http, URI base, int n) throws Exception {
    long[] nanos = new long[n];
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      post(http, base, "/v1/queues/stall/messages", "{\"body\":\"hello\"}");
      nanos[i] = System.nanoTime() - start;
    }
    Arrays.sort(nanos);
    return nanos;
  }

  private static void post(HttpClient http, URI base, String path, String body) throws Exception {
    HttpResponse<String> a =
        http.send(
            HttpRequest.newBuilder(base.resolve(path))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (a.statusCode() >= 300) {
      throw new IllegalStateException(
          "POST "
              + path
              + ": "
              + a.statusCode()
              + " "
              + a.body().substring(0, Math.min(300, a.body().length())));
    }
  }

  private static double p(long[] sorted, int percentile) {
    int i = Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * percentile / 100.0) - 1);
    return Math.round(sorted[Math.max(0, i)] / 100.0) / 10.0;
  }

  private static String load() {
    return RunInfo.loadAverages(Machine.LOCAL);
  }
}
