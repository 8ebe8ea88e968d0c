package io.switchboard.bench.durable;

import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.storage.rocksdb.Durability;
import io.switchboard.storage.rocksdb.RocksJournal;
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

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    Path parent = Path.of(args.length > 1 ? args[1] : System.getProperty("java.io.tmpdir"));
    System.out.println(Machine.describe());
    System.out.print(run(n, parent).format());
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
