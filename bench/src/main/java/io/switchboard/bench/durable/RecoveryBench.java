package io.switchboard.bench.durable;

import io.switchboard.bench.report.ChartSpec;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.storage.rocksdb.Durability;
import io.switchboard.storage.rocksdb.RocksJournal;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Recovery time: fills a store with {@code n} messages (100-byte bodies, three attributes) in
 * batches of 1000 with {@code none} durability (the fill is not what is measured), closes it, and
 * times {@code QueueEngine.builder().journal(RocksJournal.open(dir, sync)).build()}: opening
 * RocksDB (replaying its log) and the engine rebuilding every queue from the journal's snapshot.
 */
public final class RecoveryBench {

  /** Times in milliseconds; {@code open} is RocksDB alone, {@code total} includes the rebuild. */
  public record Result(
      int messages, long fillMillis, long openMillis, long totalMillis, long bytes) {

    public String format() {
      return String.format(
          Locale.ROOT,
          "recovery of %,d messages: %.2f s (RocksDB open %.2f s, engine rebuild %.2f s);"
              + " store %.0f MiB; fill took %.1f s%n",
          messages,
          totalMillis / 1e3,
          openMillis / 1e3,
          (totalMillis - openMillis) / 1e3,
          bytes / 1048576.0,
          fillMillis / 1e3);
    }
  }

  private static final String[] LANGUAGES = {"en", "es", "fr", "de", "it", "pt", "nl", "sv"};

  private RecoveryBench() {}

  static final String ENTRY = "recovery";

  /** {@code RecoveryBench [messages] [parent dir] [--out DIR]}. */
  public static void main(String[] args) throws IOException {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    String[] a = ra.rest();
    int n = a.length > 0 ? Integer.parseInt(a[0].replace("_", "")) : 1_000_000;
    Path parent = Path.of(a.length > 1 ? a[1] : System.getProperty("java.io.tmpdir"));
    Result r = run(n, parent);
    System.out.print(r.format());
    report(List.of(r))
        .write(
            ra.out(), RunInfo.capture(RunInfo.commandLine(RecoveryBench.class, args)), System.out);
  }

  /** One row per store size recovered. */
  public static Report report(List<Result> results) {
    Report out =
        Report.create(
                ENTRY,
                "Recovery: reopening a RocksDB store and rebuilding the engine",
                "messages",
                "total s",
                "RocksDB open s",
                "engine rebuild s",
                "store MiB",
                "fill s")
            .chart(ChartSpec.bars("recovery time", "seconds", "messages", null, "total s"));
    for (Result r : results) {
      out.row(
          r.messages(),
          r.totalMillis() / 1e3,
          r.openMillis() / 1e3,
          (r.totalMillis() - r.openMillis()) / 1e3,
          r.bytes() / 1048576.0,
          r.fillMillis() / 1e3);
    }
    return out;
  }

  public static Result run(int n, Path parent) {
    Path dir = DurableSendBench.tempDir(parent, "recovery-");
    try {
      long t0 = System.nanoTime();
      fill(dir, n);
      long fill = System.nanoTime() - t0;
      System.gc();
      long t1 = System.nanoTime();
      RocksJournal journal = RocksJournal.open(dir, Durability.sync());
      long open = System.nanoTime() - t1;
      long bytes = journal.sizeOnDisk();
      try (QueueEngine engine = QueueEngine.builder().journal(journal).build()) {
        long total = System.nanoTime() - t1;
        long depth = engine.stats("recovery").depth();
        if (depth != n) {
          throw new IllegalStateException("recovered " + depth + " of " + n + " messages");
        }
        return new Result(n, fill / 1_000_000, open / 1_000_000, total / 1_000_000, bytes);
      }
    } finally {
      DurableSendBench.deleteTree(dir);
    }
  }

  private static void fill(Path dir, int n) {
    String body = "x".repeat(100);
    try (QueueEngine engine =
        QueueEngine.builder().journal(RocksJournal.open(dir, Durability.none())).build()) {
      engine.createQueue("recovery", QueueConfig.defaults());
      List<NewMessage> batch = new ArrayList<>(1000);
      for (int i = 0; i < n; i++) {
        batch.add(
            NewMessage.builder(body)
                .attribute("language", LANGUAGES[i % LANGUAGES.length])
                .attribute("gender", i % 3 == 0 ? "f" : i % 3 == 1 ? "m" : "x")
                .attribute("tier", AttributeValue.number(i % 5))
                .build());
        if (batch.size() == 1000 || i == n - 1) {
          engine.sendBatch("recovery", batch);
          batch.clear();
        }
      }
    }
  }
}
