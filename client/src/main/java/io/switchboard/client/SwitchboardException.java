package io.switchboard.client;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import io.switchboard.routing.RoutingErrorCode;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * An error answered by the server (or the lack of an answer). It is a {@link QueueException}, so
 * code written against {@code QueueEngine} handles it unchanged: {@link #code()} is the engine's
 * {@link ErrorCode}, and HTTP-level codes map onto the nearest one ({@code MALFORMED_JSON} and
 * {@code UNKNOWN_FIELD} onto {@code INVALID_ARGUMENT}, {@code PAYLOAD_TOO_LARGE} onto {@code
 * MESSAGE_TOO_LARGE}, any other 4xx onto {@code INVALID_ARGUMENT}, 5xx and no answer at all onto
 * {@code UNAVAILABLE}). {@link #wireCode()} is the code exactly as the server sent it, and {@link
 * #status()} the HTTP status (0 when no response came).
 */
public final class SwitchboardException extends QueueException {

  private final int status;
  private final String wireCode;

  SwitchboardException(int status, String wireCode, String message) {
    super(nearest(wireCode, status), message);
    this.status = status;
    this.wireCode = wireCode;
  }

  SwitchboardException(String wireCode, String message, @Nullable Throwable cause) {
    super(ErrorCode.UNAVAILABLE, message, cause);
    this.status = 0;
    this.wireCode = wireCode;
  }

  /** The HTTP status, or 0 if the server could not be reached or did not answer in time. */
  public int status() {
    return status;
  }

  /** The error code as the server sent it, e.g. {@code RECEIPT_STALE} or {@code UNKNOWN_FIELD}. */
  public String wireCode() {
    return wireCode;
  }

  /** The router's code, if the wire code is one of them (errors of {@link RoutingClient}). */
  public Optional<RoutingErrorCode> routingCode() {
    try {
      return Optional.of(RoutingErrorCode.valueOf(wireCode));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** The engine's code, if the wire code is one of them. */
  public Optional<ErrorCode> engineCode() {
    try {
      return Optional.of(ErrorCode.valueOf(wireCode));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static ErrorCode nearest(String wireCode, int status) {
    try {
      return ErrorCode.valueOf(wireCode);
    } catch (IllegalArgumentException e) {
      return switch (wireCode) {
        case "MALFORMED_JSON", "UNKNOWN_FIELD" -> ErrorCode.INVALID_ARGUMENT;
        case "PAYLOAD_TOO_LARGE" -> ErrorCode.MESSAGE_TOO_LARGE;
        default ->
            status >= 400 && status < 500 ? ErrorCode.INVALID_ARGUMENT : ErrorCode.UNAVAILABLE;
      };
    }
  }
}
