package io.switchboard.bench;

import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Send → receive → ack cycles on one in-memory queue with 100-byte bodies, scored in messages per
 * second. Each invocation sends {@link #BATCH} messages (one {@code sendBatch}) or one ({@code
 * send}), receives up to as many, and acks what it received, so the queue stays shallow: after an
 * invocation the depth can only have grown if fewer than the batch were available, which bounds it.
 * The two-thread variants share the queue; a thread may receive what the other sent.
 *
 * <p>{@code @OperationsPerInvocation} makes the score messages/s (each message is sent, received
 * and acked once). The tear-down fails the run if the queue did not stay shallow.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class EngineThroughputBenchmark {

  /** Messages per batch in the batched variants. */
  public static final int BATCH = 10;

  /** Body size in bytes (ASCII, so also UTF-8 bytes). */
  public static final int BODY_BYTES = 100;

  static final String QUEUE = "bench";

  /** One engine and one queue shared by every benchmark thread. */
  @State(Scope.Benchmark)
  public static class Engine {
    QueueEngine engine;

    @Setup(Level.Trial)
    public void setUp() {
      engine = QueueEngine.inMemory();
      engine.createQueue(QUEUE, QueueConfig.defaults());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      long depth = engine.stats(QUEUE).available() + engine.stats(QUEUE).inFlight();
      engine.close();
      if (depth > 1000) {
        throw new IllegalStateException("queue did not stay shallow: " + depth + " messages left");
      }
    }
  }

  /** Per-thread, reusable requests (immutable, so sharing them across invocations is safe). */
  @State(Scope.Thread)
  public static class Requests {
    NewMessage one;
    List<NewMessage> batch;
    ReceiveRequest receiveOne;
    ReceiveRequest receiveBatch;

    @Setup(Level.Trial)
    public void setUp() {
      one = NewMessage.of(body('a'));
      batch = new ArrayList<>(BATCH);
      for (int i = 0; i < BATCH; i++) {
        batch.add(NewMessage.of(body((char) ('a' + i))));
      }
      batch = List.copyOf(batch);
      receiveOne = ReceiveRequest.builder().maxMessages(1).waitTime(Duration.ZERO).build();
      receiveBatch = ReceiveRequest.builder().maxMessages(BATCH).waitTime(Duration.ZERO).build();
    }
  }

  /** A {@link #BODY_BYTES}-character ASCII body. */
  static String body(char fill) {
    return String.valueOf(fill).repeat(BODY_BYTES);
  }

  static int cycle(QueueEngine engine, List<NewMessage> batch, ReceiveRequest receive) {
    engine.sendBatch(QUEUE, batch);
    List<Message> got = engine.receive(QUEUE, receive);
    for (int i = 0; i < got.size(); i++) {
      engine.ack(QUEUE, got.get(i).receipt().orElseThrow());
    }
    return got.size();
  }

  static int cycleOne(QueueEngine engine, NewMessage message, ReceiveRequest receive) {
    engine.send(QUEUE, message);
    List<Message> got = engine.receive(QUEUE, receive);
    for (int i = 0; i < got.size(); i++) {
      engine.ack(QUEUE, got.get(i).receipt().orElseThrow());
    }
    return got.size();
  }

  @Benchmark
  @Threads(1)
  @OperationsPerInvocation(BATCH)
  public void batched1Thread(Engine e, Requests r, Blackhole bh) {
    bh.consume(cycle(e.engine, r.batch, r.receiveBatch));
  }

  @Benchmark
  @Threads(2)
  @OperationsPerInvocation(BATCH)
  public void batched2Threads(Engine e, Requests r, Blackhole bh) {
    bh.consume(cycle(e.engine, r.batch, r.receiveBatch));
  }

  @Benchmark
  @Threads(1)
  public void unbatched1Thread(Engine e, Requests r, Blackhole bh) {
    bh.consume(cycleOne(e.engine, r.one, r.receiveOne));
  }

  @Benchmark
  @Threads(2)
  public void unbatched2Threads(Engine e, Requests r, Blackhole bh) {
    bh.consume(cycleOne(e.engine, r.one, r.receiveOne));
  }
}
