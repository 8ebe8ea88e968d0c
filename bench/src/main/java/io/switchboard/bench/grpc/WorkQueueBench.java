package io.switchboard.bench.grpc;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.MessageProperties;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.switchboard.bench.report.ChartSpec;
import io.switchboard.bench.report.Report;
import io.switchboard.bench.report.ReportArgs;
import io.switchboard.bench.report.RunInfo;
import io.switchboard.bench.sqs.ChildServer;
import io.switchboard.bench.sqs.SqsServerMain;
import io.switchboard.proto.QueuesService;
import io.switchboard.proto.v1.Acks;
import io.switchboard.proto.v1.ConsumeOpen;
import io.switchboard.proto.v1.ConsumeRequest;
import io.switchboard.proto.v1.ConsumeResponse;
import io.switchboard.proto.v1.CreateQueueRequest;
import io.switchboard.proto.v1.OutgoingMessage;
import io.switchboard.proto.v1.PublishRequest;
import io.switchboard.proto.v1.PublishResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * The work queue side by side (docs/benchmarks.md, "Work queue: gRPC streams and RabbitMQ"): P
 * producers each send batches of B messages of S bytes and wait until the batch is confirmed
 * durable (Switchboard: one batched {@code Publish} request answered once the engine's fsync is
 * done; RabbitMQ: publisher confirms), C consumers each hold up to {@code --credit} unacked
 * messages and ack every B they got at once (Switchboard: one {@code acks} request on the {@code
 * Consume} stream, one engine ackAll; RabbitMQ: one {@code basicAck} with {@code multiple}). Each
 * target gets a warm-up, then a measured window: messages consumed per second, and the CPU time per
 * message of the server process (Switchboard's child JVM, RabbitMQ's {@code beam.smp}) and of this
 * JVM (the clients).
 *
 * <p>Targets: {@code grpc} (durability=sync, RocksDB), {@code grpc-memory} (in-memory), {@code
 * quorum} (RabbitMQ quorum queue), {@code classic} (classic durable queue, persistent messages),
 * {@code transient} (classic non-durable queue, transient messages); and send to delivery on an
 * idle queue, one message at a time: {@code latency} (durable), {@code latency-memory}, {@code
 * latency-quorum} (RabbitMQ quorum queue). RabbitMQ must be running on 127.0.0.1:5672 with the
 * guest user (bench/run.sh starts it).
 */
public final class WorkQueueBench {

  private static final String ENTRY = "workqueue";

  private WorkQueueBench() {}

  record Options(
      int producers,
      int consumers,
      int batch,
      int bodyBytes,
      int credit,
      Duration warmup,
      Duration measured,
      List<String> targets,
      List<String> serverJvm) {}

  /**
   * One target's figures; {@code p50Millis} / {@code p99Millis} (send to delivery on an idle queue)
   * only for the latency targets.
   */
  record Result(
      String target,
      double perSecond,
      double serverMicros,
      double clientMicros,
      OptionalDouble p50Millis,
      OptionalDouble p99Millis) {

    Result(String target, double perSecond, double serverMicros, double clientMicros) {
      this(
          target,
          perSecond,
          serverMicros,
          clientMicros,
          OptionalDouble.empty(),
          OptionalDouble.empty());
    }
  }

  public static void main(String[] args) throws Exception {
    ReportArgs ra = ReportArgs.parse(ENTRY, args);
    Options o = parse(ra.rest());
    RunInfo info = RunInfo.capture(RunInfo.commandLine(WorkQueueBench.class, args));
    run(o, ra.out(), info, System.out);
    System.exit(0); // nothing of the load lingers, but a stuck RabbitMQ client thread must not
  }

