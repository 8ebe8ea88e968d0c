package io.switchboard.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Duration;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.switchboard.proto.v1.Ack;
import io.switchboard.proto.v1.ConsumeOpen;
import io.switchboard.proto.v1.ConsumeRequest;
import io.switchboard.proto.v1.ConsumeResponse;
import io.switchboard.proto.v1.Credit;
import io.switchboard.proto.v1.Delivery;
import io.switchboard.proto.v1.Extend;
import io.switchboard.proto.v1.Release;
import io.switchboard.proto.v1.Settled;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueStats;
import io.switchboard.server.config.Settings;
import io.switchboard.testing.Await;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code Consume} stream over a server on a manual clock that no test advances unless it says
 * so: whatever arrives came from the engine's wake-up, not from time passing.
 */
class GrpcConsumeTest {

  private GrpcHarness h;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    h = new GrpcHarness(c -> c.with(Settings.GRPC_MAX_STREAMS_PER_KEY, 3));
    h.engine.createQueue("jobs", QueueConfig.defaults());
    channel = h.channel();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private GrpcHarness.Stream<ConsumeRequest, ConsumeResponse> open(String queue, int credit) {
    return open(ConsumeOpen.newBuilder().setQueue(queue).setCredit(credit).build());
  }

  private GrpcHarness.Stream<ConsumeRequest, ConsumeResponse> open(ConsumeOpen open) {
    var s = h.consume(channel, CallOptions.DEFAULT);
    s.requests().onNext(ConsumeRequest.newBuilder().setOpen(open).build());
    return s;
  }

  private static Delivery message(GrpcHarness.Stream<ConsumeRequest, ConsumeResponse> s) {
    ConsumeResponse r = s.answers().next();
    assertEquals(ConsumeResponse.KindCase.MESSAGE, r.getKindCase(), "expected a message: " + r);
    return r.getMessage();
  }

  private static Settled settled(GrpcHarness.Stream<ConsumeRequest, ConsumeResponse> s) {
    ConsumeResponse r = s.answers().next();
    assertEquals(ConsumeResponse.KindCase.SETTLED, r.getKindCase(), "expected a settle: " + r);
    return r.getSettled();
  }

  private QueueStats stats() {
    return h.engine.stats("jobs");
  }

  @Test
  void aMessageSentAfterTheStreamOpened_isPushed_withoutTimePassing() {
    var s = open("jobs", 1);
    assertEquals("jobs", s.answers().next().getOpened().getQueue());
    Await.until(() -> stats().waitingReceivers() == 1, "the stream waits in the engine");
    h.engine.send("jobs", NewMessage.of("hello"));
    Delivery d = message(s);
    assertEquals("hello", d.getBody());
    assertEquals(1, d.getReceiveCount());
    assertTrue(!d.getReceipt().isEmpty(), "a delivery carries its receipt");
  }

  @Test
  void theStreamNeverHoldsMoreThanItsCredit_andRefillsAsItAcks() {
    for (int i = 0; i < 5; i++) {
      h.engine.send("jobs", NewMessage.of("m" + i));
    }
    var s = open("jobs", 2);
    s.answers().next(); // opened
    Delivery first = message(s);
    message(s);
    Await.until(() -> stats().inFlight() == 2, "two leased");
    assertEquals(3, stats().available(), "the credit is spent: nothing more is taken");

    s.requests().onNext(ack(first.getReceipt()));
    Settled acked = settled(s);
    assertEquals(Settled.Operation.ACK, acked.getOperation());
    assertEquals("", acked.getErrorCode(), acked.getErrorMessage());
    message(s); // the ack made room for exactly one more
    Await.until(() -> stats().available() == 2, "one more taken");
    assertEquals(2, stats().inFlight());

    s.requests()
        .onNext(ConsumeRequest.newBuilder().setCredit(Credit.newBuilder().setCredit(4)).build());
    message(s);
    message(s);
    Await.until(() -> stats().available() == 0, "the new credit filled");
    assertEquals(4, stats().inFlight());
  }

