package io.switchboard.server.grpc;

import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.switchboard.proto.QueuesService;
import io.switchboard.proto.v1.AckRequest;
import io.switchboard.proto.v1.AckResponse;
import io.switchboard.proto.v1.AckResult;
import io.switchboard.proto.v1.ConsumeRequest;
import io.switchboard.proto.v1.ConsumeResponse;
import io.switchboard.proto.v1.PublishRequest;
import io.switchboard.proto.v1.PublishResponse;
import io.switchboard.proto.v1.ReceiveRequest;
import io.switchboard.proto.v1.ReceiveResponse;
import io.switchboard.proto.v1.SendRequest;
import io.switchboard.proto.v1.SendResponse;
import io.switchboard.queue.Message;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.SelectorFilter;
import io.switchboard.queue.SendResult;
import io.switchboard.server.auth.Action;
import io.switchboard.server.dispatch.Dispatcher;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The service {@code switchboard.v1.Queues} over one engine. */
final class QueuesEndpoint {

  private final QueueEngine engine;
  private final Dispatcher dispatcher;
  private final StreamCaps caps;
  private final int maxCredit;
  private final int publishWindow;
  private final int maxBatch;
  private final QueueCalls calls;
  final java.util.concurrent.atomic.AtomicLong publishers =
      new java.util.concurrent.atomic.AtomicLong();
  final java.util.concurrent.atomic.LongAdder sent = new java.util.concurrent.atomic.LongAdder();
  final java.util.concurrent.atomic.LongAdder pushed = new java.util.concurrent.atomic.LongAdder();

  QueuesEndpoint(
      QueueEngine engine,
      Dispatcher dispatcher,
      StreamCaps caps,
      int maxCredit,
      int publishWindow,
      int maxBatch,
      int maxSelectorLength) {
    this.engine = engine;
    this.dispatcher = dispatcher;
    this.caps = caps;
    this.maxCredit = maxCredit;
    this.publishWindow = publishWindow;
    this.maxBatch = maxBatch;
    this.calls = new QueueCalls(engine, maxBatch, maxSelectorLength, sent);
  }

  ServerServiceDefinition definition() {
    return calls
        .addTo(
            ServerServiceDefinition.builder(QueuesService.SERVICE)
                .addMethod(QueuesService.PUBLISH, ServerCalls.asyncBidiStreamingCall(this::publish))
                .addMethod(QueuesService.CONSUME, ServerCalls.asyncBidiStreamingCall(this::consume))
                .addMethod(QueuesService.SEND, ServerCalls.asyncUnaryCall(this::send))
                .addMethod(QueuesService.RECEIVE, ServerCalls.asyncUnaryCall(this::receive))
                .addMethod(QueuesService.ACK, ServerCalls.asyncUnaryCall(this::ack)))
        .build();
  }

  // ---- streams -----------------------------------------------------------------------------

  /**
   * Each send is made when it is read, one at a time (grpc-java delivers a call's messages in
   * order, never two at once), and answered once the engine returned, that is once it is durable;
   * so answers come in the order of the sends. The server asks the transport for {@code
   * grpc-publish-window} sends at first and for one more after each answer.
   */
  private StreamObserver<PublishRequest> publish(StreamObserver<PublishResponse> responses) {
    ServerCallStreamObserver<PublishResponse> out =
        (ServerCallStreamObserver<PublishResponse>) responses;
    Caller caller = Caller.current();
    StreamCaps.Slot slot;
    try {
      slot = caps.open(caller.client());
    } catch (RuntimeException e) {
      out.onError(Statuses.of(e));
      return new Ignored<>();
    }
    publishers.incrementAndGet();
    java.util.concurrent.atomic.AtomicBoolean open =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    Runnable end =
        () -> {
          if (open.compareAndSet(true, false)) {
            publishers.decrementAndGet();
            slot.close();
          }
        };
    out.disableAutoRequest();
    out.setOnCancelHandler(end::run);
    out.request(publishWindow);
    return new StreamObserver<>() {
      private boolean failed;

      @Override
      public void onNext(PublishRequest request) {
        if (failed) {
          return;
        }
        try {
          String queue = queue(request.getQueue());
          caller.require(Action.QUEUE_SEND, queue);
          out.onNext(publishOne(queue, request));
          out.request(1);
        } catch (RuntimeException e) {
          failed = true;
          end.run();
          if (!out.isCancelled()) {
            out.onError(Statuses.of(e));
          }
        }
      }

      @Override
      public void onError(Throwable t) {
        end.run();
      }

      @Override
      public void onCompleted() {
        end.run();
        if (!failed && !out.isCancelled()) {
          out.onCompleted();
        }
      }
    };
  }

  /**
   * One publish request: a single send (answered by its id, sequence and duplicate) or a batch
   * (answered by one result per message, in order; all of it is sent, durably, or none).
   */
  private PublishResponse publishOne(String queue, PublishRequest request) {
    if (request.hasMessage() == (request.getBatchCount() > 0)) {
      throw Statuses.invalid(
          "a publish request needs either message (one send) or batch (1.."
              + maxBatch
              + " messages), not "
              + (request.hasMessage() ? "both" : "neither"));
    }
    if (request.hasMessage()) {
      SendResult r = engine.send(queue, Protos.message(request.getMessage()));
      sent.increment();
      return PublishResponse.newBuilder()
          .setId(r.id())
          .setSequence(r.sequence())
          .setDuplicate(r.duplicate())
          .build();
    }
    List<SendResult> results =
        QueueCalls.sendBatch(engine, queue, request.getBatchList(), maxBatch);
    sent.add(results.size());
    PublishResponse.Builder b = PublishResponse.newBuilder();
    for (SendResult r : results) {
      b.addResults(QueueCalls.answer(r));
    }
    return b.build();
  }