  /** Runs every target of {@code o} one after the other; writes the report into {@code out}. */
  static List<Result> run(Options o, Path out, RunInfo info, java.io.PrintStream printed)
      throws Exception {
    Path work = Files.createTempDirectory("workqueue-bench");
    List<Result> results = new ArrayList<>();
    for (String target : o.targets()) {
      System.err.println("== " + target);
      results.add(
          switch (target) {
            case "grpc" -> grpc(o, work, true);
            case "grpc-memory" -> grpc(o, work, false);
            case "latency" -> latency(o, work, true);
            case "latency-memory" -> latency(o, work, false);
            case "latency-quorum" -> rabbitLatency(o);
            case "quorum", "classic", "transient" -> rabbit(o, target);
            default -> throw new IllegalArgumentException("unknown target " + target);
          });
      System.err.println("   " + results.get(results.size() - 1));
    }
    Report report =
        Report.create(
            ENTRY,
            "Work queue: "
                + o.producers()
                + " producers (batches of "
                + o.batch()
                + ", confirmed), "
                + o.consumers()
                + " consumers (ack per batch), "
                + o.bodyBytes()
                + "-byte bodies",
            "target",
            "msgs/s",
            "server CPU µs/msg",
            "client CPU µs/msg",
            "delivery p50 ms",
            "delivery p99 ms");
    String throughput = "a throughput target; the latency targets measure send to delivery";
    for (Result r : results) {
      report.row(
          r.target(),
          Math.round(r.perSecond()),
          Math.round(r.serverMicros() * 10) / 10.0,
          Math.round(r.clientMicros() * 10) / 10.0,
          Report.measured(round3(r.p50Millis()), throughput),
          Report.measured(round3(r.p99Millis()), throughput));
    }
    report
        .chart(ChartSpec.bars("messages per second", "msgs/s", "target", null, "msgs/s"))
        .chart(
            ChartSpec.bars(
                "server CPU per message", "µs/msg", "target", null, "server CPU µs/msg"));
    report.note(
        "warm-up "
            + o.warmup().toMillis()
            + " ms, measured "
            + o.measured().toMillis()
            + " ms per target, targets one after another; credit/prefetch "
            + o.credit());
    report.write(out, info.ended(), printed);
    return results;
  }

  private static OptionalDouble round3(OptionalDouble v) {
    return v.isPresent() ? OptionalDouble.of(Math.round(v.getAsDouble() * 1000) / 1000.0) : v;
  }