  /**
   * An {@code acks} request acks its receipts in one engine call ({@code ackAll}: one durable write
   * on a durable engine), answered by one {@code settled_batch} with a settle each, in order; their
   * credit comes back together.
   */
  @Test
  void batchedAcks_areSettledInOneAnswer_eachInOrder_andReturnTheirCredit() {
    for (int i = 0; i < 5; i++) {
      h.engine.send("jobs", NewMessage.of("m" + i));
    }
    var s = open("jobs", 3);
    s.answers().next(); // opened
    Delivery a = message(s);
    Delivery b = message(s);
    message(s);
    Await.until(() -> stats().inFlight() == 3, "three leased");

    s.requests()
        .onNext(
            ConsumeRequest.newBuilder()
                .setAcks(
                    io.switchboard.proto.v1.Acks.newBuilder()
                        .addReceipts(a.getReceipt())
                        .addReceipts("not-a-receipt")
                        .addReceipts(b.getReceipt()))
                .build());
    ConsumeResponse answer = s.answers().next();
    assertEquals(ConsumeResponse.KindCase.SETTLED_BATCH, answer.getKindCase(), answer.toString());
    assertEquals(3, answer.getSettledBatch().getSettledCount(), answer.toString());
    Settled first = answer.getSettledBatch().getSettled(0);
    Settled bad = answer.getSettledBatch().getSettled(1);
    Settled third = answer.getSettledBatch().getSettled(2);
    assertEquals(a.getReceipt(), first.getReceipt());
    assertEquals("", first.getErrorCode(), first.getErrorMessage());
    assertEquals("not-a-receipt", bad.getReceipt());
    assertEquals("RECEIPT_INVALID", bad.getErrorCode());
    assertEquals(b.getReceipt(), third.getReceipt());
    assertEquals("", third.getErrorCode(), third.getErrorMessage());
    message(s); // the two acks made room for the two messages left
    message(s);
    Await.until(() -> stats().available() == 0 && stats().inFlight() == 3, "refilled");
  }

  @Test
  void releaseAndExtend_settleOnTheStream() {
    h.engine.send("jobs", NewMessage.of("again"));
    var s = open("jobs", 1);
    s.answers().next();
    Delivery d = message(s);

    s.requests()
        .onNext(
            ConsumeRequest.newBuilder()
                .setExtend(
                    Extend.newBuilder()
                        .setReceipt(d.getReceipt())
                        .setVisibilityTimeout(Duration.newBuilder().setSeconds(600)))
                .build());
    Settled extended = settled(s);
    assertEquals(Settled.Operation.EXTEND, extended.getOperation());
    assertEquals("", extended.getErrorCode(), extended.getErrorMessage());
    assertEquals(h.clock.millis() / 1000 + 600, extended.getLeaseEndsAt().getSeconds());

    s.requests()
        .onNext(
            ConsumeRequest.newBuilder()
                .setRelease(Release.newBuilder().setReceipt(d.getReceipt()))
                .build());
    assertEquals("", settled(s).getErrorCode());
    Delivery again = message(s); // released: available at once, and the credit is free again
    assertEquals(d.getId(), again.getId());
    assertEquals(2, again.getReceiveCount());

    s.requests().onNext(ack(d.getReceipt())); // the first lease's receipt is stale now
    Settled stale = settled(s);
    assertEquals("RECEIPT_STALE", stale.getErrorCode());
    s.requests().onNext(ack(again.getReceipt()));
    assertEquals("", settled(s).getErrorCode());
    Await.until(() -> stats().depth() == 0, "acked: gone");
  }

  @Test
  void aMessageNotSettledInItsVisibilityTimeout_isDeliveredAgain() {
    h.engine.send("jobs", NewMessage.of("slow"));
    var s =
        open(
            ConsumeOpen.newBuilder()
                .setQueue("jobs")
                .setCredit(1)
                .setVisibilityTimeout(Duration.newBuilder().setSeconds(30))
                .build());
    s.answers().next();
    Delivery d = message(s);
    assertEquals(1, d.getReceiveCount());
    h.clock.advanceSeconds(31); // the lease runs out: its credit comes back, the message too
    Delivery again = message(s);
    assertEquals(d.getId(), again.getId());
    assertEquals(2, again.getReceiveCount());
  }