  private StreamObserver<ConsumeRequest> consume(StreamObserver<ConsumeResponse> responses) {
    return new ConsumeStream(
        (ServerCallStreamObserver<ConsumeResponse>) responses,
        Caller.current(),
        dispatcher,
        caps,
        maxCredit,
        pushed);
  }

  // ---- unary -------------------------------------------------------------------------------

  private void send(SendRequest request, StreamObserver<SendResponse> out) {
    unary(
        out,
        () -> {
          String queue = queue(request.getQueue());
          Caller.current().require(Action.QUEUE_SEND, queue);
          if (!request.hasMessage()) {
            throw Statuses.invalid("message is required");
          }
          SendResult r = engine.send(queue, Protos.message(request.getMessage()));
          sent.increment();
          return SendResponse.newBuilder()
              .setId(r.id())
              .setSequence(r.sequence())
              .setDuplicate(r.duplicate())
              .build();
        });
  }

  /**
   * Waits as {@code wait_time} says, else as the queue's receive wait, as the HTTP API's receive
   * does; a receive that waits holds one of the key's {@code grpc-max-streams-per-key} places while
   * it waits.
   */
  private void receive(ReceiveRequest request, StreamObserver<ReceiveResponse> out) {
    unary(
        out,
        () -> {
          String queue = queue(request.getQueue());
          Caller caller = Caller.current();
          caller.require(Action.QUEUE_RECEIVE, queue);
          int max = request.getMaxMessages() == 0 ? 1 : request.getMaxMessages();
          if (max < 1 || max > io.switchboard.queue.ReceiveRequest.MAX_MESSAGES) {
            throw Statuses.invalid(
                "max_messages must be 1.."
                    + io.switchboard.queue.ReceiveRequest.MAX_MESSAGES
                    + ", got "
                    + Integer.toUnsignedString(request.getMaxMessages()));
          }
          var b = io.switchboard.queue.ReceiveRequest.builder().maxMessages(max);
          Duration wait;
          if (request.hasWaitTime()) {
            wait = Protos.duration("wait_time", request.getWaitTime());
            b.waitTime(wait);
          } else {
            wait = engine.queue(queue).config().receiveWait();
          }
          if (request.hasVisibilityTimeout()) {
            b.visibilityTimeout(
                Protos.duration("visibility_timeout", request.getVisibilityTimeout()));
          }
          if (!request.getSelector().isEmpty()) {
            b.filter(SelectorFilter.parse(calls.selector(request.getSelector())));
          }
          List<Message> got;
          if (wait.isZero()) {
            got = engine.receive(queue, b.build());
          } else {
            try (StreamCaps.Slot slot = caps.open(caller.client())) {
              got = engine.receive(queue, b.build());
            }
          }
          ReceiveResponse.Builder answer = ReceiveResponse.newBuilder();
          for (Message m : got) {
            answer.addMessages(Protos.delivery(m));
          }
          return answer.build();
        });
  }

  private void ack(AckRequest request, StreamObserver<AckResponse> out) {
    unary(
        out,
        () -> {
          String queue = queue(request.getQueue());
          Caller.current().require(Action.QUEUE_RECEIVE, queue);
          List<String> receipts = request.getReceiptsList();
          if (receipts.isEmpty() || receipts.size() > maxBatch) {
            throw Statuses.error(
                io.grpc.Status.Code.INVALID_ARGUMENT,
                receipts.isEmpty() ? "INVALID_ARGUMENT" : "BATCH_TOO_LARGE",
                "receipts must hold 1.." + maxBatch + " receipts, got " + receipts.size());
          }
          List<Optional<QueueException>> outcomes = engine.ackAll(queue, receipts);
          AckResponse.Builder answer = AckResponse.newBuilder();
          for (int i = 0; i < receipts.size(); i++) {
            AckResult.Builder r = AckResult.newBuilder().setReceipt(receipts.get(i));
            outcomes
                .get(i)
                .ifPresent(
                    e ->
                        r.setErrorCode(e.code().name())
                            .setErrorMessage(String.valueOf(e.getMessage())));
            answer.addResults(r);
          }
          return answer.build();
        });
  }

  static String queue(String queue) {
    if (queue.isEmpty()) {
      throw Statuses.invalid("queue is required");
    }
    return queue;
  }

  interface Answer<A> {
    A get();
  }

  static <A> void unary(StreamObserver<A> out, Answer<A> answer) {
    A a;
    try {
      a = answer.get();
    } catch (RuntimeException e) {
      out.onError(Statuses.of(e));
      return;
    }
    out.onNext(a);
    out.onCompleted();
  }

  /** The requests of a stream refused before it started. */
  private static final class Ignored<T> implements StreamObserver<T> {
    @Override
    public void onNext(T value) {}

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {}
  }
}
