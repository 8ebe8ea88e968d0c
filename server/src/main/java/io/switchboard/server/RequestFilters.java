package io.switchboard.server;

import io.helidon.webserver.http.Filter;
import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.HttpError;
import io.switchboard.server.http.RequestGate;
import io.switchboard.server.http.RequestIds;
import io.switchboard.server.http.Route;
import io.switchboard.server.http.RouteTable;
import io.switchboard.server.observability.ServerMetrics;
import io.switchboard.server.observability.Tracing;
import io.switchboard.server.security.Authentication;
import io.switchboard.server.security.ExposureGuard;
import java.util.function.Supplier;

/**
 * The Helidon filters every request passes, in this order, before the server's one handler serves
 * it with its route's endpoint ({@link SwitchboardServer}):
 *
 * <ol>
 *   <li>{@link #exchange}: gives the request its id ({@code X-Request-Id} on every answer), finds
 *       its declared route, and keeps both in a {@link Call} in the request's context;
 *   <li>the request's span, when tracing is on ({@link Tracing#requests}, added by the server);
 *   <li>{@link #metrics}: times the request, recorded under its operation and status once the
 *       answer is sent, whoever sent it (the handler or an error handler);
 *   <li>{@link #exposure}: keeps web pages from driving the server (cross-origin requests, DNS
 *       rebinding, and in keyless mode non-JSON bodies) and answers CORS preflights for the origins
 *       the operator listed ({@link ExposureGuard});
 *   <li>{@link #authentication}: with access keys configured, refuses a request without valid
 *       credentials (401) or whose key lacks the route's action (403) ({@link Authentication});
 *   <li>{@link #gate}: refuses engine-bound routes with 503 while the server starts or stops, and
 *       counts the requests it admits so that a stop can wait for them ({@link RequestGate}).
 * </ol>
 *
 * A filter refuses a request by throwing, like a handler: the server's error handlers ({@link
 * ErrorAnswers}) write the answer, for filters and handlers alike.
 */
public final class RequestFilters {

  private RequestFilters() {}

  /** Makes the request's {@link Call}: its id, its route, the engine as it is now. */
  static Filter exchange(RouteTable routes, ServerConfig config, Supplier<QueueEngine> engine) {
    return (chain, req, res) -> {
      String id = RequestIds.next();
      res.header(Call.REQUEST_ID, id);
      var path = req.path();
      RouteTable.Match route =
          routes.match(req.prologue().method().text(), path.rawPath(), path.path());
      req.context().register(new Call(req, res, config, engine.get(), id, route));
      chain.proceed();
    };
  }

  /**
   * Records each request a route serves in {@code switchboard_http_requests_seconds}, by operation
   * and status, when its answer has been sent; a request no route serves (404, 405) is not
   * recorded.
   */
  static Filter metrics(ServerMetrics metrics) {
    return (chain, req, res) -> {
      long start = System.nanoTime();
      Call call = Call.of(req);
      res.whenSent(
          () ->
              call.operation()
                  .ifPresent(
                      op -> metrics.record(op, res.status().code(), System.nanoTime() - start)));
      chain.proceed();
    };
  }

  /**
   * Refuses what a web page in a user's browser could send to drive the server, as {@link
   * ExposureGuard} says, before authentication (a browser's request is refused whoever's
   * credentials it carries); answers the CORS preflight of an origin listed in {@code cors-origins}
   * itself. A refused request is still counted by the metrics.
   */
  static Filter exposure(ExposureGuard guard) {
    return (chain, req, res) -> {
      if (guard.admit(Call.of(req))) {
        chain.proceed();
      }
    };
  }

  /**
   * Authentication and authorization ({@link Authentication}): between the metrics (a refused
   * request is still counted) and the gate (a refused request does not hold a stop back). A refusal
   * is an {@link HttpError} (401 or 403 with a stable code), which the error handlers answer. The
   * SQS endpoint checks its own requests, to answer in the SQS error shapes SDKs read.
   */
  static Filter authentication(Authentication authentication) {
    return (chain, req, res) -> {
      authentication.check(Call.of(req));
      chain.proceed();
    };
  }

  /**
   * Admits an engine-bound request into {@code gate}, or refuses it with {@code UNAVAILABLE} (503)
   * while the server starts or stops; a route that turns out to be a long poll moves itself to the
   * long polls ({@link Call#receiving}). Other requests pass untouched.
   *
   * <p>A request leaves the gate when its handler returns or throws; an error handler writes the
   * answer of one that threw just after. Neither needs the engine, so a stop may close it then.
   */
  static Filter gate(RequestGate gate) {
    return (chain, req, res) -> {
      Call call = Call.of(req);
      if (call.route().filter(Route::engineBound).isEmpty()) {
        chain.proceed();
        return;
      }
      if (!gate.enter()) {
        throw new QueueException(ErrorCode.UNAVAILABLE, "the server is shutting down");
      }
      call.onLongPoll(gate::longPoll);
      try {
        if (!call.engineOpen()) {
          throw new QueueException(ErrorCode.UNAVAILABLE, "the server is starting");
        }
        chain.proceed();
      } finally {
        gate.exit(call.longPoll());
      }
    };
  }
}
