package io.switchboard.server;

/**
 * One route of the server, declared: method, path pattern ({@code {name}} matches one segment), the
 * operation name that metrics and the OpenAPI document use, and its handler. {@code engineBound}
 * routes need a ready engine and are refused while the server starts or stops ({@link
 * RequestFilters#gate}). Helidon dispatches to the handler; the server's filters read the rest
 * ({@link RouteTable}).
 */
record Route(
    String method, String pattern, String operation, boolean engineBound, Endpoint endpoint) {

  /** What a route does with a call. */
  @FunctionalInterface
  interface Endpoint {
    void handle(Call call);
  }
}
