package io.switchboard.bench.sqs;

import io.switchboard.bench.e2e.ClosedLoop;
import io.switchboard.bench.e2e.ClosedLoop.Result;
import io.switchboard.bench.report.ChartSpec;
import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * End-to-end SQS workload through the stock AWS SDK for Java v2: Switchboard against ElasticMQ, in
 * one run, with the same client, and the no-op ceiling of Switchboard's HTTP stack.
 *
 * <p>Each server runs in its own child JVM ({@link SqsServerMain}, loopback port); this JVM only
 * generates load. Per thread count: the ceiling first, then for each shape each system on a fresh
 * queue. The shapes are {@code single} (SendMessage → ReceiveMessage max 1 → DeleteMessage) and
 * {@code batch} (SendMessageBatch of 10 → ReceiveMessage max 10 → DeleteMessageBatch), wait time 0,
 * 100-byte bodies. The client ({@code --client}) is by default {@link LeanSqs}: the same
 * JSON-protocol requests, pre-built, on one blocking socket per thread, so that the load generator
 * takes as little of the machine as it can; {@code sdk} is the SDK's synchronous {@code SqsClient}
 * on its Apache 5 HTTP client, one per server, shared by all threads, with enough pooled
 * connections for every thread. Queues are created and deleted through the SDK either way. The
 * server CPU per message (its JVM's CPU time in the window over the messages moved) is the figure
 * that carries over to a machine where the load comes from elsewhere.
 *
 * <p>The ceiling is a DeleteMessage-sized request sent by the same kind of client to {@code POST
 * /v1/noop} on the Switchboard server (the SDK's is rewritten there by {@code
 * SqsLoad.NoopInterceptor}): same HTTP stack, no queue work, an empty answer. A cycle is 3 requests
 * for 1 (single) or 10 (batch) messages, so the ceiling in messages/s is {@code noop req/s ×
 * messages per cycle ÷ 3}.
 */
public final class SqsBench {

  static final String ENTRY = "sqs";
  static final int BODY_BYTES = 100;

  /** What to run. */
  record Options(
      List<Integer> threads,
      List<Shape> shapes,
      List<String> systems,
      Duration warmup,
      Duration measure,
      List<String> serverJvmFlags,
      String client,
      Path out,
      PrintStream log) {

    static Options parse(String[] args, PrintStream log) {
      ReportArgs ra = ReportArgs.parse(ENTRY, args);
      List<Integer> threads = List.of(1, 8, 64);
      List<Shape> shapes = List.of(Shape.SINGLE, Shape.BATCH);
      List<String> systems = List.of("switchboard", "elasticmq");
      Duration warmup = Duration.ofSeconds(3);
      Duration measure = Duration.ofSeconds(5);
      List<String> jvm = List.of("-Xms1g", "-Xmx1g");
      String client = "lean";
      String[] a = ra.rest();
      for (int i = 0; i < a.length; i++) {
        String flag = a[i];
        if (flag.equals("-h") || flag.equals("--help")) {
          throw new IllegalArgumentException(
              "usage: SqsBench [--threads 1,8,64] [--shapes single,batch]"
                  + " [--systems switchboard,elasticmq] [--warmup-seconds 3] [--measure-seconds 5]"
                  + " [--server-jvm \"-Xms1g -Xmx1g\"] [--client lean|sdk] [--out DIR]");
        }
        if (i + 1 >= a.length) {
          throw new IllegalArgumentException(flag + " needs a value; see the class javadoc");
        }
        String v = a[++i];
        switch (flag) {
          case "--threads" -> threads = Arrays.stream(v.split(",")).map(Integer::parseInt).toList();
          case "--shapes" -> shapes = Arrays.stream(v.split(",")).map(Shape::parse).toList();
          case "--systems" -> systems = systems(v);
          case "--warmup-seconds" -> warmup = seconds(v);
          case "--measure-seconds" -> measure = seconds(v);
          case "--server-jvm" -> jvm = List.of(v.trim().split("\\s+"));
          case "--client" -> {
            if (!v.equals("lean") && !v.equals("sdk")) {
              throw new IllegalArgumentException("clients are lean and sdk, got " + v);
            }
            client = v;
          }
          default ->
              throw new IllegalArgumentException(
                  "unknown flag "
                      + flag
                      + "; flags are --threads, --shapes, --systems, --warmup-seconds,"
                      + " --measure-seconds, --server-jvm, --client, --out");
        }
      }
      return new Options(threads, shapes, systems, warmup, measure, jvm, client, ra.out(), log);
    }

    private static List<String> systems(String v) {
      List<String> out = List.of(v.split(","));
      for (String s : out) {
        if (!s.equals("switchboard") && !s.equals("elasticmq")) {
          throw new IllegalArgumentException("systems are switchboard and elasticmq, got " + s);
        }
      }
      return out;
    }

    private static Duration seconds(String v) {
      return Duration.ofMillis((long) (Double.parseDouble(v) * 1000));
    }
  }

