package io.switchboard.bench.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.storage.postgres.PostgresQueueEngine;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Send → receive → ack throughput on one embedded PostgreSQL: the Switchboard engine with one and
 * with two engines (as two servers), against a pgmq-style baseline (one table, the plain {@code FOR
 * UPDATE SKIP LOCKED} claim and a delete per ack, driven from Java over the same pool size) in the
 * same run; then a soak of {@code --soak} messages sent and acked through one engine and the size
 * of its tables after. Not run by CI.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.switchboard.bench.postgres.PostgresBench \
 *     [--messages 50000] [--threads 4] [--batch 10] [--soak 1000000] [--rounds 1]
 * </pre>
 */
public final class PostgresBench {

  private PostgresBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = options(args);
    int messages = Integer.parseInt(opts.getOrDefault("messages", "50000"));
    int threads = Integer.parseInt(opts.getOrDefault("threads", "4"));
    int batch = Integer.parseInt(opts.getOrDefault("batch", "10"));
    int soak = Integer.parseInt(opts.getOrDefault("soak", "1000000"));
    int rounds = Integer.parseInt(opts.getOrDefault("rounds", "1"));
    System.out.printf(
        "PostgresBench: %d messages per run, %d producer + %d consumer threads in all,"
            + " batches of %d; JDK %s, %d CPUs%n",
        messages,
        threads,
        threads,
        batch,
        Runtime.version(),
        Runtime.getRuntime().availableProcessors());
    try (EmbeddedPostgres pg = EmbeddedPostgres.builder().start()) {
      String url = pg.getJdbcUrl("postgres", "postgres");
      System.out.println("PostgreSQL: " + version(url));
      for (int r = 1; r <= rounds; r++) {
        double one = switchboard(url, 1, messages, threads, batch, "one_" + r);
        double two = switchboard(url, 2, messages, threads, batch, "two_" + r);
        double base = Baseline.run(url, messages, threads, batch, "pgmq_" + r);
        System.out.printf(
            "round %d: switchboard 1 engine %.0f msg/s, 2 engines %.0f msg/s, pgmq-style baseline"
                + " %.0f msg/s; ratios to baseline %.2f and %.2f%n",
            r, one, two, base, one / base, two / base);
      }
      if (soak > 0) {
        soak(url, soak, threads, batch);
      }
    }
  }

  /** Producers and consumers spread over {@code engines} engines; returns acked messages/s. */
  static double switchboard(
      String url, int engines, int messages, int threads, int batch, String queue)
      throws Exception {
    List<PostgresQueueEngine> servers = new ArrayList<>();
    for (int i = 0; i < engines; i++) {
      servers.add(
          PostgresQueueEngine.builder()
              .url(url, "postgres", "postgres")
              .poolSize(threads * 2 + 2)
              .build());
    }
    try {
      servers.get(0).createQueue(queue, QueueConfig.defaults());
      int perEngineThreads = Math.max(1, threads / engines);
      List<QueueEngine> producers = new ArrayList<>();
      for (QueueEngine e : servers) {
        for (int t = 0; t < perEngineThreads; t++) {
          producers.add(e);
        }
      }
      double rate = drive(producers, producers, messages, batch, queue);
      System.out.printf("switchboard, %d engine(s): %.0f msg/s%n", engines, rate);
      return rate;
    } finally {
      servers.forEach(QueueEngine::close);
    }
  }

  private static double drive(
      List<QueueEngine> producers, List<QueueEngine> consumers, int messages, int batch, String q)
      throws Exception {
    AtomicLong toSend = new AtomicLong(messages);
    AtomicLong acked = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(producers.size() + consumers.size());
    long start = System.nanoTime();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (QueueEngine e : producers) {
        done.add(
            pool.submit(
                () -> {
                  while (toSend.getAndAdd(-batch) > 0) {
                    List<NewMessage> b = new ArrayList<>(batch);
                    for (int i = 0; i < batch; i++) {
                      b.add(NewMessage.of("payload-" + i));
                    }
                    e.sendBatch(q, b);
                  }
                  return null;
                }));
      }
      ReceiveRequest take =
          ReceiveRequest.builder().maxMessages(batch).waitTime(Duration.ofMillis(100)).build();
      for (QueueEngine e : consumers) {
        done.add(
            pool.submit(
                () -> {
                  while (acked.get() < messages) {
                    for (Message m : e.receive(q, take)) {
                      e.ack(q, m.receipt().orElseThrow());
                      acked.incrementAndGet();
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
    return acked.get() / ((System.nanoTime() - start) / 1e9);
  }

  /** Sends and acks {@code total} messages through one engine, then reports table sizes. */
  private static void soak(String url, int total, int threads, int batch) throws Exception {
    try (PostgresQueueEngine engine =
        PostgresQueueEngine.builder()
            .url(url, "postgres", "postgres")
            .poolSize(threads * 2 + 2)
            .build()) {
      engine.createQueue("soak", QueueConfig.defaults());
      List<QueueEngine> side = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        side.add(engine);
      }
      double rate = drive(side, side, total, batch, "soak");
      System.out.printf("soak: %d messages sent and acked at %.0f msg/s%n", total, rate);
      System.out.println("table sizes right after the soak: " + sizes(url));
      try (Connection c = java.sql.DriverManager.getConnection(url, "postgres", "postgres");
          Statement s = c.createStatement()) {
        s.execute("vacuum sb_message");
        s.execute("vacuum sb_counter");
      }
      System.out.println("table sizes after a plain VACUUM: " + sizes(url));
    }
  }

  private static String sizes(String url) throws SQLException {
    StringBuilder out = new StringBuilder();
    try (Connection c = java.sql.DriverManager.getConnection(url, "postgres", "postgres");
        PreparedStatement ps =
            c.prepareStatement(
                "select relname, pg_size_pretty(pg_total_relation_size(relid)),"
                    + " pg_size_pretty(pg_relation_size(relid)), n_live_tup, n_dead_tup"
                    + " from pg_stat_user_tables where relname like 'sb_%' order by relname");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.append(
            String.format(
                "%n  %-18s total %-8s heap %-8s live %d dead %d",
                rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5)));
      }
    }
    return out.toString();
  }

  private static String version(String url) throws SQLException {
    try (Connection c = java.sql.DriverManager.getConnection(url, "postgres", "postgres");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("show server_version")) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --option value, got '" + args[i] + "'");
      }
      out.put(args[i].substring(2), args[i + 1]);
    }
    return out;
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
