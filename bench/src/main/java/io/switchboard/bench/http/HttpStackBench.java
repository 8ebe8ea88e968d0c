package io.switchboard.bench.http;

import io.switchboard.bench.e2e.ClosedLoop;
import io.switchboard.bench.e2e.ClosedLoop.CycleFactory;
import io.switchboard.bench.e2e.ClosedLoop.Result;
import io.switchboard.bench.http.StackServerMain.Stack;
import io.switchboard.bench.report.ChartSpec;
import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.bench.sqs.ChildServer;
import io.switchboard.bench.sqs.LeanSqs;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Regression (the performance round, docs/benchmarks.md): what the HTTP stack itself costs. The
 * same two routes ({@link StackWork}: a no-op and a 10-message batch send into core's in-memory
 * engine, parsed and answered with Jackson) served by each stack of {@link Stack} in its own child
 * JVM ({@link StackServerMain}, same JVM flags), driven by the lean keep-alive client of the SQS
 * benchmark ({@link LeanSqs#post}: pre-built request bytes, one blocking socket per thread, answers
 * read not parsed), in one run.
 *
 * <p>First every (stack, workload) runs once unmeasured (JIT warm-up); then each round, for each
 * thread count and workload, every stack in turn (the order rotated each round, so none is always
 * first on a machine whose load drifts): a warm-up, then a measured window. The report has one row
 * per (workload, threads, stack): the median of the rounds, with the lowest and highest server CPU
 * per request beside it. Server CPU is the child JVM's CPU time in the window (all its threads, JIT
 * and GC included) over the requests answered; allocation is what its threads allocated.
 */
public final class HttpStackBench {

  static final String ENTRY = "http-stacks";
  static final int NOOP_BODY_BYTES = 500;
  static final int BATCH_MESSAGES = 10;
  static final int MESSAGE_BYTES = 100;

  /** The two workloads. */
  enum Workload {
    NOOP("noop"),
    BATCH("batch");

    final String label;

    Workload(String label) {
      this.label = label;
    }

    static Workload parse(String s) {
      return switch (s) {
        case "noop" -> NOOP;
        case "batch" -> BATCH;
        default -> throw new IllegalArgumentException("workloads are noop and batch, got " + s);
      };
    }
  }

