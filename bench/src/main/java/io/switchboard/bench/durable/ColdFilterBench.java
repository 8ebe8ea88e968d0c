package io.switchboard.bench.durable;

import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.queue.SelectorFilter;
import io.switchboard.storage.rocksdb.Durability;
import io.switchboard.storage.rocksdb.OrderIndex;
import io.switchboard.storage.rocksdb.RocksJournal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * A filtered receive of a selective partition behind a cold backlog (docs/design.md, "The hot
 * window of attribute partitions"), in process: an engine on the embedded store with the order
 * index and a hot window, one queue indexing {@code tier}, filled to each depth of {@code --depths}
 * with {@code tier = 'basic'} messages of {@code --body} bytes; then {@code --rounds} times: send
 * one {@code tier = 'vip'} message (it lands behind the backlog, cold) and time the receive of
 * {@code tier = 'vip'} that gets it, then ack it. Reports the receive's p50 and p99 at each depth,
 * and the ratio of the deepest p50 to the shallowest.
 *
 * <p>{@code ColdFilterBench [--depths 10000,1000000] [--window 10000] [--body 1024] [--rounds 2000]
 * [--dir PARENT] [--out DIR]}. The store writes with {@code durability=none} (the fill is not what
 * is measured).
 */
public final class ColdFilterBench {

  static final String ENTRY = "backlog-filtered";

  private ColdFilterBench() {}

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    long[] depths = {10_000, 1_000_000};
    int window = 10_000;
    int body = 1024;
    int rounds = 2000;
    Path parent = Path.of(System.getProperty("java.io.tmpdir"));
    String[] a = ra.rest();
    for (int i = 0; i < a.length; i++) {
      String v = i + 1 < a.length ? a[i + 1] : "";
      switch (a[i]) {
        case "--depths" ->
            depths =
                Arrays.stream(v.split(","))
                    .mapToLong(s -> Long.parseLong(s.replace("_", "")))
                    .toArray();
        case "--window" -> window = Integer.parseInt(v);
        case "--body" -> body = Integer.parseInt(v);
        case "--rounds" -> rounds = Integer.parseInt(v);
        case "--dir" -> parent = Path.of(v);
        default -> throw new IllegalArgumentException("unknown option " + a[i]);
      }
      i++;
    }
    Report report =
        Report.create(
            ENTRY,
            "Filtered receive of a selective partition behind a cold backlog, window " + window,
            "figure",
            "value");
    byte[] pool = BacklogBench.pool();
    double first = 0;
    double last = 0;
    for (long depth : depths) {
      Path dir = DurableSendBench.tempDir(parent, "cold-filter-");
      try (QueueEngine engine =
          QueueEngine.builder()
              .journal(RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED))
              .hotWindow(window)
              .build()) {
        engine.createQueue("q", QueueConfig.builder().indexedAttributes(Set.of("tier")).build());
        List<NewMessage> batch = new ArrayList<>(10);
        for (long i = 0; i < depth; i++) {
          int at = (int) ((i * 7919) % (pool.length - body));
          batch.add(
              NewMessage.builder(new String(pool, at, body, StandardCharsets.US_ASCII))
                  .attribute("tier", "basic")
                  .build());
          if (batch.size() == 10) {
            engine.sendBatch("q", batch);
            batch.clear();
          }
        }
        if (!batch.isEmpty()) {
          engine.sendBatch("q", batch);
        }
        ReceiveRequest vip =
            ReceiveRequest.builder()
                .maxMessages(1)
                .filter(SelectorFilter.parse("tier = 'vip'"))
                .build();
        long[] nanos = new long[rounds];
        for (int r = 0; r < rounds; r++) {
          engine.send("q", NewMessage.builder("vip " + r).attribute("tier", "vip").build());
          long t0 = System.nanoTime();
          List<Message> got = engine.receive("q", vip);
          nanos[r] = System.nanoTime() - t0;
          if (got.size() != 1) {
            throw new IllegalStateException("round " + r + " received " + got.size());
          }
          engine.ack("q", got.get(0).receipt().orElseThrow());
        }
        Arrays.sort(nanos);
        double p50 = nanos[rounds / 2] / 1000.0;
        double p99 = nanos[rounds * 99 / 100] / 1000.0;
        report.row("p50 filtered receive at depth " + depth + " (µs)", round(p50));
        report.row("p99 filtered receive at depth " + depth + " (µs)", round(p99));
        report.row(
            "server heap of the queue at depth " + depth + " (queued bytes, KiB)",
            engine.queuedBytes("q") / 1024);
        if (first == 0) {
          first = p50;
        }
        last = p50;
      } finally {
        DurableSendBench.deleteTree(dir);
      }
    }
    report.row("p50 deepest / p50 shallowest", round(last / first));
    report.write(
        ra.out(), RunInfo.capture(RunInfo.commandLine(ColdFilterBench.class, args)), System.out);
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
