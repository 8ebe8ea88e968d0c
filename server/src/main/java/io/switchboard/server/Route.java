package io.switchboard.server;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One route of the server, declared: method, path pattern ({@code {name}} matches one segment), the
 * operation name that metrics and the OpenAPI document use, and its handler. {@code engineBound}
 * routes need a ready engine and are refused while the server starts or stops ({@link
 * RequestFilters#gate}). Helidon dispatches to the handler; the server's filters read the rest
 * ({@link RouteTable}).
 *
 * <p>{@code guard} is what the route needs of the caller when access keys are configured ({@link
 * Guard}); null means undeclared, which the server treats as {@code admin} and the access matrix
 * test refuses.
 */
record Route(
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
  interface Endpoint {
    void handle(Call call);
  }

  /**
   * The value of path parameter {@code {name}} in {@code path} (decoded, matched by this route), as
   * Helidon would give it to the handler; filters run before Helidon matches, so they read it here.
   */
  Optional<String> parameter(String name, String path) {
    String[] patterns = pattern.split("/", -1);
    String[] segments = path.split("/", -1);
    String wanted = "{" + name + "}";
    for (int i = 0; i < patterns.length && i < segments.length; i++) {
      if (patterns[i].equals(wanted)) {
        return Optional.of(segments[i]);
      }
    }
    return Optional.empty();
  }
}