  /** What to run. */
  record Options(
      List<Integer> threads,
      List<Stack> stacks,
      List<Workload> workloads,
      int rounds,
      Duration jitWarmup,
      Duration warmup,
      Duration measure,
      List<String> serverJvmFlags,
      Path out,
      PrintStream log) {

    static final String USAGE =
        "usage: HttpStackBench [--threads 1,8,64] [--stacks "
            + String.join(",", Arrays.stream(Stack.values()).map(s -> s.label).toList())
            + "] [--workloads noop,batch] [--rounds 2] [--jit-warmup-seconds 3]"
            + " [--warmup-seconds 2] [--measure-seconds 4] [--server-jvm \"-Xms1g -Xmx1g\"]"
            + " [--out DIR]";

    static Options parse(String[] args, PrintStream log) {
      ReportArgs ra = ReportArgs.parse(ENTRY, args);
      List<Integer> threads = List.of(1, 8, 64);
      List<Stack> stacks = List.of(Stack.values());
      List<Workload> workloads = List.of(Workload.values());
      int rounds = 2;
      Duration jitWarmup = Duration.ofSeconds(3);
      Duration warmup = Duration.ofSeconds(2);
      Duration measure = Duration.ofSeconds(4);
      List<String> jvm = List.of("-Xms1g", "-Xmx1g");
      String[] a = ra.rest();
      for (int i = 0; i < a.length; i++) {
        String flag = a[i];
        if (flag.equals("-h") || flag.equals("--help")) {
          throw new IllegalArgumentException(USAGE);
        }
        if (i + 1 >= a.length) {
          throw new IllegalArgumentException(flag + " needs a value; " + USAGE);
        }
        String v = a[++i];
        switch (flag) {
          case "--threads" ->
              threads = Arrays.stream(v.split(",")).map(t -> positive(flag, t)).toList();
          case "--stacks" -> stacks = Arrays.stream(v.split(",")).map(Stack::parse).toList();
          case "--workloads" ->
              workloads = Arrays.stream(v.split(",")).map(Workload::parse).toList();
          case "--rounds" -> rounds = positive(flag, v);
          case "--jit-warmup-seconds" -> jitWarmup = seconds(flag, v);
          case "--warmup-seconds" -> warmup = seconds(flag, v);
          case "--measure-seconds" -> measure = seconds(flag, v);
          case "--server-jvm" -> jvm = List.of(v.trim().split("\\s+"));
          default -> throw new IllegalArgumentException("unknown flag " + flag + "; " + USAGE);
        }
      }
      if (measure.isZero()) {
        throw new IllegalArgumentException("--measure-seconds must be above 0, got 0");
      }
      return new Options(
          threads, stacks, workloads, rounds, jitWarmup, warmup, measure, jvm, ra.out(), log);
    }

    private static int positive(String flag, String v) {
      int n;
      try {
        n = Integer.parseInt(v.trim());
      } catch (NumberFormatException e) {
        n = 0;
      }
      if (n <= 0) {
        throw new IllegalArgumentException(flag + " takes a whole number above 0, got " + v);
      }
      return n;
    }

    private static Duration seconds(String flag, String v) {
      double s;
      try {
        s = Double.parseDouble(v);
      } catch (NumberFormatException e) {
        s = -1;
      }
      if (!(s >= 0)) {
        throw new IllegalArgumentException(flag + " takes seconds (0 or more), got " + v);
      }
      return Duration.ofMillis((long) (s * 1000));
    }
  }

  private HttpStackBench() {}

