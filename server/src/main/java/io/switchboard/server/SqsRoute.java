package io.switchboard.server;

import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.switchboard.server.sqs.SqsAction;
import io.switchboard.server.sqs.SqsApi;
import io.switchboard.server.sqs.SqsEndpoint;
import io.switchboard.server.sqs.SqsHttpRequest;
import io.switchboard.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Amazon SQS endpoint ({@code docs/sqs.md}) on the native API's port: {@code POST /} (the JSON
 * protocol, and the query protocol), {@code POST /<account>/<queue>} and {@code POST
 * /queue/<region>/<account>/<queue>} (the query protocol posted to a queue URL, as SDK v1 and the
 * AWS CLI do) and {@code GET} on each with the query in the URL. Not in the route table (nor the
 * OpenAPI document), which lists the native API only; requests still pass through the server's gate
 * and metrics (operation {@code sqs.<Action>}, or {@code sqs} when the request names no action
 * served). This class turns the Helidon request into a framework-free {@link SqsHttpRequest}, reads
 * its action ahead ({@link SqsAction}: a {@code ReceiveMessage} that may wait is a long poll, which
 * a stop ends at once) and writes the answer back.
 */
final class SqsRoute {

  /** Helidon path patterns the endpoint is bound to, for each of {@code GET} and {@code POST}. */
  static final List<String> PATHS =
      List.of("/", "/{account}/{queue}", "/queue/{region}/{account}/{queue}");

  static final Route ROUTE = new Route("POST", "/", "sqs", true, SqsRoute::handle);

  private SqsRoute() {}

  private static void handle(Call call) {
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
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (Header h : request.headers()) {
      headers
          .computeIfAbsent(h.name().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
          .addAll(h.allValues());
    }
    String host =
        request.headers().contains(HeaderNames.HOST)
            ? request.headers().get(HeaderNames.HOST).get()
            : request.localPeer().host() + ":" + request.localPeer().port();
    SqsHttpRequest sqs =
        new SqsHttpRequest(
            request.prologue().method().text(),
            rawPath,
            request.query().rawValue(),
            headers,
            call.bytes());
    SqsEndpoint endpoint =
        SqsEndpoint.create(
            call.engine(),
            call.config().sqsAccessKeys(),
            call.config().sqsAccount(),
            Clock.system());
    String baseUrl = "http://" + host;
    SqsAction action = endpoint.action(sqs, baseUrl);
    call.operation(action.name().map(name -> "sqs." + name).orElse("sqs"));
    if (action.receive()) {
      call.receiving(action.queue().get(), action.waitTime());
    }
    SqsApi.Answer answer = endpoint.handle(sqs, baseUrl);
    String contentType = "application/x-amz-json-1.0";
    for (var h : answer.headers().entrySet()) {
      if (h.getKey().equalsIgnoreCase("Content-Type")) {
        contentType = h.getValue();
      } else {
        call.response().header(HeaderNames.create(h.getKey()), h.getValue());
      }
    }
    call.send(answer.status(), contentType, answer.body());
  }
}
