package io.switchboard.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.switchboard.proto.QueuesService;
import io.switchboard.proto.v1.ConsumeRequest;
import io.switchboard.proto.v1.ConsumeResponse;
import io.switchboard.proto.v1.PublishRequest;
import io.switchboard.proto.v1.PublishResponse;
import io.switchboard.queue.QueueEngine;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A server with its gRPC API on a free port over an in-memory engine on a manual clock, and plain
 * grpc-java clients of it: what the gRPC tests start.
 */
final class GrpcHarness implements AutoCloseable {

  /** How long a test waits for something the server is about to do (never for time to pass). */
  static final Duration LIMIT = Duration.ofSeconds(10);

  final ManualClock clock = ManualClock.create();
  final QueueEngine engine;
  final SwitchboardServer server;
  private final java.util.List<ManagedChannel> channels = new java.util.ArrayList<>();

  GrpcHarness(UnaryOperator<ServerConfig> config) {
    this(config, c -> c);
  }

  GrpcHarness(UnaryOperator<ServerConfig> config, UnaryOperator<QueueEngine> wrap) {
    engine = wrap.apply(QueueEngine.builder().clock(clock).build());
    server =
        SwitchboardServer.start(
            config.apply(ServerConfig.forTests().with(Settings.GRPC_PORT, 0)), c -> engine);
  }

  /** A channel without credentials. */
  ManagedChannel channel() {
    ManagedChannel c =
        NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort().orElseThrow())
            .usePlaintext()
            .build();
    channels.add(c);
    return c;
  }

  /** Call options that send {@code authorization: Basic base64(id:secret)}. */
  static CallOptions basic(String id, String secret) {
    Metadata headers = new Metadata();
    headers.put(
        Credentials.AUTHORIZATION,
        "Basic "
            + Base64.getEncoder()
                .encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8)));
    return CallOptions.DEFAULT.withCallCredentials(
        new io.grpc.CallCredentials() {
          @Override
          public void applyRequestMetadata(
              RequestInfo info, java.util.concurrent.Executor executor, MetadataApplier applier) {
            applier.apply(headers);
          }
        });
  }

  /** What a stream answered: its messages, then its end (null for a clean end). */
  static final class Answers<T> implements StreamObserver<T> {
    final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    private static final Object COMPLETED = new Object();

    @Override
    public void onNext(T value) {
      events.add(value);
    }

    @Override
    public void onError(Throwable t) {
      events.add(t);
    }

    @Override
    public void onCompleted() {
      events.add(COMPLETED);
    }

    /** The next message; fails on an error or the end. */
    @SuppressWarnings("unchecked")
    T next() {
      Object e = take();
      if (e instanceof Throwable t) {
        throw new AssertionError("the stream ended with " + t, t);
      }
      if (e == COMPLETED) {
        fail("the stream completed");
      }
      return (T) e;
    }

    /** The status the stream ended with (after any messages, which are skipped). */
    Status status() {
      while (true) {
        Object e = take();
        if (e == COMPLETED) {
          return Status.OK;
        }
        if (e instanceof Throwable t) {
          return assertInstanceOf(StatusRuntimeException.class, t).getStatus();
        }
      }
    }

    /** OK when the stream's first event is a message or a clean end, else its error status. */
    Status first() {
      Object e = take();
      if (e instanceof Throwable t) {
        return assertInstanceOf(StatusRuntimeException.class, t).getStatus();
      }
      return Status.OK;
    }

    /** The end of the stream, which must be clean, after no other message. */
    void completed() {
      assertEquals(COMPLETED, take(), "the stream's next event");
    }

    private Object take() {
      try {
        Object e = events.poll(LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(e, "nothing came on the stream within " + LIMIT);
        return e;
      } catch (InterruptedException ex) {
        throw new AssertionError(ex);
      }
    }
  }

  /** A Consume stream: what to send on it and what came back. */
  record Stream<Q, A>(StreamObserver<Q> requests, Answers<A> answers) {}

  Stream<ConsumeRequest, ConsumeResponse> consume(ManagedChannel channel, CallOptions options) {
    Answers<ConsumeResponse> answers = new Answers<>();
    StreamObserver<ConsumeRequest> requests =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(QueuesService.CONSUME, options), answers);
    return new Stream<>(requests, answers);
  }

  Stream<PublishRequest, PublishResponse> publish(ManagedChannel channel, CallOptions options) {
    Answers<PublishResponse> answers = new Answers<>();
    StreamObserver<PublishRequest> requests =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(QueuesService.PUBLISH, options), answers);
    return new Stream<>(requests, answers);
  }

  @Override
  public void close() {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
    }
    server.close();
  }
}
