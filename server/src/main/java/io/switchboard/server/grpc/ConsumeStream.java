package io.switchboard.server.grpc;

import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.switchboard.proto.v1.ConsumeOpen;
import io.switchboard.proto.v1.ConsumeOpened;
import io.switchboard.proto.v1.ConsumeRequest;
import io.switchboard.proto.v1.ConsumeResponse;
import io.switchboard.proto.v1.Settled;
import io.switchboard.proto.v1.SettledBatch;
import io.switchboard.queue.Message;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.SelectorFilter;
import io.switchboard.server.auth.Action;
import io.switchboard.server.dispatch.ConsumeOptions;
import io.switchboard.server.dispatch.Dispatcher;
import io.switchboard.server.dispatch.Sink;
import io.switchboard.server.dispatch.Subscription;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One {@code Consume} stream: its first request opens a {@link Subscription} that pushes the
 * queue's messages; later requests settle them and change the credit, each settle answered by a
 * {@link Settled} in order. The stream's end (the client completes or cancels it, or an error ends
 * it) closes the subscription, which releases the leases it holds.
 */
final class ConsumeStream implements StreamObserver<ConsumeRequest>, Sink {

  private final ServerCallStreamObserver<ConsumeResponse> out;
  private final Caller caller;
  private final Dispatcher dispatcher;
  private final StreamCaps caps;
  private final int maxCredit;
  private final java.util.concurrent.atomic.LongAdder pushed;

  // guarded by this: the outbound side, written from the call's thread and the subscription's
  private @Nullable Subscription subscription;
  private StreamCaps.@Nullable Slot slot;
  private boolean ended;

  ConsumeStream(
      ServerCallStreamObserver<ConsumeResponse> out,
      Caller caller,
      Dispatcher dispatcher,
      StreamCaps caps,
      int maxCredit,
      java.util.concurrent.atomic.LongAdder pushed) {
    this.out = out;
    this.pushed = pushed;
    this.caller = caller;
    this.dispatcher = dispatcher;
    this.caps = caps;
    this.maxCredit = maxCredit;
    out.setOnCancelHandler(
        () -> {
          markEnded();
          release();
        });
  }

  @Override
  public void onNext(ConsumeRequest request) {
    try {
      if (isEnded()) {
        return;
      }
      Subscription s = current();
      switch (request.getKindCase()) {
        case OPEN -> {
          if (s != null) {
            throw Statuses.invalid("the stream is already open: 'open' comes once, first");
          }
          open(request.getOpen());
        }
        case ACK -> settle(s, Settled.Operation.ACK, request.getAck().getReceipt(), null);
        case RELEASE -> {
          var r = request.getRelease();
          Duration delay =
              r.hasDelay() ? Protos.duration("release.delay", r.getDelay()) : Duration.ZERO;
          settle(
              s,
              Settled.Operation.RELEASE,
              r.getReceipt(),
              () -> opened(s).release(r.getReceipt(), delay, r.getToBack()));
        }
        case EXTEND -> {
          var e = request.getExtend();
          if (!e.hasVisibilityTimeout()) {
            throw Statuses.invalid("extend.visibility_timeout is required");
          }
          Duration timeout = Protos.duration("extend.visibility_timeout", e.getVisibilityTimeout());
          settle(s, Settled.Operation.EXTEND, e.getReceipt(), null, timeout);
        }
        case ACKS -> settleAll(s, request.getAcks().getReceiptsList());
        case CREDIT -> opened(s).credit(credit("credit.credit", request.getCredit().getCredit()));
        case KIND_NOT_SET ->
            throw Statuses.invalid(
                "a Consume request must hold one of open, ack, acks, release, extend, credit");
      }
    } catch (RuntimeException e) {
      fail(Statuses.of(e));
    }
  }

  private void open(ConsumeOpen open) {
    String queue = open.getQueue();
    if (queue.isEmpty()) {
      throw Statuses.invalid("open.queue is required");
    }
    caller.require(Action.QUEUE_RECEIVE, queue);
    int credit = credit("open.credit", open.getCredit());
    ConsumeOptions options = ConsumeOptions.credit(credit);
    if (!open.getSelector().isEmpty()) {
      options = options.filter(SelectorFilter.parse(open.getSelector()));
    }
    if (open.hasVisibilityTimeout()) {
      options =
          options.visibilityTimeout(
              Protos.duration("open.visibility_timeout", open.getVisibilityTimeout()));
    }
    StreamCaps.Slot taken = caps.open(caller.client());
    synchronized (this) {
      if (ended) {
        taken.close();
        return;
      }
      slot = taken;
      try {
        // under the lock: the opened answer goes out before the first message can
        subscription = dispatcher.subscribe(queue, options, this);
      } catch (RuntimeException e) {
        taken.close();
        slot = null;
        throw e;
      }
      out.onNext(
          ConsumeResponse.newBuilder()
              .setOpened(ConsumeOpened.newBuilder().setQueue(queue).setCredit(credit))
              .build());
    }
  }