  public static void main(String[] args) throws Exception {
    Options o;
    try {
      o = Options.parse(args, System.out);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    run(o, RunInfo.capture(RunInfo.commandLine(HttpStackBench.class, args)), Machine.LOCAL);
  }

  /** Whether {@code stack} serves {@code w}: Switchboard's server is a reference for the no-op. */
  static boolean serves(Stack stack, Workload w) {
    return stack != Stack.SWITCHBOARD || w == Workload.NOOP;
  }

  /** Runs every round and writes the report; returns it. */
  static Report run(Options o, RunInfo info, Machine machine)
      throws IOException, InterruptedException {
    PrintStream log = o.log();
    Files.createDirectories(o.out());
    Map<Stack, ChildServer> servers = new LinkedHashMap<>();
    try {
      for (Stack s : o.stacks()) {
        long t0 = System.nanoTime();
        ChildServer server =
            ChildServer.start(
                s.label,
                StackServerMain.class,
                List.of(s.label),
                o.serverJvmFlags(),
                o.out().resolve(s.label + "-server.log"));
        servers.put(s, server);
        log.printf(
            Locale.ROOT,
            "started %s (pid %d) at %s in %d ms%n",
            s.label,
            server.pid,
            server.uri,
            (System.nanoTime() - t0) / 1_000_000);
      }
      int warmThreads =
          Math.min(8, o.threads().stream().mapToInt(Integer::intValue).max().orElse(1));
      for (Stack s : o.stacks()) {
        for (Workload w : o.workloads()) {
          if (serves(s, w)) {
            measure(machine, servers.get(s), s, w, warmThreads, o.jitWarmup(), null);
          }
        }
      }
      List<Sample> samples = new ArrayList<>();
      List<Stack> order = new ArrayList<>(o.stacks());
      for (int round = 1; round <= o.rounds(); round++) {
        for (int threads : o.threads()) {
          for (Workload w : o.workloads()) {
            for (Stack s : order) {
              if (!serves(s, w)) {
                continue;
              }
              Sample sample =
                  measure(machine, servers.get(s), s, w, threads, o.warmup(), o.measure());
              samples.add(sample);
              log.println(line(round, s, sample));
            }
          }
        }
        log.printf(Locale.ROOT, "round %d done, load %s%n", round, RunInfo.loadAverages(machine));
        Collections.rotate(order, -1);
      }
      Report report = report(o, samples);
      report.write(o.out(), info.ended(machine), log);
      return report;
    } finally {
      for (ChildServer s : servers.values()) {
        s.close();
      }
    }
  }

  /** The request of {@code w} on {@code client}'s connections to {@code stack}. */
  static CycleFactory cycle(LeanSqs client, Stack stack, Workload w) {
    return switch (w) {
      case NOOP ->
          client.post(
              stack == Stack.SWITCHBOARD ? "/v1/noop" : StackWork.NOOP_PATH,
              "application/json",
              noopBody(),
              0);
      case BATCH ->
          client.post(
              StackWork.BATCH_PATH, "application/x-amz-json-1.0", batchBody(), BATCH_MESSAGES);
    };
  }

  /** A {@value #NOOP_BODY_BYTES}-byte JSON body. */
  static byte[] noopBody() {
    String head = "{\"QueueUrl\":\"http://127.0.0.1/000000000000/noop\",\"ReceiptHandle\":\"";
    String tail = "\"}";
    return (head + "x".repeat(NOOP_BODY_BYTES - head.length() - tail.length()) + tail)
        .getBytes(StandardCharsets.UTF_8);
  }

  /** A SendMessageBatch-like body: {@value #BATCH_MESSAGES} entries of {@value #MESSAGE_BYTES}. */
  static byte[] batchBody() {
    StringBuilder b =
        new StringBuilder("{\"QueueUrl\":\"http://127.0.0.1/000000000000/stacks\",\"Entries\":[");
    for (int i = 0; i < BATCH_MESSAGES; i++) {
      b.append(i == 0 ? "" : ",")
          .append("{\"Id\":\"")
          .append(i)
          .append("\",\"MessageBody\":\"")
          .append(String.valueOf((char) ('a' + i)).repeat(MESSAGE_BYTES))
          .append("\"}");
    }
    return b.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }

  /** One measurement with the server's and the client's CPU and the server's allocation. */
  record Sample(
      Stack stack,
      Workload workload,
      Result result,
      OptionalLong serverCpuNanos,
      OptionalLong clientCpuNanos,
      OptionalLong serverAllocatedBytes) {

    OptionalDouble serverCpuMicrosPerRequest() {
      return perRequest(serverCpuNanos, 1e3);
    }

    OptionalDouble clientCpuMicrosPerRequest() {
      return perRequest(clientCpuNanos, 1e3);
    }

    OptionalDouble allocatedBytesPerRequest() {
      return perRequest(serverAllocatedBytes, 1);
    }

    private OptionalDouble perRequest(OptionalLong v, double unit) {
      return v.isPresent() && result.requests() > 0
          ? OptionalDouble.of(v.getAsLong() / unit / result.requests())
          : OptionalDouble.empty();
    }
  }

  /**
   * Measures {@code w} against {@code stack}'s {@code server} on new connections (a connection kept
   * from one measurement to the next can sit idle longer than a server keeps it: the JDK's closes
   * one after 30 s); a null {@code window} is a warm-up only (a short window thrown away).
   */
  static Sample measure(
      Machine machine,
      ChildServer server,
      Stack stack,
      Workload w,
      int threads,
      Duration warmup,
      Duration window)
      throws InterruptedException {
    try (LeanSqs client = new LeanSqs(server.uri)) {
      return measure(machine, server, cycle(client, stack, w), w, threads, warmup, window);
    }
  }

  private static Sample measure(
      Machine machine,
      ChildServer server,
      CycleFactory f,
      Workload w,
      int threads,
      Duration warmup,
      Duration window)
      throws InterruptedException {
    long pid = server.pid;
    OptionalLong[] start = new OptionalLong[3];
    Result r =
        ClosedLoop.measure(
            warmup,
            window == null ? Duration.ofMillis(200) : window,
            server.system,
            w.label,
            threads,
            f,
            () -> {
              start[0] = machine.cpuNanos(pid);
              start[1] = machine.ownCpuNanos();
              start[2] = allocated(server);
            });
    OptionalLong serverCpu = Machine.between(start[0], machine.cpuNanos(pid));
    OptionalLong clientCpu = Machine.between(start[1], machine.ownCpuNanos());
    OptionalLong alloc = Machine.between(start[2], allocated(server));
    return new Sample(Stack.parse(server.system), w, r, serverCpu, clientCpu, alloc);
  }

  private static OptionalLong allocated(ChildServer server) {
    try {
      return server.allocatedBytes();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalLong.empty();
    }
  }

  static final String[] COLUMNS = {
    "workload",
    "threads",
    "case",
    "stack",
    "rounds",
    "requests/s",
    "p50 µs",
    "p99 µs",
    "failures",
    "server CPU µs/req",
    "server CPU range",
    "client CPU µs/req",
    "server alloc bytes/req",
    "CPU × helidon"
  };

  /** One row per (workload, threads, stack): the medians of its rounds. */
  static Report report(Options o, List<Sample> samples) {
    Report report =
        Report.create(ENTRY, "HTTP stacks: the same handlers on each stack", COLUMNS)
            .note(
                "noop: POST /noop, a "
                    + NOOP_BODY_BYTES
                    + "-byte body read and dropped, 204; batch: POST /batch, a SendMessageBatch-like"
                    + " JSON body of "
                    + BATCH_MESSAGES
                    + " x "
                    + MESSAGE_BYTES
                    + "-byte messages parsed with Jackson, sent to core's in-memory engine, a"
                    + " small JSON answer; the same handler code on every stack")
            .note(
                "switchboard: Switchboard's own server, POST /v1/noop (all its filters), for"
                    + " reference; helidon: Helidon 4 WebServer as Switchboard builds it;"
                    + " helidon-tuned(-sockets): discovery, validation and logging off (see"
                    + " StackServerMain); netty: Netty 4.2 codec + aggregator, 2 event loops;"
                    + " jdk-*: com.sun.net.httpserver, virtual threads or a fixed pool")
            .note(
                "client: lean (pre-built requests, one blocking keep-alive socket per thread);"
                    + " each server in its own child JVM ("
                    + String.join(" ", o.serverJvmFlags())
                    + "); stacks in turn, order rotated each round")
            .note(
                "figures: median of the rounds; server CPU range: lowest–highest round; CPU:"
                    + " all the JVM's threads in the window (JIT and GC included) / requests;"
                    + " CPU × helidon: over the helidon row's server CPU µs/req")
            .chart(
                ChartSpec.bars(
                    "server CPU per request", "µs/req", "case", "stack", "server CPU µs/req"))
            .chart(ChartSpec.bars("requests/s", "requests/s", "case", "stack", "requests/s"));
    Map<String, List<Sample>> byKey = new LinkedHashMap<>();
    for (int threads : o.threads()) {
      for (Workload w : o.workloads()) {
        for (Stack s : o.stacks()) {
          if (serves(s, w)) {
            byKey.put(key(w, threads, s), new ArrayList<>());
          }
        }
      }
    }
    for (Sample s : samples) {
      byKey.get(key(s.workload(), s.result().threads(), s.stack())).add(s);
    }
    for (Workload w : o.workloads()) {
      for (int threads : o.threads()) {
        OptionalDouble helidon =
            median(
                byKey.getOrDefault(key(w, threads, Stack.HELIDON), List.of()).stream()
                    .map(Sample::serverCpuMicrosPerRequest)
                    .toList());
        for (Stack s : o.stacks()) {
          if (!serves(s, w)) {
            continue;
          }
          List<Sample> rounds = byKey.get(key(w, threads, s));
          List<OptionalDouble> cpu =
              rounds.stream().map(Sample::serverCpuMicrosPerRequest).toList();
          OptionalDouble cpuMedian = median(cpu);
          report.row(
              w.label,
              threads,
              w.label + " ×" + threads,
              s.label,
              rounds.size(),
              median(
                      rounds.stream()
                          .map(r -> OptionalDouble.of(r.result().requestsPerSecond()))
                          .toList())
                  .orElse(Double.NaN),
              median(
                      rounds.stream()
                          .map(r -> OptionalDouble.of(r.result().p50Nanos() / 1e3))
                          .toList())
                  .orElse(Double.NaN),
              median(
                      rounds.stream()
                          .map(r -> OptionalDouble.of(r.result().p99Nanos() / 1e3))
                          .toList())
                  .orElse(Double.NaN),
              rounds.stream().mapToLong(r -> r.result().failures()).sum(),
              Report.measured(cpuMedian, SERVER_CPU),
              Report.measured(range(cpu), SERVER_CPU),
              Report.measured(
                  median(rounds.stream().map(Sample::clientCpuMicrosPerRequest).toList()),
                  "no CPU time for the load generator's JVM on this machine"),
              Report.measured(
                  median(rounds.stream().map(Sample::allocatedBytesPerRequest).toList()),
                  "the server's JVM cannot count its threads' allocation"),
              Report.measured(
                  cpuMedian.isPresent() && helidon.isPresent() && helidon.getAsDouble() > 0
                      ? OptionalDouble.of(cpuMedian.getAsDouble() / helidon.getAsDouble())
                      : OptionalDouble.empty(),
                  "no helidon row, or no server CPU time, in this run"));
        }
      }
    }
    return report;
  }

  private static final String SERVER_CPU =
      "no CPU time for the server's JVM (a child process) on this machine";

  private static String key(Workload w, int threads, Stack s) {
    return w.label + "/" + threads + "/" + s.label;
  }

  /** The median of the present values (the mean of the middle two for an even count). */
  static OptionalDouble median(List<OptionalDouble> values) {
    double[] v =
        values.stream()
            .filter(OptionalDouble::isPresent)
            .mapToDouble(OptionalDouble::getAsDouble)
            .sorted()
            .toArray();
    if (v.length == 0 || v.length < values.size()) {
      return OptionalDouble.empty();
    }
    int m = v.length / 2;
    return OptionalDouble.of(v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2);
  }

  /** {@code lowest–highest}, to 2 decimals, if every value is present. */
  private static java.util.Optional<String> range(List<OptionalDouble> values) {
    if (values.isEmpty() || values.stream().anyMatch(OptionalDouble::isEmpty)) {
      return java.util.Optional.empty();
    }
    double lo = values.stream().mapToDouble(OptionalDouble::getAsDouble).min().orElseThrow();
    double hi = values.stream().mapToDouble(OptionalDouble::getAsDouble).max().orElseThrow();
    return java.util.Optional.of(String.format(Locale.ROOT, "%.2f–%.2f", lo, hi));
  }

  private static String line(int round, Stack s, Sample sample) {
    Result r = sample.result();
    return String.format(
        Locale.ROOT,
        "round %d %-22s %-5s %3d threads %,10.0f req/s  p50 %s  p99 %s  (%,d requests, %d"
            + " failed; server CPU µs/req %s, alloc B/req %s; client CPU µs/req %s)",
        round,
        s.label,
        r.workload(),
        r.threads(),
        r.requestsPerSecond(),
        ClosedLoop.micros(r.p50Nanos()),
        ClosedLoop.micros(r.p99Nanos()),
        r.requests(),
        r.failures(),
        format(sample.serverCpuMicrosPerRequest()),
        format(sample.allocatedBytesPerRequest()),
        format(sample.clientCpuMicrosPerRequest()));
  }

  private static String format(OptionalDouble v) {
    return v.isPresent()
        ? String.format(Locale.ROOT, "%.1f", v.getAsDouble())
        : Report.NOT_MEASURED;
  }
}
