package io.switchboard.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The server's declared routes, for what is decided before Helidon dispatches a request to one of
 * them: whether the request is engine-bound (the gate), which operation the metrics record it
 * under, and which methods a path allows (the answer to a method it does not). Matching is the same
 * as Helidon's for these patterns: exact segments and {@code {name}} for one segment, first match
 * wins, in the order the routes are registered.
 *
 * <p>The documented routes are those of {@link SwitchboardServer#routeTable} and the OpenAPI
 * document; the undocumented ones (the SQS endpoint's) are served and gated alike but do not answer
 * a wrong method with 405.
 */
final class RouteTable {

  private record Entry(Route route, Pattern path, boolean documented) {}

  private final List<Entry> entries = new ArrayList<>();
  private final List<Route> documented;

  RouteTable(List<Route> documented, List<Route> undocumented) {
    this.documented = List.copyOf(documented);
    documented.forEach(r -> entries.add(new Entry(r, r.pathRegex(), true)));
    undocumented.forEach(r -> entries.add(new Entry(r, r.pathRegex(), false)));
  }

  /** The documented routes, in order. */
  List<Route> documented() {
    return documented;
  }

  /** Every route, documented first, in the order Helidon matches them. */
  List<Route> all() {
    return entries.stream().map(Entry::route).toList();
  }

  /** The route a request goes to, if any. */
  Optional<Route> find(String method, String path) {
    for (Entry e : entries) {
      if (e.route().method().equals(method) && e.path().matcher(path).matches()) {
        return Optional.of(e.route());
      }
    }
    return Optional.empty();
  }

  /** The methods the documented routes allow on {@code path}, in order, without repeats. */
  List<String> allowed(String path) {
    return entries.stream()
        .filter(e -> e.documented() && e.path().matcher(path).matches())
        .map(e -> e.route().method())
        .distinct()
        .toList();
  }
}
