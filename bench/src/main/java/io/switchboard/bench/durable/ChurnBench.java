package io.switchboard.bench.durable;

import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.bench.sqs.ChildServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bench/run.sh churn}: a steady backlog under churn on the embedded store, to show that the
 * disk the store uses stays proportional to what waits (docs/design.md, "Limits and sizing"). A
 * server in its own JVM (hot window at its default) gets one FIFO queue filled with {@code
 * --backlog} messages of {@code --body} bytes; then for {@code --minutes} one producer sends {@code
 * --rate} messages a second (batches of 10) while one consumer receives and acks as many (batches
 * of up to 100: with 10, one thread of this JVM's HTTP client took about 60 ms a receive and ack
 * and fell behind at 165 msg/s, while the server answered each in 2 to 4 ms), so every message of
 * the backlog is replaced every backlog/rate seconds and the store must reclaim what was acked.
 * Every {@code --sample-seconds} it reports the messages waiting, the store's bytes on disk and per
 * waiting message, the bytes the server process wrote to the device since the last sample against
 * the message bytes sent meanwhile (the write amplification, from {@code /proc/<pid>/io}), and the
 * server's resident set.
 *
 * <p>{@code ChurnBench [--backlog N] [--rate R] [--minutes M] [--sample-seconds S] [--body BYTES]
 * [--heap 512m] [--dir PARENT] [--out DIR]}.
 */
public final class ChurnBench {

  static final String ENTRY = "churn";
  private static final Pattern RECEIPT = Pattern.compile("\"receipt\":\"([^\"]+)\"");

