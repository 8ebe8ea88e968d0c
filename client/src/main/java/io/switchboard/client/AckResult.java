package io.switchboard.client;

import io.switchboard.queue.ErrorCode;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of one receipt in {@link SwitchboardClient#ackBatch}: acked, or the error that single
 * ack would have raised ({@code RECEIPT_STALE}, {@code RECEIPT_INVALID}, ...). A receipt whose
 * message is already gone counts as acked, as with a single ack.
 *
 * @param receipt the receipt, as sent
 * @param code the error code as the server sent it; empty when acked
 * @param message the error message; empty when acked
 */
public record AckResult(String receipt, Optional<String> code, Optional<String> message) {

  public AckResult {
    Objects.requireNonNull(receipt, "receipt");
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(message, "message");
  }

  public static AckResult acked(String receipt) {
    return new AckResult(receipt, Optional.empty(), Optional.empty());
  }

  public static AckResult failed(String receipt, String code, String message) {
    return new AckResult(
        receipt,
        Optional.of(Objects.requireNonNull(code, "code")),
        Optional.of(Objects.requireNonNull(message, "message")));
  }

  public boolean acked() {
    return code.isEmpty();
  }

  /** The engine's code for a failure, if the server's code is one of them. */
  public Optional<ErrorCode> engineCode() {
    return code.flatMap(
        c -> {
          try {
            return Optional.of(ErrorCode.valueOf(c));
          } catch (IllegalArgumentException e) {
            return Optional.empty();
          }
        });
  }
}
