package io.switchboard.queue.spi;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.ObjIntConsumer;

/**
 * The receipt loop of a batch ack ({@link io.switchboard.queue.QueueEngine#ackAll}) for engines
 * that ack the receipts one by one: each receipt on its own, a refusal recorded for its entry and
 * the loop going on, and only a refusal of the whole call (the queue does not exist, the engine is
 * closed or cannot write) thrown.
 */
public final class BatchAcks {

  private BatchAcks() {}

  /**
   * Calls {@code ack} with each receipt and its index, in order; returns one entry per receipt:
   * empty when the call returned, else the refusal it threw. A refusal with {@link
   * ErrorCode#QUEUE_NOT_FOUND} or {@link ErrorCode#UNAVAILABLE} is thrown, ending the loop.
   */
  public static List<Optional<QueueException>> oneByOne(
      List<String> receipts, ObjIntConsumer<String> ack) {
    List<Optional<QueueException>> results = new ArrayList<>(receipts.size());
    for (int i = 0; i < receipts.size(); i++) {
      try {
        ack.accept(receipts.get(i), i);
        results.add(Optional.empty());
      } catch (QueueException e) {
        if (refusesTheWholeCall(e)) {
          throw e;
        }
        results.add(Optional.of(e));
      }
    }
    return results;
  }

  /** Whether {@code e} refuses a whole batch rather than one receipt of it. */
  private static boolean refusesTheWholeCall(QueueException e) {
    return e.code() == ErrorCode.QUEUE_NOT_FOUND || e.code() == ErrorCode.UNAVAILABLE;
  }
}
