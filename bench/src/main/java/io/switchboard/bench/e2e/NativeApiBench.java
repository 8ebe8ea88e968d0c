package io.switchboard.bench.e2e;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.bench.e2e.ClosedLoop.CycleFactory;
import io.switchboard.bench.e2e.ClosedLoop.Result;
import io.switchboard.bench.report.ChartSpec;
import io.switchboard.bench.report.Machine;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.bench.sqs.ChildServer;
import io.switchboard.client.AckResult;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.SwitchboardException;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.NativeWire;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.ReceiveRequest;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * End-to-end throughput of the native API, and the same machine's ceiling, in one run.
 *
 * <p>An in-process server (port 0, loopback) is driven by the Java client over real HTTP. The
 * end-to-end workload is the cycle {@code sendBatch} of 10 → {@code receive} max 10 (wait 0) →
 * {@code ackBatch} of what came back: three requests that move up to 10 messages, each sent,
 * received and acked once. The ceiling is {@code POST /v1/noop} on the same server: the same
 * routing, request accounting and metrics, a body of the cycle's mean request size read and
 * dropped, 204, no engine. It is driven by the same {@link HttpClient} (the client's connection
 * pool) with the same number of threads.
 *
 * <p>The ratio compares the two per request: a cycle is 3 requests for 10 messages, so if every
 * request cost what a no-op costs the server would move {@code ceiling × 10 / 3} messages/s; {@code
 * ratio = messages/s ÷ (ceiling req/s × 10 / 3)}. 1.0 would mean the queue work, JSON and bigger
 * responses cost nothing beyond the HTTP exchange.
 *
 * <p>A second, "sized" ceiling separates the HTTP bytes from the work: each of its cycles is three
 * no-ops ({@code POST /v1/noop?answerBytes=N}) with the request bodies the real {@code sendBatch},
 * {@code receive} and {@code ackBatch} send and answers of the sizes the server returns for them
 * (measured once per server by one real cycle, {@link Sizes}), still without engine or JSON work.
 * The ratio to it, computed the same way, is what the queue work and JSON on both ends cost.
 *
 * <p>Each measurement runs {@code threads} platform threads for a warm-up, then counts the cycles
 * that start inside the measurement window; the rate divides their messages by the time from the
 * window's start to the last such cycle's end. All threads share one queue, as producer-consumers
 * of one work queue would. The durable engine runs with {@code durability=sync}: a send batch is
 * answered after its fsync (group commit) in a temporary data directory.
 *
 * <p>Not part of CI beyond a one-second smoke test; see {@code docs/benchmarks.md}.
 */
public final class NativeApiBench {

  static final String ENTRY = "native-e2e";

  static final int BATCH = 10;
  static final int REQUESTS_PER_CYCLE = 3;
  static final int BODY_BYTES = 100;

  /** What to run and where to print. */
  record Options(
      List<Integer> threads,
      Duration warmup,
      Duration measure,
      List<String> engines,
      List<String> serverJvmFlags,
      PrintStream log) {

    /** The server JVM's flags by default. */
    static final List<String> SERVER_JVM = List.of("-Xms1g", "-Xmx1g");

    Options(
        List<Integer> threads,
        Duration warmup,
        Duration measure,
        List<String> engines,
        PrintStream log) {
      this(threads, warmup, measure, engines, SERVER_JVM, log);
    }

    static Options defaults() {
      return new Options(
          List.of(1, 8, 64),
          Duration.ofSeconds(3),
          Duration.ofSeconds(5),
          List.of("memory", "durable"),
          System.out);
    }
  }

  /**
   * The bodies of one real cycle as this client sends them, and the sizes of the server's answers
   * to them: what the sized ceiling sends and asks for.
   */
  record Sizes(
      byte[] sendBody,
      byte[] receiveBody,
      byte[] ackBody,
      int sendAnswer,
      int receiveAnswer,
      int ackAnswer) {

    String describe() {
      return String.format(
          Locale.ROOT,
          "sendBatch %d → %d bytes, receive %d → %d bytes, ackBatch %d → %d bytes",
          sendBody.length,
          sendAnswer,
          receiveBody.length,
          receiveAnswer,
          ackBody.length,
          ackAnswer);
    }
  }

  /** A measurement and the CPU time the server's JVM used in its window. */
  record Measured(Result result, OptionalLong serverCpuNanos) {

