package io.switchboard.bench.auth;

import io.switchboard.bench.e2e.ClosedLoop;
import io.switchboard.bench.e2e.ClosedLoop.CycleFactory;
import io.switchboard.bench.e2e.ClosedLoop.Result;
import io.switchboard.bench.report.ChartSpec;
import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.bench.sqs.ChildServer;
import io.switchboard.bench.sqs.SqsBench.Shape;
import io.switchboard.bench.sqs.SqsLoad;
import io.switchboard.client.AckResult;
import io.switchboard.client.AuthScheme;
import io.switchboard.client.Credentials;
import io.switchboard.client.SigV4Signer;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.SwitchboardException;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.ReceiveRequest;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cost of checking credentials (docs/bench-history/auth.md): server CPU and allocation per
 * request of the same workloads against a keyless server and against a keyed one, with HTTP Basic
 * and with SigV4, in one run.
 *
 * <p>Three Switchboard servers run in child JVMs started alike ({@link ChildServer}: the same JVM
 * flags, in memory, loopback): {@code none} is keyless, {@code basic} and {@code sigv4} each hold
 * the same single admin access key, so the one difference between them is how the load presents it.
 * The workloads, each against each server:
 *
 * <ul>
 *   <li>{@code native noop}: {@code POST /v1/noop} with a 100-byte JSON body (the route needs a
 *       valid key and no action on a keyed server), signed per request by the client's {@link
 *       SigV4Signer} or carrying a Basic header;
 *   <li>{@code native e2e}: the Java client's sendBatch of 10 → receive max 10 (wait 0) → ackBatch,
 *       as {@code native-e2e} runs it, with {@code .credentials(...)} and {@code .authScheme(...)};
 *   <li>{@code sqs single} and {@code sqs batch}: the AWS SDK v2 cycles of {@code sqs} (SendMessage
 *       → ReceiveMessage → DeleteMessage, and their batch forms), against {@code none} and {@code
 *       sigv4} only: SQS takes SigV4 alone (a keyless server ignores the signature).
 * </ul>
 *
 * <p>Server CPU is the server JVM's CPU time in the measured window ({@link Machine}), allocation
 * the heap bytes its threads allocated ({@link ChildServer#allocatedBytes}); both divided by
 * requests. A round measures every (workload, auth) pair once, the auth modes in a rotated order
 * each round so none is always first; each row's ratio is to the same round's {@code none}, and a
 * {@code median} row per pair sums up the rounds. CPU per request includes the server's JIT and GC
 * in the window; a loaded machine moves it less than it moves rates, but it does move it: compare
 * rounds to see how much.
 */
public final class AuthBench {

  static final String ENTRY = "auth";
  static final String KEY_ID = "AKIDBENCHAUTH0000001";
  static final String SECRET = "bench-secret-not-for-production-0123456789";
  static final int BATCH = 10;
  static final int BODY_BYTES = 100;

  /** How a request presents its credentials, and so which server it goes to. */
  enum Auth {
    NONE,
    BASIC,
    SIGV4;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** A workload: what it drives and which auth modes it is measured with. */
  enum Workload {
    NATIVE_NOOP("native", "noop", List.of(Auth.NONE, Auth.BASIC, Auth.SIGV4)),
    NATIVE_E2E("native", "e2e", List.of(Auth.NONE, Auth.BASIC, Auth.SIGV4)),
    SQS_SINGLE("sqs", "single", List.of(Auth.NONE, Auth.SIGV4)),
    SQS_BATCH("sqs", "batch", List.of(Auth.NONE, Auth.SIGV4));

    final String surface;
    final String name;
    final List<Auth> auths;

    Workload(String surface, String name, List<Auth> auths) {
      this.surface = surface;
      this.name = name;
      this.auths = auths;
    }

    String label() {
      return surface + " " + name;
    }

    static Workload parse(String s) {
      for (Workload w : values()) {
        if (w.label().replace(' ', '-').equals(s)) {
          return w;
        }
      }
      throw new IllegalArgumentException(
          "workloads are native-noop, native-e2e, sqs-single and sqs-batch, got " + s);
    }
  }

  /** What to run. */
  record Options(
      int threads,
      int rounds,
      List<Workload> workloads,
      Duration jitWarmup,
      Duration warmup,
      Duration measure,
      List<String> serverJvmFlags,
      Path out,
      PrintStream log) {

    static Options parse(String[] args, PrintStream log) {
      ReportArgs ra = ReportArgs.parse(ENTRY, args);
      int threads = 4;
      int rounds = 3;
      List<Workload> workloads = List.of(Workload.values());
      Duration jitWarmup = Duration.ofSeconds(10);
      Duration warmup = Duration.ofSeconds(3);
      Duration measure = Duration.ofSeconds(5);
      List<String> jvm = List.of("-Xms1g", "-Xmx1g");
      String[] a = ra.rest();
      for (int i = 0; i < a.length; i++) {
        String flag = a[i];
        if (flag.equals("-h") || flag.equals("--help")) {
          throw new IllegalArgumentException(
              "usage: AuthBench [--threads 4] [--rounds 3]"
                  + " [--workloads native-noop,native-e2e,sqs-single,sqs-batch]"
                  + " [--jit-warmup-seconds 10] [--warmup-seconds 3] [--measure-seconds 5]"
                  + " [--server-jvm \"-Xms1g -Xmx1g\"]"
                  + " [--out DIR]");
        }
        if (i + 1 >= a.length) {
          throw new IllegalArgumentException(flag + " needs a value; see --help");
        }
        String v = a[++i];
        switch (flag) {
          case "--threads" -> threads = positive(flag, v);
          case "--rounds" -> rounds = positive(flag, v);
          case "--workloads" ->
              workloads = Arrays.stream(v.split(",")).map(Workload::parse).toList();
          case "--jit-warmup-seconds" -> jitWarmup = seconds(v);
          case "--warmup-seconds" -> warmup = seconds(v);
          case "--measure-seconds" -> measure = seconds(v);
          case "--server-jvm" -> jvm = List.of(v.trim().split("\\s+"));
          default ->
              throw new IllegalArgumentException(
                  "unknown flag "
                      + flag
                      + "; flags are --threads, --rounds, --workloads, --jit-warmup-seconds,"
                      + " --warmup-seconds,"
                      + " --measure-seconds, --server-jvm, --out");
        }
      }
      return new Options(
          threads, rounds, workloads, jitWarmup, warmup, measure, jvm, ra.out(), log);
    }

    private static int positive(String flag, String v) {
      int n;
      try {
        n = Integer.parseInt(v);
      } catch (NumberFormatException e) {
        n = 0;
      }
      if (n < 1) {
        throw new IllegalArgumentException(flag + " takes a whole number >= 1, got " + v);
      }
      return n;
    }

    private static Duration seconds(String v) {
      return Duration.ofMillis((long) (Double.parseDouble(v) * 1000));
    }
  }

  private AuthBench() {}

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args, System.out);
    run(o, RunInfo.capture(RunInfo.commandLine(AuthBench.class, args)), Machine.LOCAL);
  }

  /** One measurement: the load's figures and the server's CPU and allocation in its window. */
  record Sample(
      Workload workload,
      Auth auth,
      int round,
      Result result,
      OptionalLong serverCpuNanos,
      OptionalLong serverAllocatedBytes) {

    OptionalDouble cpuMicrosPerRequest() {
      return serverCpuNanos.isPresent() && result.requests() > 0
          ? OptionalDouble.of(serverCpuNanos.getAsLong() / 1e3 / result.requests())
          : OptionalDouble.empty();
    }

    OptionalDouble bytesPerRequest() {
      return serverAllocatedBytes.isPresent() && result.requests() > 0
          ? OptionalDouble.of(serverAllocatedBytes.getAsLong() / (double) result.requests())
          : OptionalDouble.empty();
    }
  }

  /** Runs every round and writes the report; returns it. */
  static Report run(Options o, RunInfo info, Machine machine)
      throws IOException, InterruptedException {
    PrintStream log = o.log();
    Files.createDirectories(o.out());
    Map<Auth, Target> targets = new LinkedHashMap<>();
    try {
      for (Auth auth : Auth.values()) {
        long t0 = System.nanoTime();
        Target t = Target.start(auth, o);
        targets.put(auth, t);
        log.printf(
            Locale.ROOT,
            "started %s server (pid %d) at %s in %d ms%n",
            auth.label(),
            t.server.pid,
            t.server.uri,
            (System.nanoTime() - t0) / 1_000_000);
      }
      log.printf(
          Locale.ROOT,
          "auth cost: %d threads, %d rounds, warm-up %d ms, measure %d ms, load %s%n",
          o.threads(),
          o.rounds(),
          o.warmup().toMillis(),
          o.measure().toMillis(),
          RunInfo.loadAverages(machine));
      // JIT warm-up of every path of every server before anything counts: on a loaded machine
      // a server still compiles for many seconds, and its compiler threads' CPU would count
      for (Workload w : o.workloads()) {
        for (Auth auth : w.auths) {
          measure(o, machine, target(targets, auth), w, -1, o.jitWarmup());
        }
      }
      List<Sample> samples = new ArrayList<>();
      for (int round = 1; round <= o.rounds(); round++) {
        for (Workload w : o.workloads()) {
          List<Auth> order = new ArrayList<>(w.auths);
          java.util.Collections.rotate(order, -(round - 1));
          for (Auth auth : order) {
            Sample s = measure(o, machine, target(targets, auth), w, round, o.measure());
            log.println(line(s));
            samples.add(s);
          }
        }
        log.printf(Locale.ROOT, "round %d done, load %s%n", round, RunInfo.loadAverages(machine));
      }
      Report report = report(samples, o.threads());
      report.write(o.out(), info, log);
      return report;
    } finally {
      for (Target t : targets.values()) {
        t.close();
      }
    }
  }

  private static Sample measure(
      Options o, Machine machine, Target t, Workload w, int round, Duration window)
      throws InterruptedException {
    boolean warmupOnly = round < 0;
    Duration warmup = warmupOnly ? window : o.warmup();
    if (warmupOnly) {
      window = Duration.ofMillis(200); // thrown away
    }
    CycleFactory f = t.workload(w, o.threads());
    OptionalLong[] cpuFrom = {OptionalLong.empty()};
    OptionalLong[] allocFrom = {OptionalLong.empty()};
    long pid = t.server.pid;
    Result r;
    try {
      r =
          ClosedLoop.measure(
              warmup,
              window,
              t.auth.label(),
              w.label(),
              o.threads(),
              f,
              () -> {
                cpuFrom[0] = machine.cpuNanos(pid);
                allocFrom[0] = allocated(t.server);
              });
    } finally {
      t.afterMeasurement();
    }
    OptionalLong cpu = Machine.between(cpuFrom[0], machine.cpuNanos(pid));
    OptionalLong alloc = Machine.between(allocFrom[0], allocated(t.server));
    return new Sample(w, t.auth, round, r, cpu, alloc);
  }

  private static OptionalLong allocated(ChildServer server) {
    try {
      return server.allocatedBytes();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalLong.empty();
    }
  }

  // ---- the servers and their loads -----------------------------------------------------------

  /** One server in a child JVM and the clients that present its auth mode. */
  private static final class Target implements AutoCloseable {
    final Auth auth;
    final ChildServer server;
    final HttpClient http;
    final SwitchboardClient client;
    final SqsLoad sqs;
    private final List<Runnable> cleanups = new ArrayList<>();
    private static final AtomicInteger QUEUES = new AtomicInteger();

    private Target(Auth auth, ChildServer server, int threads) {
      this.auth = auth;
      this.server = server;
      this.http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      SwitchboardClient.Builder b =
          SwitchboardClient.builder().baseUri(server.uri).httpClient(http);
      if (auth != Auth.NONE) {
        b.credentials(Credentials.of(KEY_ID, SECRET))
            .authScheme(auth == Auth.BASIC ? AuthScheme.BASIC : AuthScheme.SIGV4);
      }
      this.client = b.build();
      // the SDK always signs; the keyless server ignores the signature
      this.sqs = new SqsLoad(server.uri, threads, false, KEY_ID, SECRET);
    }

    static Target start(Auth auth, Options o) throws IOException, InterruptedException {
      List<String> settings =
          auth == Auth.NONE ? List.of() : List.of("access-keys=" + KEY_ID + ":" + SECRET);
      ChildServer server =
          ChildServer.start(
              "switchboard",
              settings,
              o.serverJvmFlags(),
              o.out().resolve("auth-" + auth.label() + "-server.log"));
      return new Target(auth, server, o.threads());
    }

    CycleFactory workload(Workload w, int threads) {
      return switch (w) {
        case NATIVE_NOOP -> noop();
        case NATIVE_E2E -> cycle(threads);
        case SQS_SINGLE, SQS_BATCH -> {
          String url =
              sqs.createQueue(
                  "auth-" + auth.label() + "-" + w.name + "-" + QUEUES.incrementAndGet());
          cleanups.add(() -> sqs.deleteQueue(url));
          yield sqs.cycle(w == Workload.SQS_SINGLE ? Shape.SINGLE : Shape.BATCH, url);
        }
      };
    }

    void afterMeasurement() {
      cleanups.forEach(Runnable::run);
      cleanups.clear();
    }

    /** POST /v1/noop with a 100-byte JSON body, credentials presented as this target's mode. */
    private CycleFactory noop() {
      String pad = "x".repeat(BODY_BYTES - "{\"pad\":\"\"}".length());
      byte[] body = ("{\"pad\":\"" + pad + "\"}").getBytes(StandardCharsets.UTF_8);
      URI uri = URI.create(server.uri + "/v1/noop");
      SigV4Signer signer =
          auth == Auth.SIGV4 ? new SigV4Signer(Credentials.of(KEY_ID, SECRET), "us-east-1") : null;
      String basic =
          "Basic "
              + Base64.getEncoder()
                  .encodeToString((KEY_ID + ":" + SECRET).getBytes(StandardCharsets.UTF_8));
      return index ->
          () -> {
            HttpRequest.Builder request =
                HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(30))
                    .header("Accept", "application/json")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body));
            if (signer != null) {
              signer.sign("POST", uri, body, Instant.now()).forEach(request::header);
            } else if (auth == Auth.BASIC) {
              request.header("Authorization", basic);
            }
            try {
              HttpResponse<byte[]> r =
                  http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
              if (r.statusCode() != 204) {
                // a refusal (401, 403) is a broken benchmark, not a figure
                throw new IllegalStateException(
                    auth.label()
                        + " no-op answered "
                        + r.statusCode()
                        + ": "
                        + new String(r.body(), StandardCharsets.UTF_8));
              }
              return new long[] {0, 1, 0};
            } catch (IOException e) {
              return transportFailure(e, 1);
            }
          };
    }

    /** sendBatch of 10 → receive max 10 (wait 0) → ackBatch, on a fresh queue. */
    private CycleFactory cycle(int threads) {
      String queue = "auth-" + auth.label() + "-e2e-" + QUEUES.incrementAndGet();
      client.createQueue(queue, QueueConfig.defaults());
      cleanups.add(() -> client.deleteQueue(queue));
      ReceiveRequest receive =
          ReceiveRequest.builder().maxMessages(BATCH).waitTime(Duration.ZERO).build();
      return index -> {
        List<NewMessage> batch = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
          String prefix = "t" + index + "-m" + i + "-";
          batch.add(NewMessage.builder(prefix + "x".repeat(BODY_BYTES - prefix.length())).build());
        }
        return () -> {
          try {
            client.sendBatch(queue, batch);
            List<Message> got = client.receive(queue, receive);
            if (got.isEmpty()) {
              return new long[] {0, 2, 0};
            }
            List<String> receipts = new ArrayList<>(got.size());
            for (Message m : got) {
              receipts.add(m.receipt().orElseThrow());
            }
            long failed = 0;
            for (AckResult r : client.ackBatch(queue, receipts)) {
              failed += r.acked() ? 0 : 1;
            }
            return new long[] {got.size() - failed, 3, failed};
          } catch (SwitchboardException e) {
            if (e.status() != 0) {
              throw e; // a refusal (401, 403) is a broken benchmark, not a figure
            }
            return transportFailure(e, 3);
          }
        };
      };
    }

    @Override
    public void close() throws IOException, InterruptedException {
      sqs.close();
      client.close();
      http.close();
      server.close();
    }
  }

  private static final AtomicLong FAILURES = new AtomicLong();

  private static long[] transportFailure(Exception e, int requests) {
    if (FAILURES.incrementAndGet() <= 3) {
      System.err.println("request failed without an answer: " + e);
    }
    return new long[] {0, requests, 1};
  }

  // ---- the report ----------------------------------------------------------------------------

  static final String CPU_COLUMN = "server CPU µs/req";
  static final String ALLOC_COLUMN = "server alloc bytes/req";
  static final String CPU_RATIO = "CPU × none";
  static final String ALLOC_RATIO = "alloc × none";
  static final String CPU_SPREAD = "CPU × none range";

  static Report newReport(int threads) {
    return Report.create(
            ENTRY,
            "Cost of authentication: server CPU per request, keyless vs Basic vs SigV4 ("
                + threads
                + " threads)",
            "surface",
            "workload",
            "auth",
            "round",
            "case",
            "requests/s",
            "messages/s",
            "failures",
            CPU_COLUMN,
            ALLOC_COLUMN,
            CPU_RATIO,
            ALLOC_RATIO,
            CPU_SPREAD)
        .note(
            "servers: three Switchboard child JVMs started alike (in memory, loopback);"
                + " none = keyless, basic and sigv4 = one admin access key, presented as HTTP"
                + " Basic or signed with SigV4 (signed per request)")
        .note(
            "native noop: POST /v1/noop, 100-byte JSON body; native e2e: Java client sendBatch 10"
                + " -> receive max 10 (wait 0) -> ackBatch; sqs single/batch: AWS SDK v2"
                + " SendMessage(Batch) -> ReceiveMessage -> DeleteMessage(Batch); SQS is SigV4"
                + " only")
        .note(
            "server CPU and alloc per request: the server JVM's CPU time (all threads, JIT and"
                + " GC included) and heap bytes allocated in the measured window / requests;"
                + " × none: over the same round's keyless server; median rows: the rounds'"
                + " medians (failures: their sum); CPU × none range: the lowest and highest round")
        .chart(ChartSpec.bars("server CPU per request", "µs/request", "case", "auth", CPU_COLUMN))
        .chart(ChartSpec.bars("CPU over keyless", "×", "case", "auth", CPU_RATIO));
  }

  /** The rows: every sample with its ratio to its round's keyless one, then the medians. */
  /** The server started for {@code auth}: one for every scheme of the workloads. */
  private static Target target(Map<Auth, Target> targets, Auth auth) {
    return Objects.requireNonNull(targets.get(auth), () -> "no server started for " + auth);
  }

  static Report report(List<Sample> samples, int threads) {
    Report r = newReport(threads);
    Map<String, Sample> none = new LinkedHashMap<>();
    for (Sample s : samples) {
      if (s.auth() == Auth.NONE) {
        none.put(s.workload() + "/" + s.round(), s);
      }
    }
    Map<String, List<double[]>> byPair = new LinkedHashMap<>();
    for (Sample s : samples) {
      Sample base =
          Objects.requireNonNull(
              none.get(s.workload() + "/" + s.round()),
              "every workload's round measures the keyless baseline too");
      OptionalDouble cpuRatio = ratio(s.cpuMicrosPerRequest(), base.cpuMicrosPerRequest());
      OptionalDouble allocRatio = ratio(s.bytesPerRequest(), base.bytesPerRequest());
      row(
          r,
          s.workload(),
          s.auth(),
          Integer.toString(s.round()),
          s.result().requestsPerSecond(),
          s.result().messagesPerSecond(),
          s.result().failures(),
          s.cpuMicrosPerRequest(),
          s.bytesPerRequest(),
          cpuRatio,
          allocRatio,
          "");
      byPair
          .computeIfAbsent(
              s.workload().ordinal() + "/" + s.auth().ordinal(), k -> new ArrayList<>())
          .add(
              new double[] {
                s.result().requestsPerSecond(),
                s.result().messagesPerSecond(),
                s.result().failures(),
                s.cpuMicrosPerRequest().orElse(Double.NaN),
                s.bytesPerRequest().orElse(Double.NaN),
                cpuRatio.orElse(Double.NaN),
                allocRatio.orElse(Double.NaN)
              });
    }
    for (Map.Entry<String, List<double[]>> e : byPair.entrySet()) {
      String[] k = e.getKey().split("/");
      Workload w = Workload.values()[Integer.parseInt(k[0])];
      Auth a = Auth.values()[Integer.parseInt(k[1])];
      List<double[]> v = e.getValue();
      row(
          r,
          w,
          a,
          "median",
          median(v, 0).orElse(Double.NaN),
          median(v, 1).orElse(Double.NaN),
          (long) v.stream().mapToDouble(x -> x[2]).sum(),
          median(v, 3),
          median(v, 4),
          median(v, 5),
          median(v, 6),
          spread(v, 5));
    }
    return r;
  }

  private static void row(
      Report r,
      Workload w,
      Auth a,
      String round,
      double requestsPerSecond,
      double messagesPerSecond,
      long failures,
      OptionalDouble cpu,
      OptionalDouble alloc,
      OptionalDouble cpuRatio,
      OptionalDouble allocRatio,
      String spread) {
    r.row(
        w.surface,
        w.name,
        a.label(),
        round,
        w.label() + (round.equals("median") ? "" : " #" + round),
        requestsPerSecond,
        messagesPerSecond,
        failures,
        Report.measured(cpu, "no CPU time for the server's JVM (a child process) on this machine"),
        Report.measured(alloc, "the server's JVM reports no allocated bytes"),
        Report.measured(cpuRatio, "no CPU time for the server's JVM on this machine"),
        Report.measured(allocRatio, "the server's JVM reports no allocated bytes"),
        spread);
  }

  /** {@code min–max} of column {@code i} over the rounds; empty if none was measured. */
  static String spread(List<double[]> rows, int i) {
    double[] v = rows.stream().mapToDouble(x -> x[i]).filter(d -> !Double.isNaN(d)).toArray();
    if (v.length == 0) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        "%.2f–%.2f",
        Arrays.stream(v).min().getAsDouble(),
        Arrays.stream(v).max().getAsDouble());
  }

  static OptionalDouble ratio(OptionalDouble value, OptionalDouble base) {
    return value.isPresent() && base.isPresent() && base.getAsDouble() > 0
        ? OptionalDouble.of(value.getAsDouble() / base.getAsDouble())
        : OptionalDouble.empty();
  }

  /** The median of column {@code i} over the rounds, ignoring unmeasured (NaN) cells. */
  static OptionalDouble median(List<double[]> rows, int i) {
    double[] v =
        rows.stream().mapToDouble(x -> x[i]).filter(d -> !Double.isNaN(d)).sorted().toArray();
    if (v.length == 0) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(
        v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2);
  }

  private static String line(Sample s) {
    Result r = s.result();
    return String.format(
        Locale.ROOT,
        "round %d  %-12s %-6s %,9.0f req/s  (%,d requests, %d failed)  server CPU %s µs/req,"
            + " alloc %s bytes/req",
        s.round(),
        s.workload().label(),
        s.auth().label(),
        r.requestsPerSecond(),
        r.requests(),
        r.failures(),
        s.cpuMicrosPerRequest().isPresent()
            ? String.format(Locale.ROOT, "%.1f", s.cpuMicrosPerRequest().getAsDouble())
            : Report.NOT_MEASURED,
        s.bytesPerRequest().isPresent()
            ? String.format(Locale.ROOT, "%,.0f", s.bytesPerRequest().getAsDouble())
            : Report.NOT_MEASURED);
  }
}
