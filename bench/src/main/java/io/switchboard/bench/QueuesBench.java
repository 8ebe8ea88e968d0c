package io.switchboard.bench;

import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.storage.postgres.PostgresQueueEngine;
import io.switchboard.storage.rocksdb.Durability;
import io.switchboard.storage.rocksdb.OrderIndex;
import io.switchboard.storage.rocksdb.RocksJournal;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * Many queues on one engine, in this process (no HTTP): the heap an idle queue costs after full
 * collections, how fast 8 threads create queues, what one metrics overview ({@code
 * QueueEngine.overview(100)}, a scrape's pass over every queue) and the first page of {@code
 * listQueues} take, one busy queue's send-receive-ack latency among them against among 10 queues,
 * and on RocksDB (with the order index and the default hot window, as the server opens it) the time
 * to reopen the store with all of them. PostgreSQL (embedded) is measured for creation and pages
 * with {@code --pg-queues} queues (0 to skip).
 *
 * <pre>
 * bench/run.sh queues --queues 200000 --pg-queues 20000
 * bench/run.sh queues --queues 1000000 --pg-queues 0 --engines rocksdb
 * </pre>
 */
public final class QueuesBench {

  static final String ENTRY = "queues";
  private static final int THREADS = 8;

  private QueuesBench() {}

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    int queues = 200_000;
    int pgQueues = 20_000;
    int roundTrips = 20_000;
    List<String> engines = List.of("memory", "rocksdb");
    String[] rest = ra.rest();
    for (int i = 0; i + 1 < rest.length; i += 2) {
      switch (rest[i]) {
        case "--queues" -> queues = Integer.parseInt(rest[i + 1]);
        case "--pg-queues" -> pgQueues = Integer.parseInt(rest[i + 1]);
        case "--round-trips" -> roundTrips = Integer.parseInt(rest[i + 1]);
        case "--engines" -> engines = List.of(rest[i + 1].split(","));
        default -> throw new IllegalArgumentException("unknown option " + rest[i]);
      }
    }
    for (String e : engines) {
      if (!e.equals("memory") && !e.equals("rocksdb")) {
        throw new IllegalArgumentException("--engines takes memory and/or rocksdb, got " + e);
      }
    }
    Report r = run(queues, pgQueues, roundTrips, engines);
    r.write(ra.out(), RunInfo.capture(RunInfo.commandLine(QueuesBench.class, args)), System.out);
  }

  /**
   * Measures {@code queues} queues on the memory and RocksDB engines (and 10 for the latency
   * baseline), and {@code pgQueues} on PostgreSQL (0: not), {@code roundTrips} round trips each.
   */
  static Report run(int queues, int pgQueues, int roundTrips, List<String> engines)
      throws Exception {
    Report r =
        Report.create(
                ENTRY,
                "Many idle queues on one engine (in process)",
                "engine",
                "queues",
                "heap per queue B",
                "creates/s (8 threads)",
                "overview(100) ms",
                "first page of 1000 ms",
                "busy queue p50 µs",
                "busy queue p99 µs",
                "reopen s",
                "of which the store's load() s",
                "GC pauses in the reopen s",
                "heap per queue after reopen B",
                "load average")
            .note(
                "in process, no HTTP: engine calls only; a round trip is send, receive, ack of one"
                    + " message on one queue among the others; heap after full collections, the"
                    + " engine's queues only (the run's other objects measured before and"
                    + " subtracted); max heap "
                    + Runtime.getRuntime().maxMemory() / (1 << 20)
                    + " MiB");

    // the baseline: 10 queues
    for (String kind : engines) {
      Path dir = Files.createTempDirectory("sb-queues-");
      try (QueueEngine few = open(kind, dir, 10)) {
        create(few, 10);
        long[] lat = roundTrips(few, name(5), roundTrips);
        r.row(kind, 10, "", "", "", "", p(lat, 50), p(lat, 99), "", "", "", "", load());
      }
      deleteTree(dir);
    }
    for (String kind : engines) {
      Path dir = Files.createTempDirectory("sb-queues-");
      long before = HeapPerMessage.usedHeapAfterGc();
      Many m = many(kind, dir, queues, roundTrips, before);
      String reopen = "";
      String load = "";
      String reopenGc = "";
      String reopenHeap = "";
      if (kind.equals("rocksdb")) {
        // the store's part alone: open and load(), the pass over the queues and the order index
        // (the engine's part is making the queues from it)
        HeapPerMessage.usedHeapAfterGc();
        long l0 = System.nanoTime();
        try (RocksJournal journal =
            RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED)) {
          int loaded = 0;
          for (var q : journal.load().queues()) { // decoded as iterated: count them all
            loaded++;
          }
          load = String.format(Locale.ROOT, "%.1f", (System.nanoTime() - l0) / 1e9);
          if (loaded != queues) {
            throw new IllegalStateException("loaded " + loaded);
          }
        }
        // the first engine is closed and unreachable by now: collect it before timing the reopen,
        // so that a million queues' worth of garbage is not collected during it
        HeapPerMessage.usedHeapAfterGc();
        long r0 = System.nanoTime();
        long gc0 = gcMillis();
        try (QueueEngine again = open(kind, dir, queues)) {
          reopen = String.format(Locale.ROOT, "%.1f", (System.nanoTime() - r0) / 1e9);
          reopenGc = String.format(Locale.ROOT, "%.1f", (gcMillis() - gc0) / 1e3);
          if (again.overview(0).queues() != queues) {
            throw new IllegalStateException("reopened with " + again.overview(0).queues());
          }
          reopenHeap =
              String.valueOf(Math.max(0, HeapPerMessage.usedHeapAfterGc() - before) / queues);
        }
      }
      double rate = m.rate();
      long perQueue = m.perQueue();
      double overview = m.overview();
      double page = m.page();
      long[] lat = m.lat();
      r.row(
          kind,
          queues,
          perQueue,
          Math.round(rate),
          fmt(overview),
          fmt(page),
          p(lat, 50),
          p(lat, 99),
          reopen,
          load,
          reopenGc,
          reopenHeap,
          load());
      deleteTree(dir);
    }
    if (pgQueues > 0) {
      try (EmbeddedPostgres pg = EmbeddedPostgres.builder().start()) {
        String url = pg.getJdbcUrl("postgres", "postgres");
        try (PostgresQueueEngine engine =
            PostgresQueueEngine.builder()
                .url(url, "postgres", "postgres")
                .poolSize(THREADS + 2)
                .maxQueues(Math.max(pgQueues, 10))
                .build()) {
          long t0 = System.nanoTime();
          create(engine, pgQueues);
          double rate = pgQueues / ((System.nanoTime() - t0) / 1e9);
          double overview = timeMillis(() -> engine.overview(100));
          double page = timeMillis(() -> engine.listQueues("", "", 1000));
          long[] lat = roundTrips(engine, name(pgQueues / 2), roundTrips);
          r.row(
              "postgres (embedded)",
              pgQueues,
              "",
              Math.round(rate),
              fmt(overview),
              fmt(page),
              p(lat, 50),
              p(lat, 99),
              "",
              "",
              "",
              "",
              load());
        }
      }
    }
    return r;
  }

  /** What {@link #many} measured. */
  private record Many(double rate, long perQueue, double overview, double page, long[] lat) {}

  /**
   * Creates {@code queues} queues on a new engine and measures it, then closes it (so that a reopen
   * does not run beside it in the heap).
   */
  private static Many many(String kind, Path dir, int queues, int roundTrips, long before)
      throws Exception {
    try (QueueEngine engine = open(kind, dir, queues)) {
      long t0 = System.nanoTime();
      create(engine, queues);
      double rate = queues / ((System.nanoTime() - t0) / 1e9);
      long used = HeapPerMessage.usedHeapAfterGc();
      long perQueue = (used - before) / queues;
      double overview = timeMillis(() -> engine.overview(100));
      double page = timeMillis(() -> engine.listQueues("", "", 1000));
      long[] lat = roundTrips(engine, name(queues / 2), roundTrips);
      return new Many(rate, perQueue, overview, page, lat);
    }
  }

  private static QueueEngine open(String kind, Path dir, int maxQueues) {
    QueueEngine.Builder b = QueueEngine.builder().maxQueues(Math.max(maxQueues, 10));
    if (kind.equals("rocksdb")) {
      // as the server opens it with its default hot window: with the order index, so a restart
      // reads each queue's counts from it in one ordered pass (docs/design.md, "Recovery does not
      // read the backlog")
      b.journal(RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED));
    }
    return b.build();
  }

  static String name(int i) {
    return String.format(Locale.ROOT, "q-%07d", i);
  }

  private static void create(QueueEngine engine, int n) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int first = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = first; i < n; i += THREADS) {
                    engine.createQueue(name(i), QueueConfig.defaults());
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  /** Send, receive and ack one message, {@code n} times (a tenth more first, as warm-up). */
  private static long[] roundTrips(QueueEngine engine, String queue, int n) {
    ReceiveRequest one = ReceiveRequest.max(1);
    long[] nanos = new long[n];
    for (int i = -n / 10; i < n; i++) {
      long t0 = System.nanoTime();
      engine.send(queue, NewMessage.of("m"));
      List<Message> got = engine.receive(queue, one);
      engine.ack(queue, got.get(0).receipt().orElseThrow());
      if (i >= 0) {
        nanos[i] = System.nanoTime() - t0;
      }
    }
    Arrays.sort(nanos);
    return nanos;
  }

  private static double timeMillis(Supplier<?> work) {
    work.get(); // warm-up
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      long t0 = System.nanoTime();
      work.get();
      best = Math.min(best, System.nanoTime() - t0);
    }
    return best / 1e6;
  }

  private static String p(long[] sorted, int percentile) {
    int i = Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * percentile / 100.0) - 1);
    return fmt(sorted[Math.max(0, i)] / 1e3);
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  /** Time the collectors spent so far, as they report it (G1: its pauses). */
  private static long gcMillis() {
    long total = 0;
    for (java.lang.management.GarbageCollectorMXBean b :
        java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, b.getCollectionTime());
    }
    return total;
  }

  private static Object load() {
    return RunInfo.loadAverages(Machine.LOCAL);
  }

  private static void deleteTree(Path dir) throws java.io.IOException {
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
