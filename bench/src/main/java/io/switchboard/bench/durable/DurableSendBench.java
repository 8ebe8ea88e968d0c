package io.switchboard.bench.durable;

import io.switchboard.bench.report.ChartSpec;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.storage.rocksdb.Durability;
import io.switchboard.storage.rocksdb.RocksJournal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

/**
 * Durable send throughput and latency: {@code P} producer threads each send 100-byte messages, one
 * per call, to one queue of the RocksDB-backed engine for a fixed time, for every producer count in
 * {@code sync}, {@code batch} (10 ms) and {@code none} durability, in one run; then the recovery
 * time of a store of a million messages ({@link RecoveryBench}). Prints a table and the sync/none
 * ratio at the highest producer count (the target is at least 50% at 64 producers: group commit
 * should make the fsync nearly free when many sends share it).
 *
 * <pre>
 * ./mvnw -B -q -pl bench -am package -DskipTests
 * java --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar \
 *     io.switchboard.bench.durable.DurableSendBench [--seconds 10] [--messages 1000000] \
 *     [--modes sync,batch,none] [--dir D] [--out DIR]
 * </pre>
 *
 * Each (mode, producers) pair gets a fresh store in a temporary directory under {@code --dir}
 * (default: the system temporary directory; it must be on the disk you want to measure), one second
 * of warm-up, then the measured run. Writes {@code durable.csv} and {@code durable.png} to {@code
 * --out} (default {@code bench/results/durable}).
 */
public final class DurableSendBench {

  /** What to run. */
  public record Options(
      Duration warmUp,
      Duration measure,
      List<Integer> producers,
      List<String> modes,
      int recoveryMessages,
      Path dir) {}

  /** One measured (mode, producers) pair; latencies in microseconds. */
  public record Row(
      String mode,
      int producers,
      long sends,
      double perSecond,
      double p50Micros,
      double p99Micros) {}

  /** Everything one run measured. */
  public record Report(List<Row> rows, RecoveryBench.Result recovery) {

    /** sync throughput over none throughput at {@code producers}. */
    public double syncOverNone(int producers) {
      return perSecond("sync", producers) / perSecond("none", producers);
    }

    double perSecond(String mode, int producers) {
      return rows.stream()
          .filter(r -> r.mode().equals(mode) && r.producers() == producers)
          .findFirst()
          .orElseThrow()
          .perSecond();
    }
  }

  private static final String BODY = "x".repeat(100);

  private DurableSendBench() {}

  static final String ENTRY = "durable";

  public static void main(String[] args) throws IOException {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    Duration measure = Duration.ofSeconds(10);
    int messages = 1_000_000;
    List<String> modes = List.of("sync", "batch", "none");
    Path dir = Path.of(System.getProperty("java.io.tmpdir"));
    String[] a = ra.rest();
    for (int i = 0; i < a.length; i++) {
      switch (a[i]) {
        case "--seconds" -> measure = Duration.ofSeconds(Long.parseLong(a[++i]));
        case "--messages" -> messages = Integer.parseInt(a[++i]);
        case "--modes" -> modes = List.of(a[++i].split(","));
        case "--dir" -> dir = Path.of(a[++i]);
        default ->
            throw new IllegalArgumentException(
                "usage: DurableSendBench [--seconds N] [--messages N] [--modes sync,batch,none]"
                    + " [--dir D] [--out DIR], got "
                    + a[i]);
      }
    }
    for (String m : modes) {
      Durability.parse(m); // fails early, with the allowed values, on a bad mode
    }
    if (!modes.contains("none")) {
      throw new IllegalArgumentException("--modes must include none (the reference), got " + modes);
    }
    Report report =
        run(new Options(Duration.ofSeconds(1), measure, List.of(1, 8, 64), modes, messages, dir));
    System.out.println(format(report));
    report(report)
        .write(
            ra.out(),
            RunInfo.capture(RunInfo.commandLine(DurableSendBench.class, args)),
            System.out);
  }

