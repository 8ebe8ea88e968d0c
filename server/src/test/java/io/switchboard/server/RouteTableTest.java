package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The route a request is looked up to by the filters (for the gate and the metrics) is the one
 * Helidon dispatches it to: exact segments, {@code {name}} for one non-empty segment, first match.
 */
class RouteTableTest {

  private static Route route(String method, String pattern, String operation) {
    return new Route(method, pattern, operation, true, call -> {});
  }

  private final RouteTable table =
      new RouteTable(
          List.of(
              route("GET", "/openapi.yaml", "openapi"),
              route("POST", "/v1/queues/{queue}/messages/batch", "sendBatch"),
              route("POST", "/v1/queues/{queue}/messages", "send"),
              route("GET", "/v1/queues/{queue}/messages", "browse"),
              route("POST", "/v1/queues/{queue}/messages/{id}", "byId"),
              route("GET", "/v1/queues/{queue}", "getQueue")),
          List.of(route("POST", "/", "sqs"), route("POST", "/{account}/{queue}", "sqs")));

  private String operation(String method, String path) {
    return table.find(method, path).map(Route::operation).orElse("-");
  }

  @Test
  void literalSegmentsMatchExactly_notAsPatterns() {
    // the regular expression it replaced read the '.' of openapi.yaml as any character
    assertEquals("openapi", operation("GET", "/openapi.yaml"));
    assertEquals("-", operation("GET", "/openapiXyaml"));
  }

  @Test
  void firstDeclaredMatchWins_andParametersAreOneNonEmptySegment() {
    assertEquals("sendBatch", operation("POST", "/v1/queues/q/messages/batch"));
    assertEquals("byId", operation("POST", "/v1/queues/q/messages/m1"));
    assertEquals("send", operation("POST", "/v1/queues/q/messages"));
    assertEquals("browse", operation("GET", "/v1/queues/q/messages"));
    assertEquals("-", operation("GET", "/v1/queues//messages"));
    assertEquals("-", operation("GET", "/v1/queues/q/"));
    assertEquals("-", operation("GET", "/v1/queues/q/messages/m1/more"));
    assertEquals("-", operation("DELETE", "/v1/queues/q"));
  }

  @Test
  void undocumentedRoutesAreFound_butAllowOnlyDocumentedMethods() {
    assertEquals("sqs", operation("POST", "/"));
    assertEquals("sqs", operation("POST", "/123456789012/q"));
    assertEquals(List.of(), table.allowed("/123456789012/q"));
    assertEquals(List.of("POST", "GET"), table.allowed("/v1/queues/q/messages"));
    assertEquals(Optional.empty(), table.find("GET", "/nowhere"));
  }
}
