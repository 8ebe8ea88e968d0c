package io.switchboard.server.sqs;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.switchboard.server.http.Call;
import io.switchboard.server.http.Guard;
import io.switchboard.server.http.HttpError;
import io.switchboard.server.http.Route;
import io.switchboard.server.security.ExposureGuard;
import io.switchboard.server.security.SignedCalls;
import io.switchboard.server.security.sigv4.SqsHttpRequest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The Amazon SQS endpoint ({@code docs/sqs.md}) on the native API's port: {@code POST /} (the JSON
 * protocol, and the query protocol), {@code POST /<account>/<queue>} and {@code POST
 * /queue/<region>/<account>/<queue>} (the query protocol posted to a queue URL, as SDK v1 and the
 * AWS CLI do) and {@code GET} on each with the query in the URL. Not in the route table (nor the
 * OpenAPI document), which lists the native API only; requests still pass through the server's gate
 * and metrics (operation {@code sqs.<Action>}, or {@code sqs} when the request names no action
 * served). This class turns the Helidon request into a framework-free {@link SqsHttpRequest}, reads
 * its action ahead ({@link SqsAction}: a {@code ReceiveMessage} that may wait is a long poll, which
 * a stop ends at once), has the server's one {@link SqsEndpoint} serve it, with the request's id
 * (in both {@code X-Request-Id} and {@code x-amzn-RequestId}), and writes the answer back.
 */
public final class SqsRoute {

  /** Helidon path patterns the endpoint is bound to, for each of {@code GET} and {@code POST}. */
  static final List<String> PATHS =
      List.of("/", "/{account}/{queue}", "/queue/{region}/{account}/{queue}");

  /** The header of an SQS answer's request id, as Helidon's name, made once. */
  private static final HeaderName AMZN_REQUEST_ID =
      HeaderNames.create(SqsEndpoint.REQUEST_ID_HEADER);

  /**
   * The metrics' operation of each action served, {@code sqs.<Action>}, made once per action (the
   * actions served are a bounded set: {@link SqsAction#name}).
   */
  private static final Map<String, String> OPERATIONS = new ConcurrentHashMap<>();

  private static String operation(String action) {
    return OPERATIONS.computeIfAbsent(action, a -> "sqs." + a);
  }

  private final Supplier<SqsEndpoint> endpoint;
  private final ExposureGuard guard;

  /**
   * @param endpoint the server's endpoint, there once the engine is open (the routes are
   *     engine-bound, so the gate admits no request before)
   * @param guard names the base URL of queue URLs, and says whether the server is keyless (then an
   *     action that changes state is refused over {@code GET})
   */
  public SqsRoute(Supplier<SqsEndpoint> endpoint, ExposureGuard guard) {
    this.endpoint = endpoint;
    this.guard = guard;
  }

  /**
   * {@code POST} and {@code GET} on each of {@link #PATHS}, engine-bound, operation {@code sqs}.
   */
  public List<Route> routes() {
    List<Route> routes = new ArrayList<>();
    for (String path : PATHS) {
      for (String method : List.of("POST", "GET")) {
        // the SQS protocols read the query and the body themselves
        routes.add(
            Route.declare(method, path, "sqs")
                .guard(Guard.self())
                .anyQuery()
                .anyBody()
                .to(this::handle));
      }
    }
    return List.copyOf(routes);
  }

  private void handle(Call call) {
    var request = call.request();
    String rawPath = request.path().rawPath();
    if (!rawPath.equals("/") && !SqsEndpoint.isQueuePath(rawPath)) {
      throw new HttpError(
          404,
          "NOT_FOUND",
          "no route "
              + request.prologue().method().text()
              + " "
              + rawPath
              + "; see /openapi.yaml (SQS queue URLs are /<12-digit account>/<queue> or"
              + " /queue/<region>/<12-digit account>/<queue>)");
    }
    SqsHttpRequest sqs = SignedCalls.httpRequest(call);
    SqsEndpoint endpoint = this.endpoint.get();
    String baseUrl = guard.baseUrl(call);
    SqsAction action = endpoint.action(sqs, baseUrl);
    call.operation(action.name().map(SqsRoute::operation).orElse("sqs"));
    SqsApi.Answer answer;
    if (guard.keyless()
        && sqs.method().equals("GET")
        && action
            .name()
            .filter(n -> !SqsOperation.has(n, SqsOperation.Flag.READ_ONLY))
            .isPresent()) {
      answer = getRefused(sqs, action.name().get(), call.requestId());
    } else {
      // signature and access first: a refused caller neither learns of nor takes a long-poll place
      SqsEndpoint.Admission admission =
          endpoint.admit(sqs, baseUrl, call.requestId(), action, origin(call));
      if (!admission.refused()
          && action.receive()
          && !call.receiving(action.queue().get(), action.waitTime())) {
        answer = endpoint.throttled(sqs, Call.tooManyLongPolls(call.config()), call.requestId());
      } else {
        answer = endpoint.handle(sqs, baseUrl, call.requestId(), action, admission);
      }
    }
    String contentType = "application/x-amz-json-1.0";
    for (var h : answer.headers().entrySet()) {
      if (h.getKey().equalsIgnoreCase("Content-Type")) {
        contentType = h.getValue();
      } else if (h.getKey().equals(SqsEndpoint.REQUEST_ID_HEADER)) {
        call.response().header(AMZN_REQUEST_ID, h.getValue());
      } else {
        call.response().header(HeaderNames.create(h.getKey()), h.getValue());
      }
    }
    call.send(answer.status(), contentType, answer.body());
  }

  /** Where {@code call} came from, for queue policies' conditions ({@code aws:SourceIp}...). */
  private static SqsEndpoint.Origin origin(Call call) {
    Optional<InetAddress> source =
        call.request().remotePeer().address() instanceof InetSocketAddress a
            ? Optional.ofNullable(a.getAddress())
            : Optional.empty();
    return new SqsEndpoint.Origin(source, call.request().isSecure());
  }

  /**
   * A keyless server takes no state change over {@code GET}: a web page can make a browser send a
   * {@code GET} to any address (an image, a link) without asking. Refused as SQS refuses an action
   * an endpoint does not take, {@code InvalidAction} (400), with the reason.
   */
  private static SqsApi.Answer getRefused(SqsHttpRequest sqs, String action, String requestId) {
    return SqsEndpoint.refusal(
        sqs,
        "InvalidAction",
        400,
        "The action "
            + action
            + " is not valid for this endpoint over GET: it changes state, which a server without"
            + " access keys takes only over POST (a web page could send a GET)",
        requestId);
  }
}
