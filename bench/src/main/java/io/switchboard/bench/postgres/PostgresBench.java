package io.switchboard.bench.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.switchboard.bench.report.ChartSpec;
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
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Send → receive → ack throughput on one embedded PostgreSQL: the Switchboard engine with one and
 * with two engines (as two servers), against a pgmq-style baseline (one table, the plain {@code FOR
 * UPDATE SKIP LOCKED} claim and a delete per ack, driven from Java over the same pool size) in the
 * same run; then a soak of {@code --soak} messages sent and acked through one engine, and the same
 * through the baseline, with at most {@code --backlog} messages outstanding, and the size of the
 * tables after each, and again after a plain {@code VACUUM}. For each run it also reports what the
 * database executed per message (statements, explicit transactions) and the share of message
 * updates that were HOT, from {@code pg_stat_statements} and the statistics collector, and prints a
 * profile: the statements by execution time, nested ones included, with their WAL and buffers per
 * message ({@link PgStats#profile}).
 *
 * <pre>
 * bench/run.sh postgres [--messages 50000] [--threads 4] [--batch 10] [--rounds 1]
 *                       [--soak 1000000] [--backlog 10000] [--warmup 5000] [--naptime 10]
 *                       [--alternatives 0|1] [--out DIR]
 * </pre>
 *
 * With {@code --alternatives 1} each round also runs the SQL experiments of {@link Alternatives}
 * (the engine's statements without the engine's JVM, and layouts the engine does not use) against
 * the same baseline.
 *
 * <p>Writes {@code postgres.csv}/{@code .png} (throughput) and {@code postgres-soak.csv}/{@code
 * .png} (sizes) under {@code bench/results/postgres} or {@code --out}. Not run by CI; a smoke test
 * runs it with tiny sizes.
 */
public final class PostgresBench {

  static final String ENTRY = "postgres";
  static final String SOAK_ENTRY = "postgres-soak";

  /**
   * The run's sizes.
   *
   * @param messages messages sent and acked per measured run
   * @param threads producer threads, and as many consumer threads, in all (split over the engines)
   * @param batch messages per send and per receive
   * @param rounds how many times the three systems are measured, in turn
   * @param soak messages of the soak through one engine (0: no soak)
   * @param warmup messages through each system before the first round, not measured (JIT, pools)
   * @param backlog during the soak, producers pause while more than this many messages are sent and
   *     not yet acked, so the tables show what churn leaves behind rather than a peak backlog
   * @param naptime the database's {@code autovacuum_naptime} in seconds (PostgreSQL's default is
   *     60; 10 is what docs/deploy.md recommends for a queue database)
   * @param alternatives whether each round also runs the SQL experiments of {@link Alternatives}
   */
  record Options(
      int messages,
      int threads,
      int batch,
      int rounds,
      int soak,
      int warmup,
      int backlog,
      int naptime,
      boolean alternatives) {

    static Options parse(String[] args) {
      int messages = 50_000;
      int threads = 4;
      int batch = 10;
      int rounds = 1;
      int soak = 1_000_000;
      int warmup = 5_000;
      int backlog = 10_000;
      int naptime = 10;
      boolean alternatives = false;
      for (int i = 0; i < args.length; i++) {
        String flag = args[i];
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(flag + " needs a value");
        }
        String v = args[++i];
        switch (flag) {
          case "--messages" -> messages = positive(flag, v, 1, Integer.MAX_VALUE);
          case "--threads" -> threads = positive(flag, v, 1, 256);
          case "--batch" -> batch = positive(flag, v, 1, 10);
          case "--rounds" -> rounds = positive(flag, v, 1, 100);
          case "--soak" -> soak = positive(flag, v, 0, Integer.MAX_VALUE);
          case "--warmup" -> warmup = positive(flag, v, 0, Integer.MAX_VALUE);
          case "--backlog" -> backlog = positive(flag, v, 1, Integer.MAX_VALUE);
          case "--naptime" -> naptime = positive(flag, v, 1, 3600);
          case "--alternatives" -> alternatives = positive(flag, v, 0, 1) == 1;
          default ->
              throw new IllegalArgumentException(
                  "unknown option "
                      + flag
                      + "; options are --messages, --threads, --batch, --rounds, --soak, --warmup,"
                      + " --backlog, --naptime, --alternatives, --out");
        }
      }
      return new Options(
          messages, threads, batch, rounds, soak, warmup, backlog, naptime, alternatives);
    }

    private static int positive(String flag, String value, int min, int max) {
      try {
        int n = Integer.parseInt(value);
        if (n >= min && n <= max) {
          return n;
        }
      } catch (NumberFormatException e) {
        // the message below says what is allowed
      }
      throw new IllegalArgumentException(
          flag + " must be an integer " + min + ".." + max + ", got " + value);
    }
  }

  private PostgresBench() {}

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    Options o = Options.parse(ra.rest());
    run(
        o,
        ra.out(),
        RunInfo.capture(RunInfo.commandLine(PostgresBench.class, args)),
        Machine.LOCAL,
        System.out);
  }

  /**
   * Runs everything and writes the reports into {@code out}; CPU times and load averages are read
   * from {@code machine}, and reported as not measured where it cannot give them.
   */
  static void run(Options o, Path out, RunInfo info, Machine machine, PrintStream log)
      throws Exception {
    log.printf(
        "PostgresBench: %d messages per run, %d producer + %d consumer threads in all,"
            + " batches of %d; autovacuum_naptime %d s%n",
        o.messages(), o.threads(), o.threads(), o.batch(), o.naptime());
    Report throughput =
        Report.create(
                ENTRY,
                "PostgreSQL engine vs pgmq-style baseline: send → receive → ack, same database,"
                    + " same run",
                "round",
                "system",
                "msg/s",
                "× baseline",
                "statements/msg",
                "transactions/msg",
                "updates/msg",
                "HOT share",
                "client CPU µs/msg",
                "server CPU µs/msg",
                "load avg")
            .chart(
                ChartSpec.bars(
                    "Messages sent, received and acked per second",
                    "msg/s",
                    "system",
                    "round",
                    "msg/s"));
    Report soak =
        Report.create(
                SOAK_ENTRY,
                "Table sizes after a soak of " + o.soak() + " messages, engine and baseline",
                "table",
                "when",
                "total MB",
                "heap MB",
                "indexes MB")
            .chart(ChartSpec.bars("Table size", "MB", "when", "table", "total MB"));
    try (EmbeddedPostgres pg =
        EmbeddedPostgres.builder()
            .setServerConfig("shared_preload_libraries", "pg_stat_statements")
            .setServerConfig("pg_stat_statements.track", "all")
            .setServerConfig("autovacuum_naptime", o.naptime() + "s")
            .start()) {
      String url = pg.getJdbcUrl("postgres", "postgres");
      PgStats stats = new PgStats(url);
      stats.install();
      log.println("PostgreSQL " + stats.version());
      if (o.warmup() > 0) {
        Options w =
            new Options(
                o.warmup(), o.threads(), o.batch(), 1, 0, 0, o.backlog(), o.naptime(), false);
        switchboard(url, 1, w, "warmup_one");
        switchboard(url, 2, w, "warmup_two");
        Baseline.run(url, o.warmup(), o.threads(), o.batch(), "pgmq_warmup");
        if (o.alternatives()) {
          for (Alternatives.Variant v : Alternatives.Variant.values()) {
            Alternatives.run(v, url, o.warmup(), o.threads(), o.batch(), "warm_" + v.ordinal());
          }
        }
      }
      for (int r = 1; r <= o.rounds(); r++) {
        String round = Integer.toString(r);
        Measured one =
            measure(
                stats,
                machine,
                () -> switchboard(url, 1, o, "one_" + round),
                "sb_message",
                "round " + round + ", 1 engine",
                o.messages(),
                log);
        Measured two =
            measure(
                stats,
                machine,
                () -> switchboard(url, 2, o, "two_" + round),
                "sb_message",
                "round " + round + ", 2 engines",
                o.messages(),
                log);
        String table = "pgmq_" + round;
        Measured base =
            measure(
                stats,
                machine,
                () -> Baseline.run(url, o.messages(), o.threads(), o.batch(), table),
                table,
                "round " + round + ", baseline",
                o.messages(),
                log);
        row(throughput, round, "switchboard, 1 engine", one, base.rate(), o.messages());
        row(throughput, round, "switchboard, 2 engines", two, base.rate(), o.messages());
        row(throughput, round, "pgmq-style baseline", base, base.rate(), o.messages());
        if (o.alternatives()) {
          for (Alternatives.Variant v : Alternatives.Variant.values()) {
            String queue = "alt" + v.ordinal() + "_" + round;
            Measured m =
                measure(
                    stats,
                    machine,
                    () -> Alternatives.run(v, url, o.messages(), o.threads(), o.batch(), queue),
                    Alternatives.table(v, queue),
                    "round " + round + ", " + v.label,
                    o.messages(),
                    log);
            row(throughput, round, v.label, m, base.rate(), o.messages());
            log.printf(
                "round %d: %s %.0f msg/s (%.2f × baseline)%n",
                r, v.label, m.rate(), m.rate() / base.rate());
          }
        }
        log.printf(
            "round %d: 1 engine %.0f msg/s (%.2f × baseline), 2 engines %.0f msg/s (%.2f ×),"
                + " baseline %.0f msg/s%n",
            r,
            one.rate(),
            one.rate() / base.rate(),
            two.rate(),
            two.rate() / base.rate(),
            base.rate());
      }
      throughput.note(
          "statements and transactions per message acked, from pg_stat_statements; an explicit"
              + " transaction adds its COMMIT round trip; updates and HOT share of the message"
              + " table from pg_stat_user_tables; CPU per message: the benchmark's JVM (engine"
              + " or baseline driver, and the load generator) and the PostgreSQL server (all its"
              + " processes), during the run");
      String server =
          "embedded PostgreSQL "
              + stats.version()
              + " (zonky: fsync off, synchronous_commit=off), autovacuum_naptime="
              + o.naptime()
              + "s";
      throughput.note(server);
      soak.note(server);
      if (o.soak() > 0) {
        soak(url, o, stats, soak, log);
      }
    }
    throughput.write(out, info, log);
    if (o.soak() > 0) {
      soak.write(out, info, log);
    }
  }

  /**
   * A run: messages/s, what the database did, the CPU time both sides used and the load average at
   * its end (each empty if the machine could not give it).
   */
  record Measured(
      double rate,
      PgStats.Work work,
      OptionalLong clientCpuNanos,
      OptionalLong serverCpuNanos,
      OptionalDouble loadAverage) {}

  /** A measured run of something that returns messages/s. */
  @FunctionalInterface
  interface Run {
    double run() throws Exception;
  }

  private static Measured measure(
      PgStats stats,
      Machine machine,
      Run run,
      String table,
      String name,
      int messages,
      PrintStream log)
      throws Exception {
    stats.reset();
    OptionalLong server = stats.serverCpuNanos(machine);
    OptionalLong client = machine.ownCpuNanos();
    double rate = run.run();
    client = Machine.between(client, machine.ownCpuNanos());
    server = Machine.between(server, stats.serverCpuNanos(machine));
    Measured m =
        new Measured(rate, stats.read(table), client, server, oneMinute(machine.loadAverages()));
    log.println("profile of " + name + ", per message acked (pg_stat_statements):");
    for (String line : stats.profile(messages, 8)) {
      log.println(line);
    }
    return m;
  }

  /** The 1-minute figure of {@link Machine#loadAverages}. */
  static OptionalDouble oneMinute(Optional<String> loadAverages) {
    try {
      return loadAverages.isPresent()
          ? OptionalDouble.of(Double.parseDouble(loadAverages.get().split(" ")[0]))
          : OptionalDouble.empty();
    } catch (NumberFormatException e) {
      return OptionalDouble.empty();
    }
  }

  /** Microseconds per message, if the CPU time was measured. */
  private static OptionalDouble perMessage(OptionalLong nanos, int messages) {
    return nanos.isPresent()
        ? OptionalDouble.of(nanos.getAsLong() / 1e3 / messages)
        : OptionalDouble.empty();
  }

  private static void row(
      Report report, String round, String system, Measured m, double base, int messages) {
    PgStats.Work w = m.work();
    report.row(
        round,
        system,
        m.rate(),
        m.rate() / base,
        (double) w.statements() / messages,
        (double) w.transactions() / messages,
        (double) w.updates() / messages,
        w.hotShare(),
        Report.measured(
            perMessage(m.clientCpuNanos(), messages),
            "no CPU time for the benchmark's own JVM on this machine"),
        Report.measured(
            perMessage(m.serverCpuNanos(), messages),
            "no CPU time for the PostgreSQL server's processes on this machine (read from the"
                + " postmaster's process tree in /proc)"),
        Report.measured(m.loadAverage(), "no load average on this machine"));
  }

  /** Producers and consumers spread over {@code engines} engines; returns acked messages/s. */
  static double switchboard(String url, int engines, Options o, String queue) throws Exception {
    List<PostgresQueueEngine> servers = new ArrayList<>();
    for (int i = 0; i < engines; i++) {
      servers.add(
          PostgresQueueEngine.builder()
              .url(url, "postgres", "postgres")
              .poolSize(o.threads() * 2 + 2)
              .build());
    }
    try {
      servers.get(0).createQueue(queue, QueueConfig.defaults());
      int perEngine = Math.max(1, o.threads() / engines);
      List<QueueEngine> sides = new ArrayList<>();
      for (QueueEngine e : servers) {
        for (int t = 0; t < perEngine; t++) {
          sides.add(e);
        }
      }
      return drive(sides, o.messages(), o.batch(), queue, Long.MAX_VALUE);
    } finally {
      servers.forEach(QueueEngine::close);
    }
  }

  /**
   * One producer and one consumer thread per entry of {@code sides}, producers pausing while more
   * than {@code backlog} messages are outstanding; returns acked messages/s.
   */
  private static double drive(
      List<QueueEngine> sides, int messages, int batch, String q, long backlog) throws Exception {
    AtomicLong toSend = new AtomicLong(messages);
    AtomicLong sent = new AtomicLong();
    AtomicLong acked = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(sides.size() * 2);
    long start = System.nanoTime();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (QueueEngine e : sides) {
        done.add(
            pool.submit(
                () -> {
                  while (true) {
                    long left = toSend.getAndAdd(-batch);
                    if (left <= 0) {
                      return null;
                    }
                    awaitBacklog(sent, acked, backlog);
                    List<NewMessage> b = new ArrayList<>(batch);
                    for (int i = 0; i < Math.min(batch, left); i++) {
                      b.add(NewMessage.of("payload-" + i));
                    }
                    e.sendBatch(q, b);
                    sent.addAndGet(b.size());
                  }
                }));
      }
      ReceiveRequest take =
          ReceiveRequest.builder().maxMessages(batch).waitTime(Duration.ofMillis(100)).build();
      for (QueueEngine e : sides) {
        done.add(
            pool.submit(
                () -> {
                  while (acked.get() < messages) {
                    List<Message> got = e.receive(q, take);
                    if (got.isEmpty()) {
                      continue;
                    }
                    // the batch ack, as SQS DeleteMessageBatch and the client's ackBatch use it
                    e.ackAll(q, got.stream().map(m -> m.receipt().orElseThrow()).toList());
                    acked.addAndGet(got.size());
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
    return acked.get() / ((System.nanoTime() - start) / 1e9);
  }

  /** Pauses while more than {@code backlog} messages are sent and not yet acked. */
  static void awaitBacklog(AtomicLong sent, AtomicLong acked, long backlog) {
    while (sent.get() - acked.get() > backlog) {
      LockSupport.parkNanos(200_000);
    }
  }

  /**
   * Sends and acks {@code o.soak()} messages through one engine, then as many through the baseline,
   * and records table sizes after each and after a plain {@code VACUUM}.
   */
  private static void soak(String url, Options o, PgStats stats, Report report, PrintStream log)
      throws Exception {
    stats.reset();
    double rate;
    try (PostgresQueueEngine engine =
        PostgresQueueEngine.builder()
            .url(url, "postgres", "postgres")
            .poolSize(o.threads() * 2 + 2)
            .build()) {
      engine.createQueue("soak", QueueConfig.defaults());
      List<QueueEngine> sides = new ArrayList<>();
      for (int t = 0; t < o.threads(); t++) {
        sides.add(engine);
      }
      rate = drive(sides, o.soak(), o.batch(), "soak", o.backlog());
    }
    PgStats.Work w = stats.read("sb_message");
    sizes(report, stats, SOAK_TABLES, "right after its soak");
    stats.reset();
    double base = Baseline.run(url, o.soak(), o.threads(), o.batch(), BASELINE_SOAK, o.backlog());
    PgStats.Work wb = stats.read(BASELINE_SOAK);
    sizes(report, stats, List.of(BASELINE_SOAK), "right after its soak");
    for (String line :
        List.of(
            soakLine("switchboard, 1 engine", o, rate, w),
            soakLine("pgmq-style baseline", o, base, wb))) {
      log.println(line);
      report.note(line);
    }
    List<String> all = new ArrayList<>(SOAK_TABLES);
    all.add(BASELINE_SOAK);
    stats.vacuum(all);
    sizes(report, stats, all, "after a plain VACUUM");
  }

  private static String soakLine(String system, Options o, double rate, PgStats.Work w) {
    return String.format(
        java.util.Locale.ROOT,
        "soak, %s: %d messages at %.0f msg/s, at most %d outstanding; %d updates of the message"
            + " table, %.1f %% HOT",
        system,
        o.soak(),
        rate,
        o.backlog(),
        w.updates(),
        100 * w.hotShare());
  }

  /** The baseline's table in the soak. */
  static final String BASELINE_SOAK = "pgmq_soak";

  /** The tables a soak grows: messages, lease timers, counters (the others stay at a few kB). */
  static final List<String> SOAK_TABLES = List.of("sb_message", "sb_lease", "sb_counter");

  private static void sizes(Report report, PgStats stats, List<String> tables, String when)
      throws Exception {
    for (PgStats.Size s : stats.sizes(tables)) {
      report.row(s.table(), when, s.total() / 1e6, s.heap() / 1e6, s.indexes() / 1e6);
    }
  }

  /** A pool for the baseline, sized like an engine's. */
  static HikariDataSource pool(String url, int size) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername("postgres");
    c.setPassword("postgres");
    c.setMaximumPoolSize(size);
    return new HikariDataSource(c);
  }
}