    /** Server CPU µs per request, or not measured. */
    Object perRequest() {
      return Report.measured(
          serverCpuNanos.isPresent() && result.requests() > 0
              ? OptionalDouble.of(serverCpuNanos.getAsLong() / 1e3 / result.requests())
              : OptionalDouble.empty(),
          "no CPU time for the server's JVM (a child process) on this machine");
    }

    /** Server CPU µs per message, or not measured. */
    Object perMessage() {
      return Report.measured(
          serverCpuNanos.isPresent() && result.messages() > 0
              ? OptionalDouble.of(serverCpuNanos.getAsLong() / 1e3 / result.messages())
              : OptionalDouble.empty(),
          "no CPU time for the server's JVM (a child process) on this machine");
    }
  }

  private NativeApiBench() {}

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    Options o = parse(ra.rest());
    run(o, ra.out(), RunInfo.capture(RunInfo.commandLine(NativeApiBench.class, args)));
  }

  /**
   * The rows as a report: per (engine, threads) the ceiling and the cycle, their ratio, and the
   * server's CPU per request and per message.
   */
  static Report report(List<Measured> measured) {
    Report r =
        Report.create(
                ENTRY,
                "End-to-end native API (batches of 10) vs the no-op ceiling, same server and client",
                "engine",
                "threads",
                "case",
                "no-op req/s",
                "no-op p50 µs",
                "no-op p99 µs",
                "e2e msg/s",
                "e2e cycle p50 µs",
                "e2e cycle p99 µs",
                "failures",
                "ratio to ceiling",
                "no-op server CPU µs/req",
                "e2e server CPU µs/req",
                "e2e server CPU µs/msg",
                "sized no-op req/s",
                "ratio to sized ceiling",
                "sized no-op server CPU µs/req")
            .note(
                "cycle: sendBatch of 10 (100-byte bodies), receive max 10 (wait 0), ackBatch;"
                    + " ratio = msg/s / (no-op req/s x 10 / 3)")
            .note(
                "sized ceiling: three no-ops per cycle with the cycle's request bodies and answers"
                    + " of its answers' sizes (POST /v1/noop?answerBytes=N); ratio to it computed"
                    + " the same way")
            .note(
                "server in a child JVM; server CPU: its CPU time in the measured window (all"
                    + " threads, JIT and GC included) / requests or messages")
            .chart(ChartSpec.bars("messages/s", "messages/s", "case", null, "e2e msg/s"))
            .chart(
                ChartSpec.bars(
                    "fraction of the ceiling", "ratio", "case", null, "ratio to ceiling"));
    for (int i = 0; i + 2 < measured.size(); i += 3) {
      Result c = measured.get(i).result();
      Result sized = measured.get(i + 1).result();
      Result e = measured.get(i + 2).result();
      r.row(
          e.system(),
          e.threads(),
          e.system() + " ×" + e.threads(),
          c.requestsPerSecond(),
          c.p50Nanos() / 1e3,
          c.p99Nanos() / 1e3,
          e.messagesPerSecond(),
          e.p50Nanos() / 1e3,
          e.p99Nanos() / 1e3,
          c.failures() + sized.failures() + e.failures(),
          ratio(e, c),
          measured.get(i).perRequest(),
          measured.get(i + 2).perRequest(),
          measured.get(i + 2).perMessage(),
          sized.requestsPerSecond(),
          ratio(e, sized),
          measured.get(i + 1).perRequest());
    }
    return r;
  }

  static Options parse(String[] args) {
    Options d = Options.defaults();
    List<Integer> threads = d.threads();
    Duration warmup = d.warmup();
    Duration measure = d.measure();
    List<String> engines = d.engines();
    List<String> serverJvm = d.serverJvmFlags();
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("-h") || flag.equals("--help")) {
        System.out.println(
            "usage: NativeApiBench [--threads 1,8,64] [--warmup-seconds 3] [--measure-seconds 5]"
                + " [--engines memory,durable] [--server-jvm \"-Xms1g -Xmx1g\"] [--out DIR]");
        System.exit(0);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      String value = args[++i];
      switch (flag) {
        case "--threads" ->
            threads = Arrays.stream(value.split(",")).map(Integer::parseInt).toList();
        case "--warmup-seconds" ->
            warmup = Duration.ofMillis((long) (Double.parseDouble(value) * 1000));
        case "--measure-seconds" ->
            measure = Duration.ofMillis((long) (Double.parseDouble(value) * 1000));
        case "--engines" -> engines = List.of(value.split(","));
        case "--server-jvm" -> serverJvm = List.of(value.trim().split("\\s+"));
        default -> throw new IllegalArgumentException("unknown flag " + flag + "; see --help");
      }
    }
    for (String e : engines) {
      if (!e.equals("memory") && !e.equals("durable")) {
        throw new IllegalArgumentException("engines are memory and durable, got " + e);
      }
    }
    return new Options(threads, warmup, measure, engines, serverJvm, System.out);
  }

  private static Measured measure(Options o, Target t, String workload, int threads, CycleFactory f)
      throws InterruptedException {
    String engine = t.engine;
    OptionalLong[] cpuFrom = {OptionalLong.empty()};
    OptionalLong[] serverFrom = {OptionalLong.empty()};
    long[] allocatedFrom = {0};
    Result r =
        ClosedLoop.measure(
            o.warmup(),
            o.measure(),
            engine,
            workload,
            threads,
            f,
            () -> {
              cpuFrom[0] = Machine.LOCAL.ownCpuNanos();
              serverFrom[0] = Machine.LOCAL.cpuNanos(t.server.pid);
              allocatedFrom[0] = allocatedBytes();
            });
    OptionalLong cpuTo = Machine.LOCAL.ownCpuNanos();
    OptionalLong serverCpu = Machine.between(serverFrom[0], Machine.LOCAL.cpuNanos(t.server.pid));
    long allocated = allocatedBytes() - allocatedFrom[0];
    if (cpuFrom[0].isPresent() && cpuTo.isPresent() && r.requests() > 0) {
      // The load generator's JVM (the client): its CPU (JIT and GC included) in the window and the
      // bytes it allocated; the server's JVM is a child process, read from outside
      double micros = (cpuTo.getAsLong() - cpuFrom[0].getAsLong()) / 1e3;
      o.log()
          .printf(
              Locale.ROOT,
              "%-8s %3d threads  %-5s client CPU %,.0f µs/request%s; client allocated %,.0f"
                  + " bytes/request%s; server CPU %s µs/request%n",
              engine,
              threads,
              workload,
              micros / r.requests(),
              r.messages() > 0
                  ? String.format(Locale.ROOT, ", %,.1f µs/message", micros / r.messages())
                  : "",
              (double) allocated / r.requests(),
              r.messages() > 0
                  ? String.format(
                      Locale.ROOT, ", %,.0f bytes/message", (double) allocated / r.messages())
                  : "",
              serverCpu.isPresent()
                  ? String.format(Locale.ROOT, "%,.1f", serverCpu.getAsLong() / 1e3 / r.requests())
                  : "n/a");
    }
    return new Measured(r, serverCpu);
  }

  /**
   * Heap bytes allocated by every thread of this JVM so far (virtual threads by their carriers).
   */
  private static long allocatedBytes() {
    return ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
        ? t.getTotalThreadAllocatedBytes()
        : 0;
  }

  /**
   * Runs every (threads, engine) pair, ceiling first, prints a table and, if {@code out} is given,
   * writes the report there; returns the rows.
   */
  static List<Result> run(Options o, Path out, RunInfo info)
      throws IOException, InterruptedException {
    PrintStream log = o.log();
    Path dataDir = Files.createTempDirectory("switchboard-e2e-bench");
    List<Target> targets = new ArrayList<>();
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    List<Result> results = new ArrayList<>();
    List<Measured> measured = new ArrayList<>();
    try {
      for (String engine : o.engines()) {
        targets.add(
            Target.start(engine, dataDir, http, o.serverJvmFlags(), (out != null ? out : dataDir)));
      }
      int noopBytes = meanRequestBytes();
      List<Sizes> sizes = new ArrayList<>();
      for (Target t : targets) {
        sizes.add(t.sizes());
        log.printf(
            Locale.ROOT, "%s: one cycle's bodies: %s%n", t.engine, sizes.getLast().describe());
      }
      log.printf(
          Locale.ROOT,
          "end-to-end native API: JDK %s, %d CPUs (%s), commit %s, %s%n",
          System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
          Runtime.getRuntime().availableProcessors(),
          RunInfo.cpuModel(),
          RunInfo.commit(),
          ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
      log.printf(
          Locale.ROOT,
          "cycle: sendBatch %d x %d-byte bodies, receive max %d (wait 0), ackBatch; no-op body %d"
              + " bytes (the cycle's mean request body); warm-up %d ms, measure %d ms%n",
          BATCH,
          BODY_BYTES,
          BATCH,
          noopBytes,
          o.warmup().toMillis(),
          o.measure().toMillis());
      // JIT warm-up of both workloads on every server before anything is measured, so the first
      // measurement (the first server's no-op) does not pay for its JVM's compilation
      int warmThreads =
          Math.min(8, o.threads().stream().mapToInt(Integer::intValue).max().orElse(1));
      for (int i = 0; i < targets.size(); i++) {
        Target t = targets.get(i);
        ClosedLoop.measure(
            o.warmup(), Duration.ofMillis(200), t.engine, "noop", warmThreads, t.noop(noopBytes));
        ClosedLoop.measure(
            o.warmup(),
            Duration.ofMillis(200),
            t.engine,
            "sized",
            warmThreads,
            t.sized(sizes.get(i)));
        ClosedLoop.measure(
            o.warmup(), Duration.ofMillis(200), t.engine, "e2e", warmThreads, t.cycle(warmThreads));
      }
      for (int threads : o.threads()) {
        for (int i = 0; i < targets.size(); i++) {
          Target t = targets.get(i);
          Measured ceiling = measure(o, t, "noop", threads, t.noop(noopBytes));
          log.println(line(ceiling.result(), ceiling.result(), ceiling.result()));
          Measured sized = measure(o, t, "sized", threads, t.sized(sizes.get(i)));
          log.println(line(sized.result(), ceiling.result(), sized.result()));
          Measured e2e = measure(o, t, "e2e", threads, t.cycle(threads));
          log.println(line(e2e.result(), ceiling.result(), sized.result()));
          results.add(ceiling.result());
          results.add(sized.result());
          results.add(e2e.result());
          measured.add(ceiling);
          measured.add(sized);
          measured.add(e2e);
        }
      }
      log.println();
      table(log, results);
      if (out != null) {
        report(measured).write(out, info, log);
      }
      return results;
    } finally {
      for (Target t : targets) {
        t.close();
      }
      http.close();
      deleteTree(dataDir);
    }
  }

  // ---- the two workloads ---------------------------------------------------------------------

  /**
   * One server in a child JVM (so its CPU time can be read on its own) and a client of it, sharing
   * the benchmark's HTTP client.
   */
  private static final class Target implements AutoCloseable {
    final String engine;
    final ChildServer server;
    final SwitchboardClient client;
    final HttpClient http;
    int scenario;

    private Target(String engine, ChildServer server, HttpClient http) {
      this.engine = engine;
      this.server = server;
      this.http = http;
      this.client = SwitchboardClient.builder().baseUri(server.uri).httpClient(http).build();
    }

    static Target start(
        String engine, Path dataDir, HttpClient http, List<String> jvmFlags, Path logDir)
        throws IOException, InterruptedException {
      List<String> settings =
          engine.equals("memory")
              ? List.of()
              : List.of(
                  "in-memory=false", "data-dir=" + dataDir.resolve(engine), "durability=sync");
      Files.createDirectories(logDir);
      return new Target(
          engine,
          ChildServer.start(
              "switchboard", settings, jvmFlags, logDir.resolve(engine + "-server.log")),
          http);
    }

    CycleFactory noop(int bodyBytes) {
      String pad = "x".repeat(Math.max(0, bodyBytes - "{\"pad\":\"\"}".length()));
      byte[] body = ("{\"pad\":\"" + pad + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(server.uri + "/v1/noop"))
              .timeout(Duration.ofSeconds(30))
              .header("Accept", "application/json")
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofByteArray(body))
              .build();
      return index ->
          () -> {
            try {
              HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
              return new long[] {0, 1, r.statusCode() == 204 ? 0 : 1};
            } catch (IOException e) {
              return transportFailure(e);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException(e);
            }
          };
    }

    /**
     * One real cycle, made by hand with the bodies the client sends ({@link NativeWire}'s records
     * as {@link Json#bytes} writes them), on a queue of its own: the sized ceiling's bodies and its
     * answers' sizes.
     */
    Sizes sizes() throws IOException, InterruptedException {
      String queue = "e2e-" + engine + "-sizes";
      client.createQueue(queue, QueueConfig.defaults());
      String path = "/v1/queues/" + queue;
      byte[] send =
          Json.bytes(
              new NativeWire.SendBatch(batch(0).stream().map(NativeWire.SendMessage::of).toList()));
      byte[] sendAnswer = post(path + "/messages/batch", send, 201);
      byte[] receive =
          Json.bytes(
              NativeWire.Receive.of(
                  ReceiveRequest.builder().maxMessages(BATCH).waitTime(Duration.ZERO).build(),
                  java.util.Optional.empty()));
      byte[] receiveAnswer = post(path + "/receive", receive, 200);
      List<String> receipts = new ArrayList<>();
      for (Message m : Json.lenient(receiveAnswer, NativeWire.Messages.class).toMessages()) {
        receipts.add(m.receipt().orElseThrow());
      }
      if (receipts.size() != BATCH) {
        throw new IllegalStateException(
            "the sizing cycle received " + receipts.size() + " messages, not " + BATCH);
      }
      byte[] ack = Json.bytes(new NativeWire.AckBatch(receipts));
      byte[] ackAnswer = post(path + "/acks", ack, 200);
      client.deleteQueue(queue);
      return new Sizes(
          send, receive, ack, sendAnswer.length, receiveAnswer.length, ackAnswer.length);
    }

    private byte[] post(String path, byte[] body, int expected)
        throws IOException, InterruptedException {
      HttpResponse<byte[]> r = http.send(post(URI.create(server.uri + path), body), BYTES);
      if (r.statusCode() != expected) {
        throw new IllegalStateException(
            "POST " + path + " answered " + r.statusCode() + ", not " + expected);
      }
      return r.body();
    }

    private static HttpRequest post(URI uri, byte[] body) {
      return HttpRequest.newBuilder(uri)
          .timeout(Duration.ofSeconds(30))
          .header("Accept", "application/json")
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofByteArray(body))
          .build();
    }

    /**
     * The sized ceiling: per cycle three no-ops with the cycle's request bodies, each asking for an
     * answer of the size the real request gets; 3 requests, no messages.
     */
    CycleFactory sized(Sizes s) {
      HttpRequest[] requests = {
        post(noopUri(s.sendAnswer()), s.sendBody()),
        post(noopUri(s.receiveAnswer()), s.receiveBody()),
        post(noopUri(s.ackAnswer()), s.ackBody())
      };
      return index ->
          () -> {
            long failed = 0;
            for (HttpRequest request : requests) {
              try {
                failed += http.send(request, BYTES).statusCode() == 200 ? 0 : 1;
              } catch (IOException e) {
                return transportFailure(e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
              }
            }
            return new long[] {0, REQUESTS_PER_CYCLE, failed};
          };
    }

    private URI noopUri(int answerBytes) {
      return URI.create(server.uri + "/v1/noop?answerBytes=" + answerBytes);
    }

    private static final HttpResponse.BodyHandler<byte[]> BYTES =
        HttpResponse.BodyHandlers.ofByteArray();

    /** A fresh queue per measurement, so one run's leftovers do not weigh on the next. */
    CycleFactory cycle(int threads) {
      String queue = "e2e-" + engine + "-" + threads + "-" + scenario++;
      client.createQueue(queue, QueueConfig.defaults());
      ReceiveRequest receive =
          ReceiveRequest.builder().maxMessages(BATCH).waitTime(Duration.ZERO).build();
      return index -> {
        List<NewMessage> batch = batch(index);
        return () -> {
          try {
            return cycle(queue, batch, receive);
          } catch (SwitchboardException e) {
            if (e.status() != 0) {
              throw e;
            }
            return transportFailure(e);
          }
        };
      };
    }

    private long[] cycle(String queue, List<NewMessage> batch, ReceiveRequest receive) {
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
    }

    @Override
    public void close() throws IOException, InterruptedException {
      client.close();
      server.close();
    }
  }

  /**
   * A request that got no answer counts as a failure and the thread goes on; the first few are
   * printed. (Seen on a loaded machine: the JDK client's "Data received while in pool".)
   */
  private static long[] transportFailure(Exception e) {
    if (TRANSPORT_FAILURES.incrementAndGet() <= 3) {
      System.err.println("request failed without an answer: " + e);
    }
    return new long[] {0, 1, 1};
  }

  private static final java.util.concurrent.atomic.AtomicLong TRANSPORT_FAILURES =
      new java.util.concurrent.atomic.AtomicLong();

  static List<NewMessage> batch(int thread) {
    List<NewMessage> out = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      String prefix = "t" + thread + "-m" + i + "-";
      out.add(NewMessage.builder(prefix + "x".repeat(BODY_BYTES - prefix.length())).build());
    }
    return List.copyOf(out);
  }

  /**
   * The mean request body of one cycle, as the client sends it: a send batch of 10, a receive, an
   * ack batch of 10 receipts (27 characters each, as the engine makes them).
   */
  static int meanRequestBytes() {
    ObjectNode send = WireFormat.object();
    ArrayNode messages = send.putArray("messages");
    batch(0).forEach(m -> messages.add(WireFormat.newMessage(m)));
    ObjectNode receive = WireFormat.object().put("maxMessages", BATCH).put("waitTimeSeconds", 0);
    ObjectNode ack = WireFormat.object();
    ArrayNode receipts = ack.putArray("receipts");
    for (int i = 0; i < BATCH; i++) {
      receipts.add("x".repeat(27));
    }
    int total =
        WireFormat.bytes(send).length
            + WireFormat.bytes(receive).length
            + WireFormat.bytes(ack).length;
    return Math.round(total / (float) REQUESTS_PER_CYCLE);
  }

  /**
   * The end-to-end rate as a fraction of what the no-op ceiling allows for 10 messages / 3
   * requests.
   */
  static double ratio(Result e2e, Result ceiling) {
    return e2e.messagesPerSecond()
        / (ceiling.requestsPerSecond() * BATCH / (double) REQUESTS_PER_CYCLE);
  }

  // ---- output --------------------------------------------------------------------------------

  private static String line(Result r, Result ceiling, Result sized) {
    if (r.workload().equals("sized")) {
      return String.format(
          Locale.ROOT,
          "%-8s %3d threads  sized %,10.0f req/s  cycle p50 %s  p99 %s  (%,d requests, %d failed)",
          r.system(),
          r.threads(),
          r.requestsPerSecond(),
          ClosedLoop.micros(r.p50Nanos()),
          ClosedLoop.micros(r.p99Nanos()),
          r.requests(),
          r.failures());
    }
    if (r.workload().equals("noop")) {
      return String.format(
          Locale.ROOT,
          "%-8s %3d threads  noop  %,10.0f req/s  p50 %s  p99 %s  (%,d requests, %d failed)",
          r.system(),
          r.threads(),
          r.requestsPerSecond(),
          ClosedLoop.micros(r.p50Nanos()),
          ClosedLoop.micros(r.p99Nanos()),
          r.requests(),
          r.failures());
    }
    return String.format(
        Locale.ROOT,
        "%-8s %3d threads  e2e   %,10.0f msg/s  cycle p50 %s  p99 %s  ratio %.2f  to sized %.2f"
            + "  (%,d cycles, %,d requests, %d failed, load %s)",
        r.system(),
        r.threads(),
        r.messagesPerSecond(),
        ClosedLoop.micros(r.p50Nanos()),
        ClosedLoop.micros(r.p99Nanos()),
        ratio(r, ceiling),
        ratio(r, sized),
        r.cycles(),
        r.requests(),
        r.failures(),
        RunInfo.loadAverages(Machine.LOCAL));
  }

  private static void table(PrintStream log, List<Result> results) {
    log.println(
        "| engine | threads | no-op req/s | no-op p50 / p99 | e2e msg/s | e2e cycle p50 / p99 |"
            + " ratio | sized no-op req/s | ratio to sized |");
    log.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (int i = 0; i + 2 < results.size(); i += 3) {
      Result c = results.get(i);
      Result sized = results.get(i + 1);
      Result e = results.get(i + 2);
      log.printf(
          Locale.ROOT,
          "| %s | %d | %,.0f | %s / %s | %,.0f | %s / %s | %.2f | %,.0f | %.2f |%n",
          e.system(),
          e.threads(),
          c.requestsPerSecond(),
          ClosedLoop.micros(c.p50Nanos()),
          ClosedLoop.micros(c.p99Nanos()),
          e.messagesPerSecond(),
          ClosedLoop.micros(e.p50Nanos()),
          ClosedLoop.micros(e.p99Nanos()),
          ratio(e, c),
          sized.requestsPerSecond(),
          ratio(e, sized));
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