  private int credit(String field, int credit) {
    if (credit < 1 || credit > maxCredit) {
      throw Statuses.invalid(
          field
              + " must be 1.."
              + maxCredit
              + " (grpc-max-credit): how many messages the stream may hold unsettled; got "
              + Integer.toUnsignedString(credit));
    }
    return credit;
  }

  private void settle(
      @Nullable Subscription s, Settled.Operation op, String receipt, @Nullable Runnable action) {
    settle(s, op, receipt, action, null);
  }

  private void settle(
      @Nullable Subscription s,
      Settled.Operation op,
      String receipt,
      @Nullable Runnable action,
      @Nullable Duration extendBy) {
    Subscription sub = opened(s);
    Settled.Builder answer = Settled.newBuilder().setOperation(op).setReceipt(receipt);
    // under the stream's lock, so the answer goes out before a message the credit it frees brings
    synchronized (this) {
      try {
        if (op == Settled.Operation.ACK) {
          sub.ack(receipt);
        } else if (op == Settled.Operation.EXTEND && extendBy != null) {
          Message m = sub.extend(receipt, extendBy);
          m.visibleAt().ifPresent(t -> answer.setLeaseEndsAt(Protos.timestamp(t)));
        } else if (action != null) {
          action.run();
        }
      } catch (QueueException e) {
        answer.setErrorCode(e.code().name()).setErrorMessage(String.valueOf(e.getMessage()));
      }
      send(ConsumeResponse.newBuilder().setSettled(answer).build());
    }
  }

  /**
   * Acks {@code receipts} in one engine call, answered by one {@link SettledBatch}: a Settled each,
   * in order.
   */
  private void settleAll(@Nullable Subscription s, List<String> receipts) {
    Subscription sub = opened(s);
    if (receipts.isEmpty() || receipts.size() > maxCredit) {
      throw Statuses.invalid(
          "acks.receipts must hold 1.."
              + maxCredit
              + " receipts (grpc-max-credit), got "
              + receipts.size());
    }
    synchronized (this) {
      List<java.util.Optional<QueueException>> outcomes = sub.ackAll(receipts);
      SettledBatch.Builder batch = SettledBatch.newBuilder();
      for (int i = 0; i < receipts.size(); i++) {
        Settled.Builder answer =
            Settled.newBuilder().setOperation(Settled.Operation.ACK).setReceipt(receipts.get(i));
        outcomes
            .get(i)
            .ifPresent(
                e ->
                    answer
                        .setErrorCode(e.code().name())
                        .setErrorMessage(String.valueOf(e.getMessage())));
        batch.addSettled(answer);
      }
      send(ConsumeResponse.newBuilder().setSettledBatch(batch).build());
    }
  }

  private static Subscription opened(@Nullable Subscription s) {
    if (s == null) {
      throw Statuses.invalid("the first request of a Consume stream must be 'open'");
    }
    return s;
  }

  private synchronized boolean isEnded() {
    return ended;
  }

  private synchronized @Nullable Subscription current() {
    return subscription;
  }

  @Override
  public void deliver(Message message) {
    pushed.increment();
    send(ConsumeResponse.newBuilder().setMessage(Protos.delivery(message)).build());
  }

  /** What one receive took: built first, then written under one hold of the stream's lock. */
  @Override
  public void deliverBatch(List<Message> messages) {
    List<ConsumeResponse> responses = new java.util.ArrayList<>(messages.size());
    for (Message m : messages) {
      responses.add(ConsumeResponse.newBuilder().setMessage(Protos.delivery(m)).build());
    }
    pushed.add(messages.size());
    synchronized (this) {
      for (ConsumeResponse r : responses) {
        if (ended) {
          return;
        }
        out.onNext(r);
      }
    }
  }

  @Override
  public void failed(QueueException error) {
    fail(Statuses.of(error));
  }

  private synchronized void send(ConsumeResponse response) {
    if (!ended) {
      out.onNext(response);
    }
  }

  private void fail(StatusRuntimeException error) {
    if (!markEnded()) {
      return;
    }
    release();
    synchronized (this) {
      if (!out.isCancelled()) {
        out.onError(error);
      }
    }
  }

  @Override
  public void onError(Throwable t) {
    markEnded();
    release();
  }

  /** The client is done: its leases are released first, so its stream ends after that. */
  @Override
  public void onCompleted() {
    if (!markEnded()) {
      return;
    }
    release();
    synchronized (this) {
      if (!out.isCancelled()) {
        out.onCompleted();
      }
    }
  }

  /** Marks the stream ended (nothing more goes out); false if it already was. */
  private synchronized boolean markEnded() {
    boolean was = ended;
    ended = true;
    return !was;
  }

  /** Closes the subscription (releasing its leases) and gives back the stream's place. */
  private void release() {
    Subscription s;
    StreamCaps.Slot place;
    synchronized (this) {
      s = subscription;
      place = slot;
    }
    if (s != null) {
      s.close();
    }
    if (place != null) {
      place.close();
    }
  }
}
