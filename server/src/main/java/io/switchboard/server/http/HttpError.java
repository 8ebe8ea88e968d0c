package io.switchboard.server.http;

import io.switchboard.queue.ErrorCode;
import java.util.Map;

/**
 * An error the HTTP layer raises itself, before the engine is asked anything: a body too large, an
 * unknown route, a bad query parameter. Engine errors stay {@code QueueException}s; both become the
 * same {@code {"code", "message"}} shape.
 */
public final class HttpError extends RuntimeException {

  private final int status;
  private final String code;
  private final Map<String, String> headers;

  public HttpError(int status, String code, String message) {
    this(status, code, message, Map.of());
  }

  /** An error whose answer carries {@code headers} too ({@code WWW-Authenticate}). */
  public HttpError(int status, String code, String message, Map<String, String> headers) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = Map.copyOf(headers);
  }

  /** Headers the answer carries besides the usual ones. */
  Map<String, String> headers() {
    return headers;
  }

  /** The HTTP status it answers with. */
  public int status() {
    return status;
  }

  /** Its stable error code. */
  public String code() {
    return code;
  }

  /**
   * The status of an engine error code. Bad input is 400, things that do not exist 404, states that
   * forbid the operation 409, sizes 413; the server sheds load with 429 (a full queue: retry after
   * consumers catch up; a queue at its in-flight limit: retry after consumers ack) and 503
   * (starting, stopping, the store failing, or the server at its limit of queued bytes).
   */
  static int status(ErrorCode code) {
    return switch (code) {
      case INVALID_ARGUMENT, INVALID_SELECTOR, RECEIPT_INVALID -> 400;
      case QUEUE_NOT_FOUND, MESSAGE_NOT_FOUND, TASK_NOT_FOUND -> 404;
      case QUEUE_ALREADY_EXISTS, TOO_MANY_QUEUES, RECEIPT_STALE, MESSAGE_NOT_IN_FLIGHT, CONFLICT ->
          409;
      case MESSAGE_TOO_LARGE, BATCH_TOO_LARGE -> 413;
      case QUEUE_FULL, OVER_LIMIT -> 429;
      case UNAVAILABLE, SERVER_FULL -> 503;
    };
  }
}