  /** The run as a report: per (mode, producers) throughput, latency and the ratio to none. */
  public static io.switchboard.bench.report.Report report(Report r) {
    io.switchboard.bench.report.Report out =
        io.switchboard.bench.report.Report.create(
                ENTRY,
                "Durable sends (RocksDB journal), one 100-byte message per send",
                "mode",
                "producers",
                "sends",
                "msg/s",
                "p50 send µs",
                "p99 send µs",
                "of none")
            .note(r.recovery().format().trim())
            .chart(
                ChartSpec.bars(
                    "sends/s by durability", "messages/s", "producers", "mode", "msg/s"));
    for (Row row : r.rows()) {
      out.row(
          row.mode(),
          row.producers(),
          row.sends(),
          row.perSecond(),
          row.p50Micros(),
          row.p99Micros(),
          row.perSecond() / r.perSecond("none", row.producers()));
    }
    return out;
  }

  public static Report run(Options options) {
    List<Row> rows = new ArrayList<>();
    for (String mode : options.modes()) {
      for (int producers : options.producers()) {
        rows.add(measure(mode, producers, options));
        System.out.println(format(rows.getLast()));
      }
    }
    RecoveryBench.Result recovery = RecoveryBench.run(options.recoveryMessages(), options.dir());
    return new Report(rows, recovery);
  }

  static Row measure(String mode, int producers, Options options) {
    Path store = tempDir(options.dir(), "durable-send-" + mode + "-" + producers + "-");
    try (QueueEngine engine =
        QueueEngine.builder().journal(RocksJournal.open(store, Durability.parse(mode))).build()) {
      engine.createQueue("bench", QueueConfig.defaults());
      drive(engine, producers, options.warmUp());
      return summarize(mode, producers, drive(engine, producers, options.measure()), options);
    } finally {
      deleteTree(store);
    }
  }

  /** Runs {@code producers} threads for {@code duration}; returns each thread's latencies (ns). */
  private static long[][] drive(QueueEngine engine, int producers, Duration duration) {
    long[][] latencies = new long[producers][];
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    long[] end = new long[1];
    for (int p = 0; p < producers; p++) {
      int id = p;
      threads.add(
          Thread.ofPlatform()
              .name("producer-" + p)
              .start(
                  () -> {
                    long[] samples = new long[1 << 14];
                    int n = 0;
                    NewMessage message = NewMessage.of(BODY);
                    awaitQuietly(start);
                    long deadline = end[0];
                    while (true) {
                      long t0 = System.nanoTime();
                      if (t0 >= deadline) {
                        break;
                      }
                      engine.send("bench", message);
                      if (n == samples.length) {
                        samples = Arrays.copyOf(samples, n * 2);
                      }
                      samples[n++] = System.nanoTime() - t0;
                    }
                    latencies[id] = Arrays.copyOf(samples, n);
                  }));
    }
    end[0] = System.nanoTime() + duration.toNanos();
    start.countDown();
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    return latencies;
  }

  private static Row summarize(String mode, int producers, long[][] perThread, Options options) {
    long[] all = Arrays.stream(perThread).flatMapToLong(Arrays::stream).sorted().toArray();
    double seconds = options.measure().toNanos() / 1e9;
    return new Row(
        mode,
        producers,
        all.length,
        all.length / seconds,
        percentile(all, 0.50) / 1e3,
        percentile(all, 0.99) / 1e3);
  }

  private static double percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }

  public static String format(Row r) {
    return String.format(
        Locale.ROOT,
        "| %-4s | %9d | %10.0f | %12.1f | %12.1f |",
        r.mode(),
        r.producers(),
        r.perSecond(),
        r.p50Micros(),
        r.p99Micros());
  }

  public static String format(Report report) {
    StringBuilder out = new StringBuilder();
    out.append("| mode | producers |    msgs/s  | p50 send µs  | p99 send µs  |\n");
    out.append("|------|-----------|------------|--------------|--------------|\n");
    report.rows().forEach(r -> out.append(format(r)).append('\n'));
    int most = report.rows().stream().mapToInt(Row::producers).max().orElseThrow();
    out.append(
        String.format(
            Locale.ROOT,
            "%nsync/none at %d producers: %.0f%% (target >= 50%%)%n",
            most,
            100 * report.syncOverNone(most)));
    out.append(report.recovery().format());
    return out.toString();
  }

  static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static Path tempDir(Path parent, String prefix) {
    try {
      Files.createDirectories(parent);
      return Files.createTempDirectory(parent, prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