  @Test
  void endingTheStream_releasesTheLeasesItHeld() {
    for (int i = 0; i < 3; i++) {
      h.engine.send("jobs", NewMessage.of("m" + i));
    }
    var s = open("jobs", 3);
    s.answers().next();
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      ids.add(message(s).getId());
    }
    assertEquals(3, stats().inFlight());
    s.requests().onCompleted();
    s.answers().completed(); // answered once its leases are released
    assertEquals(0, stats().inFlight());
    assertEquals(3, stats().available(), "available again at once, not after the timeout");

    s = open("jobs", 3);
    s.answers().next();
    for (int i = 0; i < 3; i++) {
      assertTrue(ids.contains(message(s).getId()));
    }
  }

  @Test
  void cancellingTheStream_releasesItsLeasesToo() {
    h.engine.send("jobs", NewMessage.of("m"));
    var s = open("jobs", 1);
    s.answers().next();
    message(s);
    s.requests().onError(new RuntimeException("client gone"));
    Await.until(() -> stats().available() == 1, "the lease released");
    assertEquals(0, stats().inFlight());
  }

  @Test
  void badOpens_areRefusedWithWhatWasWrong() {
    Status unknown = open("nope", 1).answers().status();
    assertEquals(Status.Code.NOT_FOUND, unknown.getCode(), unknown.toString());
    assertTrue(unknown.getDescription().contains("QUEUE_NOT_FOUND"), unknown.getDescription());
    assertTrue(unknown.getDescription().contains("nope"), unknown.getDescription());

    Status zero = open("jobs", 0).answers().status();
    assertEquals(Status.Code.INVALID_ARGUMENT, zero.getCode(), zero.toString());
    assertEquals(
        "INVALID_ARGUMENT: open.credit must be 1..1000 (grpc-max-credit): how many messages the"
            + " stream may hold unsettled; got 0",
        zero.getDescription());

    Status over = open("jobs", 1001).answers().status();
    assertEquals(Status.Code.INVALID_ARGUMENT, over.getCode());
    assertTrue(over.getDescription().endsWith("got 1001"), over.getDescription());

    Status selector =
        open(ConsumeOpen.newBuilder().setQueue("jobs").setCredit(1).setSelector("a = ").build())
            .answers()
            .status();
    assertEquals(Status.Code.INVALID_ARGUMENT, selector.getCode(), selector.toString());
    assertTrue(selector.getDescription().startsWith("INVALID_SELECTOR"), selector.toString());

    var notOpened = h.consume(channel, CallOptions.DEFAULT);
    notOpened.requests().onNext(ack("r"));
    Status first = notOpened.answers().status();
    assertEquals(Status.Code.INVALID_ARGUMENT, first.getCode());
    assertEquals(
        "INVALID_ARGUMENT: the first request of a Consume stream must be 'open'",
        first.getDescription());

    assertEquals(0, h.server.grpcPort().isPresent() ? stats().inFlight() : -1);
    h.engine.send("jobs", NewMessage.of("untouched"));
    assertEquals(1, stats().available(), "no refused stream took anything");
  }

  @Test
  void aClientOverItsStreamCap_isRefusedRetryably() {
    for (int i = 0; i < 3; i++) {
      open("jobs", 1).answers().next();
    }
    Status refused = open("jobs", 1).answers().status();
    assertEquals(Status.Code.RESOURCE_EXHAUSTED, refused.getCode(), refused.toString());
    assertTrue(
        refused.getDescription().contains("grpc-max-streams-per-key"), refused.getDescription());
  }

  private static ConsumeRequest ack(String receipt) {
    return ConsumeRequest.newBuilder().setAck(Ack.newBuilder().setReceipt(receipt)).build();
  }
}
