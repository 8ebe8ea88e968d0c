package io.switchboard.client;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.switchboard.proto.QueuesService;
import io.switchboard.proto.v1.Ack;
import io.switchboard.proto.v1.AttributeValue.ValueCase;
import io.switchboard.proto.v1.ConsumeOpen;
import io.switchboard.proto.v1.ConsumeRequest;
import io.switchboard.proto.v1.ConsumeResponse;
import io.switchboard.proto.v1.Credit;
import io.switchboard.proto.v1.Extend;
import io.switchboard.proto.v1.Release;
import io.switchboard.proto.v1.Settled;
import io.switchboard.queue.AttributeValue;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One {@code Consume} stream of the gRPC API: opens it, hands each pushed message to the handler,
 * and sends settles on it, matching each {@code settled} answer to its settle by order (the server
 * answers them in the order asked).
 */
final class GrpcConsumer
    implements Subscription, ClientResponseObserver<ConsumeRequest, ConsumeResponse> {

  private static final Metadata.Key<String> ERROR_CODE =
      Metadata.Key.of("switchboard-error-code", Metadata.ASCII_STRING_MARSHALLER);

  private final String queue;
  private final MessageHandler handler;
  private final Duration closeWait;
  private final CompletableFuture<Void> done = new CompletableFuture<>();

  // guarded by this: the request side (gRPC's request observer is not thread-safe) and the settles
  // waiting for their answers, in the order sent
  private final ArrayDeque<CompletableFuture<Void>> pending = new ArrayDeque<>();
  private @Nullable ClientCallStreamObserver<ConsumeRequest> requests;
  private boolean halfClosed;

  private GrpcConsumer(String queue, MessageHandler handler, Duration closeWait) {
    this.queue = queue;
    this.handler = handler;
    this.closeWait = closeWait;
  }

  static GrpcConsumer open(
      ManagedChannel channel,
      io.grpc.CallOptions options,
      String queue,
      ConsumeOptions consume,
      MessageHandler handler,
      Duration closeWait) {
    GrpcConsumer c = new GrpcConsumer(queue, handler, closeWait);
    var stream =
        ClientCalls.asyncBidiStreamingCall(channel.newCall(QueuesService.CONSUME, options), c);
    ConsumeOpen.Builder open = ConsumeOpen.newBuilder().setQueue(queue).setCredit(consume.credit());
    consume.selector().ifPresent(open::setSelector);
    consume.visibilityTimeout().ifPresent(v -> open.setVisibilityTimeout(duration(v)));
    synchronized (c) {
      stream.onNext(ConsumeRequest.newBuilder().setOpen(open).build());
    }
    return c;
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<ConsumeRequest> stream) {
    synchronized (this) {
      requests = stream;
    }
  }

  @Override
  public void onNext(ConsumeResponse response) {
    switch (response.getKindCase()) {
      case MESSAGE -> handler.onMessage(new Pushed(message(response.getMessage())));
      case SETTLED -> {
        CompletableFuture<Void> f;
        synchronized (this) {
          f = pending.poll();
        }
        if (f != null) {
          Settled s = response.getSettled();
          if (s.getErrorCode().isEmpty()) {
            f.complete(null);
          } else {
            f.completeExceptionally(
                new SwitchboardException(0, s.getErrorCode(), s.getErrorMessage()));
          }
        }
      }
      case OPENED, KIND_NOT_SET -> {}
      case SETTLED_BATCH -> {} // the answer to acks, which this consumer does not send
    }
  }

  @Override
  public void onError(Throwable t) {
    Status status = Status.fromThrowable(t);
    Metadata trailers = Status.trailersFromThrowable(t);
    String code =
        Optional.ofNullable(trailers == null ? null : trailers.get(ERROR_CODE))
            .orElse(status.getCode().name());
    String description = Optional.ofNullable(status.getDescription()).orElse(code);
    SwitchboardException e = new SwitchboardException(0, code, description);
    e.initCause(t);
    failPending(e);
    done.completeExceptionally(e);
  }

  @Override
  public void onCompleted() {
    failPending(new SwitchboardException("CLIENT_CLOSED", "the stream has ended", null));
    done.complete(null);
  }

  private void failPending(SwitchboardException e) {
    synchronized (this) {
      for (CompletableFuture<Void> f : pending) {
        f.completeExceptionally(e);
      }
      pending.clear();
    }
  }

  @Override
  public void credit(int credit) {
    if (credit < 1) {
      throw new IllegalArgumentException("credit must be 1 or more, got " + credit);
    }
    synchronized (this) {
      send(ConsumeRequest.newBuilder().setCredit(Credit.newBuilder().setCredit(credit)).build());
    }
  }

  private synchronized CompletableFuture<Void> settle(ConsumeRequest request) {
    CompletableFuture<Void> f = new CompletableFuture<>();
    if (halfClosed || done.isDone()) {
      f.completeExceptionally(
          new SwitchboardException("CLIENT_CLOSED", "the consume stream has ended", null));
      return f;
    }
    pending.add(f);
    send(request);
    return f;
  }

  private void send(ConsumeRequest request) {
    ClientCallStreamObserver<ConsumeRequest> r = requests;
    if (r != null && !halfClosed) {
      r.onNext(request);
    }
  }

  @Override
  public CompletableFuture<Void> done() {
    return done;
  }

  @Override
  public void close() {
    synchronized (this) {
      ClientCallStreamObserver<ConsumeRequest> r = requests;
      if (!halfClosed && r != null && !done.isDone()) {
        halfClosed = true;
        r.onCompleted();
      }
    }
    try {
      done.get(closeWait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      ClientCallStreamObserver<ConsumeRequest> r = requests;
      if (r != null && !done.isDone()) {
        r.cancel("closed by the client", null);
      }
    }
  }

  /** A pushed message and its settles. */
  private final class Pushed implements Delivery {
    private final Message message;
    private final String receipt;

    Pushed(Message message) {
      this.message = message;
      this.receipt = message.receipt().orElse("");
    }

    @Override
    public Message message() {
      return message;
    }

    @Override
    public CompletableFuture<Void> ack() {
      return settle(
          ConsumeRequest.newBuilder().setAck(Ack.newBuilder().setReceipt(receipt)).build());
    }

    @Override
    public CompletableFuture<Void> release(Duration delay) {
      return settle(
          ConsumeRequest.newBuilder()
              .setRelease(Release.newBuilder().setReceipt(receipt).setDelay(duration(delay)))
              .build());
    }

    @Override
    public CompletableFuture<Void> extend(Duration visibilityTimeout) {
      return settle(
          ConsumeRequest.newBuilder()
              .setExtend(
                  Extend.newBuilder()
                      .setReceipt(receipt)
                      .setVisibilityTimeout(duration(visibilityTimeout)))
              .build());
    }

    @Override
    public String toString() {
      return "Delivery[" + queue + " " + message.id() + "]";
    }
  }

  private static com.google.protobuf.Duration duration(Duration d) {
    return com.google.protobuf.Duration.newBuilder()
        .setSeconds(d.getSeconds())
        .setNanos(d.getNano())
        .build();
  }

  private static Instant instant(com.google.protobuf.Timestamp t) {
    return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
  }

  /** The engine's message a delivery (or a browsed message) describes. */
  static Message message(io.switchboard.proto.v1.Delivery d) {
    Map<String, AttributeValue> attributes = new LinkedHashMap<>();
    for (var e : d.getAttributesMap().entrySet()) {
      var v = e.getValue();
      String base =
          v.getDataType().contains(".")
              ? v.getDataType().substring(0, v.getDataType().indexOf('.'))
              : v.getDataType();
      AttributeValue value =
          switch (base) {
            case "Number" -> new AttributeValue.NumberValue(v.getDataType(), v.getStringValue());
            case "Binary" ->
                new AttributeValue.BinaryValue(v.getDataType(), v.getBinaryValue().toByteArray());
            case "StringList" ->
                new AttributeValue.StringListValue(
                    v.getDataType(),
                    v.getValueCase() == ValueCase.STRING_LIST_VALUE
                        ? v.getStringListValue().getValuesList()
                        : java.util.List.of());
            default -> new AttributeValue.StringValue(v.getDataType(), v.getStringValue());
          };
      attributes.put(e.getKey(), value);
    }
    return new Message(
        d.getId(),
        d.getBody(),
        attributes,
        d.getPriority(),
        d.getGroupId().isEmpty() ? Optional.empty() : Optional.of(d.getGroupId()),
        d.getDeduplicationId().isEmpty() ? Optional.empty() : Optional.of(d.getDeduplicationId()),
        d.getSequence(),
        d.getState().isEmpty()
            ? MessageState.IN_FLIGHT
            : io.switchboard.client.wire.WireFormat.enumValue(
                MessageState.class, "state", d.getState()),
        instant(d.getSentAt()),
        d.hasFirstReceivedAt() ? Optional.of(instant(d.getFirstReceivedAt())) : Optional.empty(),
        d.getReceiveCount(),
        d.hasLeaseEndsAt() ? Optional.of(instant(d.getLeaseEndsAt())) : Optional.empty(),
        instant(d.getExpiresAt()),
        d.getReceipt().isEmpty() ? Optional.empty() : Optional.of(d.getReceipt()),
        d.getDeadLetterSource().isEmpty()
            ? Optional.empty()
            : Optional.of(d.getDeadLetterSource()));
  }
}
