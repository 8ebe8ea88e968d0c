package io.switchboard.server;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.switchboard.server.sqs.SqsApi;
import java.util.Optional;

/**
 * {@code POST /}: the SQS JSON protocol ({@code docs/sqs.md}), on the native API's port. Not in the
 * route table (nor the OpenAPI document), which lists the native API only; requests still pass
 * through the server's gate and metrics (operation {@code sqs}).
 */
final class SqsRoute {

  static final Route ROUTE = new Route("POST", "/", "sqs", true, SqsRoute::handle);

  private static final HeaderName TARGET = HeaderNames.create("X-Amz-Target");

  private SqsRoute() {}

  private static void handle(Call call) {
    var headers = call.request().headers();
    Optional<String> target =
        headers.contains(TARGET) ? Optional.of(headers.get(TARGET).get()) : Optional.empty();
    String host =
        headers.contains(HeaderNames.HOST)
            ? headers.get(HeaderNames.HOST).get()
            : call.request().localPeer().host() + ":" + call.request().localPeer().port();
    SqsApi.Answer answer = SqsApi.handle(call.engine(), target, call.bytes(), "http://" + host);
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