  private static Options parse(String[] args) {
    int producers = 8;
    int consumers = 8;
    int batch = 10;
    int body = 100;
    int credit = 100;
    int warmup = 10;
    int seconds = 20;
    List<String> targets = List.of("grpc", "quorum", "classic");
    List<String> serverJvm = List.of("-Xms1g", "-Xmx1g");
    for (int i = 0; i < args.length; i += 2) {
      String v = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--producers" -> producers = Integer.parseInt(v);
        case "--consumers" -> consumers = Integer.parseInt(v);
        case "--batch" -> batch = Integer.parseInt(v);
        case "--body" -> body = Integer.parseInt(v);
        case "--credit" -> credit = Integer.parseInt(v);
        case "--warmup" -> warmup = Integer.parseInt(v);
        case "--seconds" -> seconds = Integer.parseInt(v);
        case "--targets" -> targets = Arrays.asList(v.split(","));
        case "--server-jvm" -> serverJvm = List.of(v.trim().split("\\s+"));
        default ->
            throw new IllegalArgumentException(
                "usage: WorkQueueBench [--producers 8] [--consumers 8] [--batch 10] [--body 100]"
                    + " [--credit 100] [--warmup 10] [--seconds 20] [--targets"
                    + " grpc,grpc-memory,latency,latency-memory,latency-quorum,quorum,classic,transient] [--server-jvm \"-Xms1g -Xmx1g\"]"
                    + " [--out DIR]; got "
                    + args[i]);
      }
    }
    return new Options(
        producers,
        consumers,
        batch,
        body,
        credit,
        Duration.ofSeconds(warmup),
        Duration.ofSeconds(seconds),
        targets,
        serverJvm);
  }

  // ---- measuring ---------------------------------------------------------------------------

  /** Counts consumed messages; runs warm-up then the measured window; stops the load. */
  private static Result measure(
      String target, Options o, ProcessHandle server, LongAdder consumed, AtomicBoolean running)
      throws InterruptedException {
    Thread.sleep(o.warmup().toMillis());
    long c0 = consumed.sum();
    long s0 = cpuNanos(server);
    long k0 = cpuNanos(ProcessHandle.current());
    long t0 = System.nanoTime();
    Thread.sleep(o.measured().toMillis());
    long c1 = consumed.sum();
    long s1 = cpuNanos(server);
    long k1 = cpuNanos(ProcessHandle.current());
    long t1 = System.nanoTime();
    running.set(false);
    long n = Math.max(1, c1 - c0);
    return new Result(target, n * 1e9 / (t1 - t0), (s1 - s0) / 1e3 / n, (k1 - k0) / 1e3 / n);
  }

  private static long cpuNanos(ProcessHandle p) {
    return p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
  }

  private static String body(int bytes) {
    return "x".repeat(bytes);
  }

  // ---- Switchboard over gRPC ---------------------------------------------------------------

  private static Result grpc(Options o, Path work, boolean durable) throws Exception {
    int grpcPort = SqsServerMain.freePort();
    List<String> settings = new ArrayList<>();
    settings.add("grpc-port=" + grpcPort);
    settings.add("grpc-max-credit=" + Math.max(o.credit(), 1000));
    if (durable) {
      settings.addAll(
          List.of("in-memory=false", "data-dir=" + work.resolve("switchboard"), "durability=sync"));
    }
    String target = durable ? "grpc" : "grpc-memory";
    try (ChildServer server =
        ChildServer.start("switchboard", settings, o.serverJvm(), work.resolve(target + ".log"))) {
      ManagedChannel producers =
          NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
      ManagedChannel consumers =
          NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
      try {
        ClientCalls.blockingUnaryCall(
            producers,
            QueuesService.CREATE_QUEUE,
            CallOptions.DEFAULT,
            CreateQueueRequest.newBuilder().setName("work").setConfigJson("{}").build());
        AtomicBoolean running = new AtomicBoolean(true);
        LongAdder consumed = new LongAdder();
        List<Thread> threads = new ArrayList<>();
        PublishRequest.Builder batch = PublishRequest.newBuilder().setQueue("work");
        for (int i = 0; i < o.batch(); i++) {
          batch.addBatch(OutgoingMessage.newBuilder().setBody(body(o.bodyBytes())));
        }
        PublishRequest request = batch.build();
        for (int p = 0; p < o.producers(); p++) {
          threads.add(
              Thread.ofPlatform().daemon().start(() -> grpcProducer(producers, request, running)));
        }
        List<StreamObserver<ConsumeRequest>> streams = new ArrayList<>();
        for (int c = 0; c < o.consumers(); c++) {
          streams.add(grpcConsumer(consumers, o, consumed));
        }
        Result r = measure(target, o, server.process(), consumed, running);
        for (Thread t : threads) {
          t.join(10_000);
        }
        streams.forEach(
            s -> {
              try {
                s.onCompleted();
              } catch (RuntimeException closed) {
                // already ended
              }
            });
        return r;
      } finally {
        producers.shutdownNow();
        consumers.shutdownNow();
      }
    }
  }

  /** Sends one batch, waits for its answer (durable), again, while running. */
  private static void grpcProducer(
      ManagedChannel channel, PublishRequest batch, AtomicBoolean running) {
    BlockingQueue<Object> answers = new ArrayBlockingQueue<>(16);
    StreamObserver<PublishRequest> requests = publishStream(channel, answers);
    try {
      while (running.get()) {
        requests.onNext(batch);
        Object a = answers.poll(30, TimeUnit.SECONDS);
        if (!(a instanceof PublishResponse)) {
          System.err.println("publish stream ended: " + a);
          return;
        }
      }
      requests.onCompleted();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Opens a Publish stream whose answers go to {@code answers}: each {@link PublishResponse}, then
   * the error or {@code "end"} that closes it, so a reader waiting for a response sees the end too.
   */
  private static StreamObserver<PublishRequest> publishStream(
      ManagedChannel channel, BlockingQueue<Object> answers) {
    return ClientCalls.asyncBidiStreamingCall(
        channel.newCall(QueuesService.PUBLISH, CallOptions.DEFAULT),
        new StreamObserver<PublishResponse>() {
          @Override
          public void onNext(PublishResponse value) {
            answers.add(value);
          }

          @Override
          public void onError(Throwable t) {
            answers.add(t);
          }

          @Override
          public void onCompleted() {
            answers.add("end");
          }
        });
  }

  /** A Consume stream that acks each batch of deliveries at once (on the stream). */
  private static StreamObserver<ConsumeRequest> grpcConsumer(
      ManagedChannel channel, Options o, LongAdder consumed) throws InterruptedException {
    CountDownLatch opened = new CountDownLatch(1);
    List<String> pending = new ArrayList<>();
    Object lock = new Object();
    @SuppressWarnings("unchecked")
    StreamObserver<ConsumeRequest>[] requests = new StreamObserver[1];
    requests[0] =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(QueuesService.CONSUME, CallOptions.DEFAULT),
            new StreamObserver<ConsumeResponse>() {
              @Override
              public void onNext(ConsumeResponse value) {
                switch (value.getKindCase()) {
                  case OPENED -> opened.countDown();
                  case MESSAGE -> {
                    synchronized (lock) {
                      pending.add(value.getMessage().getReceipt());
                      if (pending.size() >= o.batch()) {
                        requests[0].onNext(
                            ConsumeRequest.newBuilder()
                                .setAcks(Acks.newBuilder().addAllReceipts(pending))
                                .build());
                        consumed.add(pending.size());
                        pending.clear();
                      }
                    }
                  }
                  default -> {}
                }
              }

              @Override
              public void onError(Throwable t) {
                opened.countDown();
              }

              @Override
              public void onCompleted() {}
            });
    requests[0].onNext(
        ConsumeRequest.newBuilder()
            .setOpen(ConsumeOpen.newBuilder().setQueue("work").setCredit(o.credit()))
            .build());
    if (!opened.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the Consume stream did not open within 30 s");
    }
    return requests[0];
  }

  // ---- latency on an idle queue ------------------------------------------------------------

  /**
   * Send to delivery on an idle queue: one {@code Consume} stream (credit {@code --credit}) waits
   * on the empty queue; one {@code Publish} stream sends a single message, the time from just
   * before the send to the delivery's arrival at the consumer is one sample; the consumer acks it
   * and the next message is sent once both the ack's answer and the publish's are back, so every
   * send finds the queue empty and the consumer waiting. Samples of the warm-up are dropped; the
   * loop goes on past the measured window until it has {@link #MIN_SAMPLES}.
   */
  private static Result latency(Options o, Path work, boolean durable) throws Exception {
    int grpcPort = SqsServerMain.freePort();
    List<String> settings = new ArrayList<>();
    settings.add("grpc-port=" + grpcPort);
    String target = durable ? "latency" : "latency-memory";
    if (durable) {
      settings.addAll(
          List.of("in-memory=false", "data-dir=" + work.resolve(target), "durability=sync"));
    }
    try (ChildServer server =
        ChildServer.start("switchboard", settings, o.serverJvm(), work.resolve(target + ".log"))) {
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
      try {
        ClientCalls.blockingUnaryCall(
            channel,
            QueuesService.CREATE_QUEUE,
            CallOptions.DEFAULT,
            CreateQueueRequest.newBuilder().setName("idle").setConfigJson("{}").build());
        BlockingQueue<Object> delivered = new ArrayBlockingQueue<>(16);
        BlockingQueue<Object> settled = new ArrayBlockingQueue<>(16);
        CountDownLatch opened = new CountDownLatch(1);
        StreamObserver<ConsumeRequest> consume =
            ClientCalls.asyncBidiStreamingCall(
                channel.newCall(QueuesService.CONSUME, CallOptions.DEFAULT),
                new StreamObserver<ConsumeResponse>() {
                  @Override
                  public void onNext(ConsumeResponse value) {
                    switch (value.getKindCase()) {
                      case OPENED -> opened.countDown();
                      case MESSAGE -> {
                        long at = System.nanoTime();
                        delivered.add(new Delivered(at, value.getMessage().getReceipt()));
                      }
                      case SETTLED -> settled.add(value.getSettled());
                      default -> {}
                    }
                  }

                  @Override
                  public void onError(Throwable t) {
                    delivered.add(t);
                    settled.add(t);
                    opened.countDown();
                  }

                  @Override
                  public void onCompleted() {}
                });
        consume.onNext(
            ConsumeRequest.newBuilder()
                .setOpen(ConsumeOpen.newBuilder().setQueue("idle").setCredit(o.credit()))
                .build());
        if (!opened.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the Consume stream did not open within 30 s");
        }
        BlockingQueue<Object> published = new ArrayBlockingQueue<>(16);
        StreamObserver<PublishRequest> publish = publishStream(channel, published);
        PublishRequest one =
            PublishRequest.newBuilder()
                .setQueue("idle")
                .setMessage(OutgoingMessage.newBuilder().setBody(body(o.bodyBytes())))
                .build();
        long warmEnd = System.nanoTime() + o.warmup().toNanos();
        long end = warmEnd + o.measured().toNanos();
        List<Long> samples = new ArrayList<>();
        long s0 = 0;
        long k0 = 0;
        long t0 = 0;
        boolean measuring = false;
        long now;
        while ((now = System.nanoTime()) < end || samples.size() < MIN_SAMPLES) {
          if (!measuring && now >= warmEnd) {
            measuring = true;
            s0 = cpuNanos(server.process());
            k0 = cpuNanos(ProcessHandle.current());
            t0 = now;
          }
          long sentAt = System.nanoTime();
          publish.onNext(one);
          Object d = delivered.poll(30, TimeUnit.SECONDS);
          if (!(d instanceof Delivered got)) {
            throw new IllegalStateException("no delivery within 30 s: " + d);
          }
          if (measuring) {
            samples.add(got.at() - sentAt);
          }
          consume.onNext(
              ConsumeRequest.newBuilder()
                  .setAck(io.switchboard.proto.v1.Ack.newBuilder().setReceipt(got.receipt()))
                  .build());
          Object p = published.poll(30, TimeUnit.SECONDS);
          Object a = settled.poll(30, TimeUnit.SECONDS);
          if (!(p instanceof PublishResponse) || !(a instanceof io.switchboard.proto.v1.Settled)) {
            throw new IllegalStateException("publish or ack not answered: " + p + ", " + a);
          }
        }
        long s1 = cpuNanos(server.process());
        long k1 = cpuNanos(ProcessHandle.current());
        long t1 = System.nanoTime();
        publish.onCompleted();
        consume.onCompleted();
        int n = Math.max(1, samples.size());
        long[] sorted = samples.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Result(
            target,
            n * 1e9 / Math.max(1, t1 - t0),
            (s1 - s0) / 1e3 / n,
            (k1 - k0) / 1e3 / n,
            OptionalDouble.of(percentile(sorted, 0.50) / 1e6),
            OptionalDouble.of(percentile(sorted, 0.99) / 1e6));
      } finally {
        channel.shutdownNow();
      }
    }
  }

  private record Delivered(long at, String receipt) {}

  /**
   * A latency loop goes on past its window until it has this many samples: on a loaded machine a
   * cold server's first round trips can outlast a short window.
   */
  private static final int MIN_SAMPLES = 10;

  /** The {@code q} quantile of {@code sorted} (nearest rank); 0 when there is no sample. */
  static long percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
  }

  // ---- RabbitMQ ----------------------------------------------------------------------------

  /**
   * Send to delivery on an idle RabbitMQ quorum queue, as {@link #latency} does it: one consumer
   * ({@code basicQos(--credit)}) waits; one persistent message is published and confirmed, the time
   * from just before the publish to {@code handleDelivery} is one sample; the consumer acks it and
   * the next is published once the confirm is back.
   */
  private static Result rabbitLatency(Options o) throws Exception {
    ProcessHandle beam = beam();
    ConnectionFactory f = new ConnectionFactory();
    f.setHost("127.0.0.1");
    f.setPort(5672);
    String queue = "bench-latency-quorum";
    try (Connection connection = f.newConnection("latency")) {
      Channel consumer = connection.createChannel();
      Channel producer = connection.createChannel();
      producer.queueDelete(queue);
      producer.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "quorum"));
      producer.confirmSelect();
      consumer.basicQos(o.credit());
      BlockingQueue<Long> delivered = new ArrayBlockingQueue<>(16);
      consumer.basicConsume(
          queue,
          false,
          new DefaultConsumer(consumer) {
            @Override
            public void handleDelivery(
                String tag, Envelope envelope, AMQP.BasicProperties props, byte[] data)
                throws IOException {
              delivered.add(System.nanoTime());
              consumer.basicAck(envelope.getDeliveryTag(), false);
            }
          });
      byte[] body = body(o.bodyBytes()).getBytes(StandardCharsets.UTF_8);
      long warmEnd = System.nanoTime() + o.warmup().toNanos();
      long end = warmEnd + o.measured().toNanos();
      List<Long> samples = new ArrayList<>();
      long s0 = 0;
      long k0 = 0;
      long t0 = 0;
      boolean measuring = false;
      long now;
      while ((now = System.nanoTime()) < end || samples.size() < MIN_SAMPLES) {
        if (!measuring && now >= warmEnd) {
          measuring = true;
          s0 = cpuNanos(beam);
          k0 = cpuNanos(ProcessHandle.current());
          t0 = now;
        }
        long sentAt = System.nanoTime();
        producer.basicPublish("", queue, MessageProperties.PERSISTENT_BASIC, body);
        Long at = delivered.poll(30, TimeUnit.SECONDS);
        if (at == null) {
          throw new IllegalStateException("no delivery within 30 s");
        }
        if (measuring) {
          samples.add(at - sentAt);
        }
        producer.waitForConfirmsOrDie(30_000);
      }
      long s1 = cpuNanos(beam);
      long k1 = cpuNanos(ProcessHandle.current());
      long t1 = System.nanoTime();
      producer.queueDelete(queue);
      int n = Math.max(1, samples.size());
      long[] sorted = samples.stream().mapToLong(Long::longValue).sorted().toArray();
      return new Result(
          "latency-quorum",
          n * 1e9 / Math.max(1, t1 - t0),
          (s1 - s0) / 1e3 / n,
          (k1 - k0) / 1e3 / n,
          OptionalDouble.of(percentile(sorted, 0.50) / 1e6),
          OptionalDouble.of(percentile(sorted, 0.99) / 1e6));
    }
  }

  private static ProcessHandle beam() {
    return ProcessHandle.allProcesses()
        .filter(
            p ->
                p.info().command().map(c -> c.endsWith("beam.smp")).orElse(false)
                    && p.info()
                        .arguments()
                        .map(a -> String.join(" ", a).contains("rabbit"))
                        .orElse(false))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "no RabbitMQ (beam.smp) running here: bench/run.sh workqueue starts one"));
  }

  private static Result rabbit(Options o, String target) throws Exception {
    ProcessHandle beam = beam();
    ConnectionFactory f = new ConnectionFactory();
    f.setHost("127.0.0.1");
    f.setPort(5672);
    boolean durable = !target.equals("transient");
    String queue = "bench-" + target;
    try (Connection producing = f.newConnection("producers");
        Connection consuming = f.newConnection("consumers")) {
      try (Channel admin = producing.createChannel()) {
        Map<String, Object> arguments =
            target.equals("quorum") ? Map.of("x-queue-type", "quorum") : Map.of();
        admin.queueDelete(queue);
        admin.queueDeclare(queue, durable, false, false, arguments);
      }
      AtomicBoolean running = new AtomicBoolean(true);
      LongAdder consumed = new LongAdder();
      byte[] body = body(o.bodyBytes()).getBytes(StandardCharsets.UTF_8);
      AMQP.BasicProperties properties =
          durable ? MessageProperties.PERSISTENT_BASIC : MessageProperties.BASIC;
      List<Thread> threads = new ArrayList<>();
      for (int p = 0; p < o.producers(); p++) {
        Channel ch = producing.createChannel();
        ch.confirmSelect();
        threads.add(
            Thread.ofPlatform()
                .daemon()
                .start(
                    () -> {
                      try {
                        while (running.get()) {
                          for (int i = 0; i < o.batch(); i++) {
                            ch.basicPublish("", queue, properties, body);
                          }
                          ch.waitForConfirmsOrDie(30_000);
                        }
                      } catch (IOException
                          | InterruptedException
                          | java.util.concurrent.TimeoutException e) {
                        System.err.println("producer stopped: " + e);
                      }
                    }));
      }
      List<Channel> consumers = new ArrayList<>();
      for (int c = 0; c < o.consumers(); c++) {
        Channel ch = consuming.createChannel();
        ch.basicQos(o.credit());
        int[] unacked = {0};
        ch.basicConsume(
            queue,
            false,
            new DefaultConsumer(ch) {
              @Override
              public void handleDelivery(
                  String tag, Envelope envelope, AMQP.BasicProperties props, byte[] data)
                  throws IOException {
                if (++unacked[0] >= o.batch()) {
                  ch.basicAck(envelope.getDeliveryTag(), true);
                  consumed.add(unacked[0]);
                  unacked[0] = 0;
                }
              }
            });
        consumers.add(ch);
      }
      Result r = measure(target, o, beam, consumed, running);
      for (Thread t : threads) {
        t.join(10_000);
      }
      try (Channel admin = producing.createChannel()) {
        admin.queueDelete(queue);
      }
      return r;
    }
  }
}
