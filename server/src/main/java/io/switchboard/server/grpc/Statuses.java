package io.switchboard.server.grpc;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.switchboard.client.wire.WireFormatException;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import io.switchboard.routing.RoutingException;
import io.switchboard.server.http.ErrorAnswers;
import io.switchboard.server.http.HttpError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC status of an error: the engine's {@link ErrorCode} mapped to the nearest gRPC code, its
 * message as the description after the stable code ({@code QUEUE_NOT_FOUND: ...}), and the code
 * alone in the trailer {@code switchboard-error-code}.
 */
final class Statuses {

  private static final Logger LOG = LoggerFactory.getLogger(Statuses.class);

  /** The trailer that carries the HTTP API's error code. */
  static final Metadata.Key<String> ERROR_CODE =
      Metadata.Key.of("switchboard-error-code", Metadata.ASCII_STRING_MARSHALLER);

  private Statuses() {}

  static StatusRuntimeException of(Throwable e) {
    if (e instanceof StatusRuntimeException s) {
      return s;
    }
    if (e instanceof QueueException q) {
      return error(code(q.code()), q.code().name(), String.valueOf(q.getMessage()));
    }
    if (e instanceof RoutingException r) {
      return error(
          code(ErrorAnswers.status(r.code())), r.code().name(), String.valueOf(r.getMessage()));
    }
    if (e instanceof WireFormatException w) {
      return error(Status.Code.INVALID_ARGUMENT, w.code(), String.valueOf(w.getMessage()));
    }
    if (e instanceof HttpError h) {
      return error(code(h.status()), h.code(), String.valueOf(h.getMessage()));
    }
    if (e instanceof IllegalArgumentException) {
      return error(
          Status.Code.INVALID_ARGUMENT, "INVALID_ARGUMENT", String.valueOf(e.getMessage()));
    }
    LOG.atError().setCause(e).log("gRPC call failed");
    return error(Status.Code.INTERNAL, "INTERNAL", "internal error (logged by the server)");
  }

  static StatusRuntimeException invalid(String message) {
    return error(Status.Code.INVALID_ARGUMENT, "INVALID_ARGUMENT", message);
  }

  static StatusRuntimeException error(Status.Code code, String errorCode, String message) {
    Metadata trailers = new Metadata();
    trailers.put(ERROR_CODE, errorCode);
    return Status.fromCode(code)
        .withDescription(errorCode + ": " + message)
        .asRuntimeException(trailers);
  }

  /** The gRPC code of an HTTP API status. */
  static Status.Code code(int httpStatus) {
    return switch (httpStatus) {
      case 400, 413 -> Status.Code.INVALID_ARGUMENT;
      case 401 -> Status.Code.UNAUTHENTICATED;
      case 403 -> Status.Code.PERMISSION_DENIED;
      case 404 -> Status.Code.NOT_FOUND;
      case 409, 412 -> Status.Code.FAILED_PRECONDITION;
      case 429 -> Status.Code.RESOURCE_EXHAUSTED;
      case 503 -> Status.Code.UNAVAILABLE;
      default -> Status.Code.INTERNAL;
    };
  }

  static Status.Code code(ErrorCode code) {
    return switch (code) {
      case INVALID_ARGUMENT,
          INVALID_SELECTOR,
          MESSAGE_TOO_LARGE,
          BATCH_TOO_LARGE,
          RECEIPT_INVALID ->
          Status.Code.INVALID_ARGUMENT;
      case QUEUE_NOT_FOUND, MESSAGE_NOT_FOUND, TASK_NOT_FOUND -> Status.Code.NOT_FOUND;
      case QUEUE_ALREADY_EXISTS -> Status.Code.ALREADY_EXISTS;
      case RECEIPT_STALE, MESSAGE_NOT_IN_FLIGHT, CONFLICT -> Status.Code.FAILED_PRECONDITION;
      case QUEUE_FULL, TOO_MANY_QUEUES, SERVER_FULL, OVER_LIMIT -> Status.Code.RESOURCE_EXHAUSTED;
      case UNAVAILABLE -> Status.Code.UNAVAILABLE;
    };
  }
}
