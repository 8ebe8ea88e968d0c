package io.switchboard.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The route a request is looked up to by the filters (for the gate and the metrics) is the one the
 * server serves it with, as Helidon matched it when it dispatched each route itself: exact
 * segments, {@code {name}} for one non-empty segment, first match.
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

  @Test
  void dispatchedByTheTable_patternsWithoutParametersMatchTheRawPath_parametersTheDecodedOne() {
    // Helidon compared a pattern without parameters with the raw path, and matched one with
    // parameters against the decoded path; the server's one handler now serves what this finds
    RouteTable.Match m = table.match("GET", "/v1/queues/a%20b/messages", "/v1/queues/a b/messages");
    assertEquals("browse", m.route().operation());
    assertEquals("a b", m.parameter("queue"));
    assertEquals(null, m.parameter("id"));
    assertEquals(null, table.match("GET", "/openapi%2Eyaml", "/openapi.yaml"));
    assertEquals(List.of(), table.allowed("/openapi%2Eyaml", "/openapi.yaml"));
    RouteTable.Match byId =
        table.match("POST", "/v1/queues/q/messages/m%2F1", "/v1/queues/q/messages/m/1");
    assertEquals(null, byId); // a decoded '/' makes another segment, as in Helidon's match
    assertEquals(
        "m1",
        table
            .match("POST", "/v1/queues/q/messages/m1", "/v1/queues/q/messages/m1")
            .parameter("id"));
  }

  @Test
  void exactAndParameterRoutesOfOneShape_firstRegisteredWins() {
    RouteTable t =
        new RouteTable(
            List.of(
                route("GET", "/v1/things/{thing}", "thing"),
                route("GET", "/v1/things/all", "all"),
                route("GET", "/v1/other/all", "otherAll"),
                route("GET", "/v1/other/{thing}", "other")),
            List.of());
    assertEquals("thing", t.find("GET", "/v1/things/all").orElseThrow().operation());
    assertEquals("otherAll", t.find("GET", "/v1/other/all").orElseThrow().operation());
    assertEquals("other", t.find("GET", "/v1/other/x").orElseThrow().operation());
    assertEquals("x", t.match("GET", "/v1/other/x", "/v1/other/x").parameter("thing"));
    assertEquals(Optional.empty(), t.find("POST", "/v1/other/x"));
  }
}