  private ChurnBench() {}

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    int backlog = 200_000;
    int rate = 1_000;
    double minutes = 30;
    int sampleSeconds = 60;
    int body = 1024;
    String heap = "512m";
    Path parent = Path.of(System.getProperty("java.io.tmpdir"));
    String[] rest = ra.rest();
    for (int i = 0; i + 1 < rest.length; i += 2) {
      String v = rest[i + 1];
      switch (rest[i]) {
        case "--backlog" -> backlog = Integer.parseInt(v.replace("_", ""));
        case "--rate" -> rate = Integer.parseInt(v);
        case "--minutes" -> minutes = Double.parseDouble(v);
        case "--sample-seconds" -> sampleSeconds = Integer.parseInt(v);
        case "--body" -> body = Integer.parseInt(v);
        case "--heap" -> heap = v;
        case "--dir" -> parent = Path.of(v);
        default -> throw new IllegalArgumentException("unknown option " + rest[i]);
      }
    }
    Report report = run(backlog, rate, minutes, sampleSeconds, body, heap, parent);
    report.write(
        ra.out(), RunInfo.capture(RunInfo.commandLine(ChurnBench.class, args)), System.out);
  }

  /**
   * Fills the backlog, churns for {@code minutes} at {@code rate} each way and samples every {@code
   * sampleSeconds}; a row for the fill, then one per sample.
   */
  static Report run(
      int backlog, int rate, double minutes, int sampleSeconds, int body, String heap, Path parent)
      throws Exception {
    Report report =
        Report.create(
                ENTRY,
                "A steady backlog of "
                    + backlog
                    + " × "
                    + body
                    + " B under churn at "
                    + rate
                    + " msg/s each way (-Xmx"
                    + heap
                    + ")",
                "minute",
                "sent",
                "acked",
                "waiting",
                "store on disk MiB",
                "disk B per waiting message",
                "write amplification",
                "server RSS MiB",
                "load average")
            .note(
                "write amplification: bytes the server process wrote to the device (/proc/<pid>/io"
                    + " write_bytes, WAL and table files alike) over the message bytes sent in the"
                    + " same interval; the first row is the fill");
    Path dir = DurableSendBench.tempDir(parent, "churn-");
    Path log = Files.createTempFile("churn-server", ".log");
    List<String> settings = List.of("data-dir=" + dir, "durability=batch", "max-batch=100");
    List<String> jvm = List.of("-Xmx" + heap, "--enable-native-access=ALL-UNNAMED");
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    byte[] pool = BacklogBench.pool();
    try (ChildServer server =
        ChildServer.start("switchboard", BacklogServerMain.class, settings, jvm, log)) {
      URI uri = server.uri;
      BacklogBench.post(http, uri, "/v1/queues", "{\"name\":\"churn\"}", 201);
      Random random = new Random(7);
      long written0 = BacklogBench.writeBytes(server.pid);
      for (int sent = 0; sent < backlog; sent += 100) {
        sendBatch(http, uri, Math.min(100, backlog - sent), body, pool, random);
      }
      long written = BacklogBench.writeBytes(server.pid);
      sample(
          report, 0, backlog, 0, backlog, dir, written - written0, (long) backlog * body, server);

      AtomicLong sent = new AtomicLong();
      AtomicLong acked = new AtomicLong();
      AtomicReference<Throwable> failed = new AtomicReference<>();
      long start = System.nanoTime();
      long end = start + (long) (minutes * 60e9);
      int perSecond = rate;
      int bodyBytes = body;
      Thread producer =
          Thread.ofPlatform()
              .start(
                  paced(
                      start,
                      end,
                      perSecond,
                      10,
                      failed,
                      () -> {
                        sendBatch(http, uri, 10, bodyBytes, pool, random);
                        sent.addAndGet(10);
                      }));
      Thread consumer =
          Thread.ofPlatform()
              .start(
                  paced(
                      start, end, perSecond, TAKE, failed, () -> acked.addAndGet(take(http, uri))));
      long lastSent = 0;
      for (int s = 1; System.nanoTime() < end && failed.get() == null; s++) {
        long next = start + s * (long) sampleSeconds * 1_000_000_000L;
        while (System.nanoTime() < Math.min(next, end) && failed.get() == null) {
          Thread.sleep(200);
        }
        long now = BacklogBench.writeBytes(server.pid);
        long sentNow = sent.get();
        sample(
            report,
            (System.nanoTime() - start) / 60e9,
            sentNow,
            acked.get(),
            backlog + sentNow - acked.get(),
            dir,
            now - written,
            (sentNow - lastSent) * body,
            server);
        written = now;
        lastSent = sentNow;
      }
      producer.join();
      consumer.join();
      if (failed.get() != null) {
        throw new IllegalStateException("the churn failed", failed.get());
      }
    } finally {
      DurableSendBench.deleteTree(dir);
    }
    report.note("server log: " + log);
    return report;
  }

  private interface Step {
    void run() throws Exception;
  }

  /**
   * Runs {@code step} (of {@code batch} messages) {@code perSecond / batch} times a second until
   * {@code end}; a step that falls behind runs at once, and none starts after {@code end}.
   */
  private static Runnable paced(
      long start,
      long end,
      int perSecond,
      int batch,
      AtomicReference<Throwable> failed,
      Step step) {
    return () -> {
      long interval = batch * 1_000_000_000L / perSecond;
      try {
        for (long due = start;
            due < end && System.nanoTime() < end && failed.get() == null;
            due += interval) {
          long wait = due - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
          step.run();
        }
      } catch (Throwable t) {
        failed.compareAndSet(null, t);
      }
    };
  }

  private static void sample(
      Report report,
      double minute,
      long sent,
      long acked,
      long waiting,
      Path dir,
      long writtenBytes,
      long payloadBytes,
      ChildServer server)
      throws IOException {
    long disk = BacklogBench.sizeOf(dir);
    report.row(
        String.format(java.util.Locale.ROOT, "%.1f", minute),
        sent,
        acked,
        waiting,
        BacklogBench.mib(disk),
        Math.round(disk / (double) Math.max(1, waiting)),
        writtenBytes < 0 || payloadBytes == 0
            ? Report.notMeasured("no /proc/<pid>/io here, or nothing sent")
            : (Object) (Math.round(writtenBytes * 10.0 / payloadBytes) / 10.0),
        BacklogBench.mib(BacklogBench.rss(server.pid)),
        RunInfo.loadAverages(Machine.LOCAL));
    System.err.println("churn: minute " + minute + ", waiting " + waiting + ", disk " + disk);
  }

  private static void sendBatch(
      HttpClient http, URI uri, int count, int body, byte[] pool, Random r) throws Exception {
    StringBuilder b = new StringBuilder(count * (body + 16)).append("{\"messages\":[");
    for (int i = 0; i < count; i++) {
      int at;
      synchronized (r) {
        at = r.nextInt(pool.length - body);
      }
      b.append(i == 0 ? "" : ",")
          .append("{\"body\":\"")
          .append(new String(pool, at, body, StandardCharsets.US_ASCII))
          .append("\"}");
    }
    String json = b.append("]}").toString();
    while (true) {
      HttpResponse<String> a =
          BacklogBench.send(http, uri, "/v1/queues/churn/messages/batch", json);
      if (a.statusCode() == 201) {
        return;
      }
      if (a.statusCode() != 429 && a.statusCode() != 503) {
        throw new IllegalStateException("send: " + a.statusCode() + " " + a.body());
      }
      Thread.sleep(100);
    }
  }

  /** Receives up to 10 and acks what came; how many. */
  /** The most messages one step of the consumer receives and acks. */
  private static final int TAKE = 100;

  private static int take(HttpClient http, URI uri) throws Exception {
    HttpResponse<String> a =
        BacklogBench.send(
            http,
            uri,
            "/v1/queues/churn/receive",
            "{\"maxMessages\":" + TAKE + ",\"visibilityTimeoutSeconds\":300}");
    if (a.statusCode() != 200) {
      throw new IllegalStateException("receive: " + a.statusCode() + " " + a.body());
    }
    Matcher m = RECEIPT.matcher(a.body());
    List<String> receipts = new ArrayList<>();
    while (m.find()) {
      receipts.add('"' + m.group(1) + '"');
    }
    if (receipts.isEmpty()) {
      return 0;
    }
    HttpResponse<String> ack =
        BacklogBench.send(http, uri, "/v1/queues/churn/acks", "{\"receipts\":" + receipts + "}");
    if (ack.statusCode() != 200) {
      throw new IllegalStateException("ack: " + ack.statusCode() + " " + ack.body());
    }
    return receipts.size();
  }
}
