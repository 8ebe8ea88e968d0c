package io.switchboard.server.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.HttpException;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.switchboard.client.wire.WireFormatException;
import io.switchboard.queue.QueueException;
import io.switchboard.routing.RoutingErrorCode;
import io.switchboard.routing.RoutingException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's Helidon error handlers: whatever a filter or a route's handler throws becomes the
 * API's {@code {"code", "message"}} answer here, and nowhere else.
 *
 * <ul>
 *   <li>{@link QueueException}: the status of its {@link io.switchboard.queue.ErrorCode} ({@link
 *       HttpError#status}), the code's name;
 *   <li>{@link RoutingException}: the status {@link #status} gives its code, the code's name;
 *   <li>{@link HttpError} (the HTTP layer's own refusals) and {@link WireFormatException} (a body
 *       that is not the JSON asked for, 400): their status and code;
 *   <li>Helidon's {@link HttpException} below 500 (a request Helidon itself cannot read): its
 *       status, coded as the server's direct handlers code it;
 *   <li>anything else is a bug: 500 {@code INTERNAL} with {@code "internal error; request id <id>"}
 *       and never the exception's text, which may hold paths, queries or secrets; the log line, at
 *       error with the stack trace, carries the same id, so an operator finds it from what a client
 *       reports.
 * </ul>
 */
public final class ErrorAnswers {

  private static final Logger LOG = LoggerFactory.getLogger(ErrorAnswers.class);

  private ErrorAnswers() {}

  public static void register(HttpRouting.Builder routing) {
    routing
        .error(
            QueueException.class,
            (req, res, e) ->
                answer(req, res, HttpError.status(e.code()), e.code().name(), e.getMessage()))
        .error(
            RoutingException.class,
            (req, res, e) -> answer(req, res, status(e.code()), e.code().name(), e.getMessage()))
        .error(
            HttpError.class,
            (req, res, e) -> {
              e.headers().forEach((name, value) -> res.header(HeaderNames.create(name), value));
              answer(req, res, e.status(), e.code(), e.getMessage());
            })
        .error(
            WireFormatException.class,
            (req, res, e) -> answer(req, res, 400, e.code(), e.getMessage()))
        .error(HttpException.class, ErrorAnswers::helidon)
        .error(Throwable.class, ErrorAnswers::internal);
  }

  /**
   * {@code message} is the exception's; the server's own exceptions always carry one, so "null" in
   * an answer would point at a bug, not hide it.
   */
  private static void answer(
      ServerRequest req, ServerResponse res, int status, String code, @Nullable String message) {
    Call.of(req).error(status, code, String.valueOf(message));
  }

  private static void helidon(ServerRequest req, ServerResponse res, HttpException e) {
    int status = e.status().code();
    if (status >= 500) {
      internal(req, res, e);
      return;
    }
    String message = e.getMessage();
    answer(
        req,
        res,
        status,
        directCode(status),
        message != null ? message : e.status().reasonPhrase());
  }

  private static void internal(ServerRequest req, ServerResponse res, Throwable e) {
    Call call = Call.of(req);
    LOG.atError()
        .addKeyValue("requestId", call.requestId())
        .addKeyValue("operation", call.operation().orElse(""))
        .addKeyValue("method", req.prologue().method().text())
        .addKeyValue("path", req.path().path())
        .setCause(e)
        .log("request failed, request id " + call.requestId());
    call.error(500, "INTERNAL", internalMessage(call.requestId()));
  }

  /** What a client is told of an internal error: the request id to report, nothing else. */
  public static String internalMessage(String requestId) {
    return "internal error; request id " + requestId;
  }

  /**
   * Bad input is 400, unknown ids 404, a state that forbids the call (an expired offer, an id
   * taken) 409, a closed router 503.
   */
  public static int status(RoutingErrorCode code) {
    return switch (code) {
      case INVALID_ARGUMENT, INVALID_SELECTOR, INVALID_CALLBACK_URL -> 400;
      case AGENT_NOT_FOUND,
          CONTACT_NOT_FOUND,
          RESERVATION_NOT_FOUND,
          WORKSPACE_NOT_FOUND,
          ACTIVITY_NOT_FOUND,
          TASK_QUEUE_NOT_FOUND,
          WORKFLOW_NOT_FOUND ->
          404;
      case AGENT_ALREADY_EXISTS,
          CONTACT_ALREADY_EXISTS,
          RESERVATION_EXPIRED,
          INVALID_STATE,
          WORKSPACE_ALREADY_EXISTS,
          ACTIVITY_IN_USE,
          TASK_QUEUE_IN_USE ->
          409;
      case UNAVAILABLE -> 503;
    };
  }

  /**
   * The code of an error Helidon answers by status: as the server's direct handlers code it ({@code
   * SwitchboardServer}).
   */
  public static String directCode(int status) {
    return switch (status) {
      case 400 -> "BAD_REQUEST";
      case 413 -> "PAYLOAD_TOO_LARGE";
      case 414 -> "URI_TOO_LONG";
      case 505 -> "HTTP_VERSION_NOT_SUPPORTED";
      default -> "HTTP_" + status;
    };
  }
}