  /** The two workloads of docs/bench-history/sqs.md. */
  public enum Shape {
    SINGLE(1),
    BATCH(10);

    public final int messages;

    Shape(int messages) {
      this.messages = messages;
    }

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static Shape parse(String s) {
      return switch (s) {
        case "single" -> SINGLE;
        case "batch" -> BATCH;
        default -> throw new IllegalArgumentException("shapes are single and batch, got " + s);
      };
    }
  }

  private static final AtomicInteger QUEUES = new AtomicInteger();

  private SqsBench() {}

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args, System.out);
    run(o, RunInfo.capture(RunInfo.commandLine(SqsBench.class, args)), Machine.LOCAL);
  }

  /**
   * Runs every (threads, shape, system) and writes the report; returns it. CPU times are read from
   * {@code machine}, and reported as not measured where it cannot give them.
   */
  static Report run(Options o, RunInfo info, Machine machine)
      throws IOException, InterruptedException {
    PrintStream log = o.log();
    Files.createDirectories(o.out());
    Map<String, ChildServer> servers = new LinkedHashMap<>();
    Map<String, SqsLoad> loads = new LinkedHashMap<>();
    Map<String, LeanSqs> leans = new LinkedHashMap<>();
    boolean lean = o.client().equals("lean");
    int maxThreads = o.threads().stream().mapToInt(Integer::intValue).max().orElse(1);
    List<String> systems = new ArrayList<>(o.systems());
    if (!systems.contains("switchboard")) {
      systems.add(0, "switchboard"); // the ceiling runs on Switchboard's HTTP stack
    }
    try {
      for (String s : systems) {
        long t0 = System.nanoTime();
        ChildServer server =
            ChildServer.start(s, o.serverJvmFlags(), o.out().resolve(s + "-server.log"));
        servers.put(s, server);
        log.printf(
            Locale.ROOT,
            "started %s (pid %d) at %s in %d ms%n",
            s,
            server.pid,
            server.uri,
            (System.nanoTime() - t0) / 1_000_000);
        // the SDK client creates and deletes the queues; the lean one (default) runs the cycles
        loads.put(s, new SqsLoad(server.uri, lean ? 1 : maxThreads, false));
        if (lean) {
          leans.put(s, new LeanSqs(server.uri));
        }
      }
      ClosedLoop.CycleFactory noopCycle;
      if (lean) {
        noopCycle = started(leans, "switchboard").noop();
      } else {
        SqsLoad noop = new SqsLoad(started(servers, "switchboard").uri, maxThreads, true);
        loads.put("noop", noop);
        noopCycle = noop.noop();
      }
      Report report = newReport(o.client());
      // JIT warm-up of every path on both sides before anything is measured, so the first
      // measurement (the ceiling at the smallest thread count) is not the one that pays for it
      int warmThreads = Math.min(8, maxThreads);
      Sample.of(
          machine,
          o.warmup(),
          Duration.ZERO,
          started(servers, "switchboard"),
          "noop",
          warmThreads,
          noopCycle);
      for (Shape shape : o.shapes()) {
        for (String s : o.systems()) {
          measure(
              o,
              machine,
              started(servers, s),
              started(loads, s),
              leans.get(s),
              shape,
              warmThreads,
              Duration.ZERO);
        }
      }
      for (int threads : o.threads()) {
        Sample ceiling =
            Sample.of(
                machine,
                o.warmup(),
                o.measure(),
                started(servers, "switchboard"),
                "noop",
                threads,
                noopCycle);
        log.println(line(ceiling));
        for (Shape shape : o.shapes()) {
          Map<String, Sample> bySystem = new LinkedHashMap<>();
          for (String s : o.systems()) {
            Sample r =
                measure(
                    o,
                    machine,
                    started(servers, s),
                    started(loads, s),
                    leans.get(s),
                    shape,
                    threads,
                    o.measure());
            log.println(line(r));
            bySystem.put(s, r);
          }
          addRows(report, shape, threads, ceiling, bySystem);
        }
      }
      report.write(o.out(), info, log);
      return report;
    } finally {
      for (LeanSqs l : leans.values()) {
        l.close();
      }
      for (SqsLoad l : loads.values()) {
        l.close();
      }
      for (ChildServer s : servers.values()) {
        s.close();
      }
    }
  }

  /** What was started for {@code system}: every system measured has its server and load. */
  private static <T> T started(Map<String, T> bySystem, String system) {
    return Objects.requireNonNull(bySystem.get(system), () -> "nothing started for " + system);
  }

  private static Sample measure(
      Options o,
      Machine machine,
      ChildServer server,
      SqsLoad load,
      @Nullable LeanSqs lean,
      Shape shape,
      int threads,
      Duration window)
      throws InterruptedException {
    // a new name every time: SQS forbids re-creating a queue within 60 s of deleting it
    String queue =
        load.createQueue(
            server.system + "-" + shape.label() + "-" + threads + "-" + QUEUES.incrementAndGet());
    try {
      return Sample.of(
          machine,
          o.warmup(),
          window,
          server,
          shape.label(),
          threads,
          lean != null ? lean.cycle(shape, queue) : load.cycle(shape, queue));
    } finally {
      load.deleteQueue(queue);
    }
  }

  /**
   * A measurement with the CPU time the load generator (this JVM) and the server's JVM used in the
   * measured window: where the time goes, per request.
   */
  record Sample(Result result, OptionalLong clientCpuNanos, OptionalLong serverCpuNanos) {

    static Sample of(
        Machine machine,
        Duration warmup,
        Duration window,
        ChildServer server,
        String workload,
        int threads,
        ClosedLoop.CycleFactory f)
        throws InterruptedException {
      OptionalLong[] start = new OptionalLong[2];
      if (window.isZero()) {
        // warm-up only: run for the warm-up time, then a short window that is thrown away
        window = Duration.ofMillis(200);
      }
      long serverPid = server.process().pid();
      Result r =
          ClosedLoop.measure(
              warmup,
              window,
              server.system,
              workload,
              threads,
              f,
              () -> {
                start[0] = machine.ownCpuNanos();
                start[1] = machine.cpuNanos(serverPid);
              });
      return new Sample(
          r,
          Machine.between(start[0], machine.ownCpuNanos()),
          Machine.between(start[1], machine.cpuNanos(serverPid)));
    }

    Object clientCpuMicrosPerRequest() {
      return perRequest(clientCpuNanos, "no CPU time for the load generator's JVM on this machine");
    }

    Object serverCpuMicrosPerRequest() {
      return perRequest(
          serverCpuNanos, "no CPU time for the server's JVM (a child process) on this machine");
    }

    Object serverCpuMicrosPerMessage() {
      if (result.messages() == 0) {
        return Double.NaN; // a no-op moves none
      }
      return Report.measured(
          serverCpuNanos.isPresent()
              ? OptionalDouble.of(serverCpuNanos.getAsLong() / 1e3 / result.messages())
              : OptionalDouble.empty(),
          "no CPU time for the server's JVM (a child process) on this machine");
    }

    /** ElasticMQ's server CPU per message over this one's, when both were measured. */
    Object serverCpuPerMessageTimesLess(@Nullable Sample elastic) {
      OptionalDouble timesLess =
          elastic != null
                  && serverCpuNanos.isPresent()
                  && elastic.serverCpuNanos.isPresent()
                  && result.messages() > 0
                  && elastic.result.messages() > 0
                  && serverCpuNanos.getAsLong() > 0
              ? OptionalDouble.of(
                  (elastic.serverCpuNanos.getAsLong() / (double) elastic.result.messages())
                      / (serverCpuNanos.getAsLong() / (double) result.messages()))
              : OptionalDouble.empty();
      return Report.measured(
          timesLess, "no server CPU time for one of the two servers on this machine");
    }

    private Object perRequest(OptionalLong nanos, String why) {
      return Report.measured(
          nanos.isPresent()
              ? OptionalDouble.of(nanos.getAsLong() / 1e3 / result.requests())
              : OptionalDouble.empty(),
          why);
    }
  }

  static Report newReport(String client) {
    return Report.create(
            ENTRY,
            "SQS end to end, "
                + (client.equals("lean") ? "lean client" : "AWS SDK for Java v2")
                + ": Switchboard vs ElasticMQ",
            "shape",
            "threads",
            "case",
            "system",
            "requests/s",
            "messages/s",
            "p50 µs",
            "p99 µs",
            "failures",
            "client CPU µs/req",
            "server CPU µs/req",
            "of ceiling",
            "× ElasticMQ",
            "server CPU µs/msg",
            "server CPU/msg ÷ ElasticMQ's")
        .note(
            "single: SendMessage, ReceiveMessage max 1, DeleteMessage; batch: SendMessageBatch of"
                + " 10, ReceiveMessage max 10, DeleteMessageBatch; wait 0; 100-byte bodies;"
                + " latency is per cycle (3 requests)")
        .note(
            "ceiling: POST /v1/noop on Switchboard's HTTP stack through the same client;"
                + " messages/s = no-op req/s x messages per cycle / 3; latency per request")
        .note(
            client.equals("lean")
                ? "client: lean (pre-built JSON-protocol requests on one blocking keep-alive socket"
                    + " per thread, unsigned; queues made by the AWS SDK v2); servers in child JVMs"
                : "client: AWS SDK v2 SqsClient (sync, Apache 5 HTTP client); servers in child JVMs")
        .note(
            "server CPU µs/msg: the server JVM's CPU in the window / messages deleted;"
                + " ÷ ElasticMQ's = ElasticMQ's figure over Switchboard's, same run")
        .note(
            "CPU µs/req: CPU time of the load generator's JVM and of the server's JVM in the"
                + " measured window (all their threads: JIT and GC included) / requests")
        .chart(
            ChartSpec.bars("messages/s (log scale)", "messages/s", "case", "system", "messages/s")
                .log())
        .chart(ChartSpec.bars("Switchboard ÷ ElasticMQ", "×", "case", null, "× ElasticMQ"));
  }

  static void addRows(
      Report report, Shape shape, int threads, Sample ceilingSample, Map<String, Sample> bySystem) {
    String label = shape.label() + " ×" + threads;
    Result ceiling = ceilingSample.result();
    double ceilingMessages = ceiling.requestsPerSecond() * shape.messages / 3.0;
    report.row(
        shape.label(),
        threads,
        label,
        "ceiling (no-op)",
        ceiling.requestsPerSecond(),
        ceilingMessages,
        ceiling.p50Nanos() / 1e3,
        ceiling.p99Nanos() / 1e3,
        ceiling.failures(),
        ceilingSample.clientCpuMicrosPerRequest(),
        ceilingSample.serverCpuMicrosPerRequest(),
        1.0,
        Double.NaN,
        Double.NaN,
        Double.NaN);
    Sample elasticSample = bySystem.get("elasticmq");
    Result elastic = elasticSample != null ? elasticSample.result() : null;
    for (Sample sample : bySystem.values()) {
      Result r = sample.result();
      double vsElastic =
          r.system().equals("switchboard") && elastic != null && elastic.messages() > 0
              ? r.messagesPerSecond() / elastic.messagesPerSecond()
              : Double.NaN;
      report.row(
          shape.label(),
          threads,
          label,
          r.system(),
          r.requestsPerSecond(),
          r.messagesPerSecond(),
          r.p50Nanos() / 1e3,
          r.p99Nanos() / 1e3,
          r.failures(),
          sample.clientCpuMicrosPerRequest(),
          sample.serverCpuMicrosPerRequest(),
          r.messagesPerSecond() / ceilingMessages,
          vsElastic,
          sample.serverCpuMicrosPerMessage(),
          r.system().equals("switchboard")
              ? sample.serverCpuPerMessageTimesLess(elasticSample)
              : Double.NaN);
    }
  }

  private static String line(Sample s) {
    Result r = s.result();
    return String.format(
        Locale.ROOT,
        "%-11s %-6s %3d threads %,10.0f req/s %,10.0f msg/s  p50 %s  p99 %s  (%,d cycles, %d"
            + " failed; CPU µs/req client %s server %s; server CPU µs/msg %s)",
        r.system(),
        r.workload(),
        r.threads(),
        r.requestsPerSecond(),
        r.messagesPerSecond(),
        ClosedLoop.micros(r.p50Nanos()),
        ClosedLoop.micros(r.p99Nanos()),
        r.cycles(),
        r.failures(),
        Report.display(s.clientCpuMicrosPerRequest()),
        Report.display(s.serverCpuMicrosPerRequest()),
        Report.display(s.serverCpuMicrosPerMessage()));
  }
}
