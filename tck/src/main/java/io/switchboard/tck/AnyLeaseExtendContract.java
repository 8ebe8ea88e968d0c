package io.switchboard.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.MessageState;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link io.switchboard.queue.QueueEngine#extendAnyLease}, the SQS endpoint's
 * ChangeMessageVisibility: a receipt from an earlier receive of a message acts on its current
 * lease, as Amazon SQS's servers take it; the native {@code extend} keeps refusing it as stale.
 */
public abstract class AnyLeaseExtendContract extends EngineContract {

  /** A message received twice (the first lease ran out): its first receipt, then the second. */
  private Message[] receivedTwice() {
    create("q", config().visibilityTimeout(seconds(10)));
    send("q", "x");
    Message first = receiveOne("q");
    clock.advanceSeconds(10);
    Message second = receiveOne("q"); // leased until 20 s
    return new Message[] {first, second};
  }

  @Test
  void earlierReceipt_setsTheCurrentLease() {
    Message[] r = receivedTwice();
    engine.extendAnyLease("q", receipt(r[0]), seconds(30)); // now 10 s: until 40 s
    clock.advanceSeconds(25);
    assertNothingToReceive("q");
    clock.advanceSeconds(5);
    Message third = receiveOne("q");
    assertEquals(r[0].id(), third.id());
    assertEquals(3, third.receiveCount());
  }

  @Test
  void earlierReceiptToZero_makesTheMessageAvailableNow() {
    Message[] r = receivedTwice();
    engine.extendAnyLease("q", receipt(r[0]), Duration.ZERO);
    assertEquals(MessageState.AVAILABLE, engine.get("q", r[0].id()).state());
    assertEquals(r[0].id(), receiveOne("q").id());
  }

  @Test
  void earlierReceipt_theLatestStillActs() {
    Message[] r = receivedTwice();
    engine.extendAnyLease("q", receipt(r[0]), seconds(30));
    engine.ack("q", receipt(r[1]));
    assertEquals(0, engine.stats("q").depth());
  }

  @Test
  void earlierReceipt_nativeExtendStillRefusesItAsStale() {
    Message[] r = receivedTwice();
    assertRefusedUnchanged(
        "q", ErrorCode.RECEIPT_STALE, () -> engine.extend("q", receipt(r[0]), seconds(30)));
  }

  @Test
  void currentReceipt_asExtend() {
    create("q", config().visibilityTimeout(seconds(10)));
    send("q", "x");
    Message m = receiveOne("q");
    engine.extendAnyLease("q", receipt(m), seconds(30));
    clock.advanceSeconds(29);
    assertNothingToReceive("q");
    clock.advanceSeconds(1);
    assertEquals(m.id(), receiveOne("q").id());
  }

  @Test
  void messageAcked_messageNotFoundAndNothingChanged() {
    Message[] r = receivedTwice();
    engine.ack("q", receipt(r[1]));
    assertRefusedUnchanged(
        "q",
        ErrorCode.MESSAGE_NOT_FOUND,
        () -> engine.extendAnyLease("q", receipt(r[0]), seconds(30)));
  }

  @Test
  void garbageOrForeignReceipt_receiptInvalid() {
    Message[] r = receivedTwice();
    create("other");
    assertError(ErrorCode.RECEIPT_INVALID, () -> engine.extendAnyLease("q", "junk", seconds(30)));
    assertRefusedUnchanged(
        "other",
        ErrorCode.RECEIPT_INVALID,
        () -> engine.extendAnyLease("other", receipt(r[0]), seconds(30)));
  }
}
