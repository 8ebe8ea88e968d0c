package io.switchboard.server.http;

import org.jspecify.annotations.Nullable;

/**
 * One route of the server, declared: method, path pattern ({@code {name}} matches one segment), the
 * operation name that metrics and the OpenAPI document use, and its handler. {@code engineBound}
 * routes need a ready engine and are refused while the server starts or stops ({@link
 * RequestFilters#gate}). The {@link RouteTable} matches a request to its route, for the filters and
 * for the server's one handler that serves it.
 *
 * <p>{@code guard} is what the route needs of the caller when access keys are configured ({@link
 * Guard}); null means undeclared, which the server treats as {@code admin} and the access matrix
 * test refuses.
 */
public record Route(
    String method,
    String pattern,
    String operation,
    boolean engineBound,
    Endpoint endpoint,
    @Nullable Guard guard) {

  /** A route whose guard is undeclared (it needs {@code admin}). */
  Route(String method, String pattern, String operation, boolean engineBound, Endpoint endpoint) {
    this(method, pattern, operation, engineBound, endpoint, null);
  }

  /** The same route with {@code guard}. */
  Route guarded(Guard guard) {
    return new Route(method, pattern, operation, engineBound, endpoint, guard);
  }

  /** What a route does with a call. */
  @FunctionalInterface
  public interface Endpoint {
    void handle(Call call);
  }
}
