package io.switchboard.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The server's declared routes, for what is decided before Helidon dispatches a request to one of
 * them: whether the request is engine-bound (the gate), which operation the metrics record it
 * under, and which methods a path allows (the answer to a method it does not). Matching is the same
 * as Helidon's for these patterns: exact segments and {@code {name}} for one non-empty segment,
 * first match wins, in the order the routes are registered.
 *
 * <p>A lookup is by method and number of segments, then segment by segment over the few routes with
 * both: no regular expression, no allocation beyond splitting the path, since every request is
 * looked up once ({@link RequestFilters#exchange}).
 *
 * <p>The documented routes are those of {@link SwitchboardServer#routeTable} and the OpenAPI
 * document; the undocumented ones (the SQS endpoint's) are served and gated alike but do not answer
 * a wrong method with 405.
 */
final class RouteTable {

  /**
   * A route and its pattern's segments, split at {@code /} ({@code null} for a {@code {name}}
   * segment).
   */
  private record Entry(Route route, String[] segments, boolean documented) {

    static Entry of(Route route, boolean documented) {
      String[] segments = split(route.pattern());
      for (int i = 0; i < segments.length; i++) {
        String s = segments[i];
        if (s.startsWith("{") && s.endsWith("}")) {
          segments[i] = null;
        }
      }
      return new Entry(route, segments, documented);
    }

    boolean matches(String[] path) {
      if (path.length != segments.length) {
        return false;
      }
      for (int i = 0; i < segments.length; i++) {
        String s = segments[i];
        if (s == null ? path[i].isEmpty() : !s.equals(path[i])) {
          return false;
        }
      }
      return true;
    }
  }

  private final List<Entry> entries = new ArrayList<>();
  private final List<Route> documented;

  /** The entries by method and segment count ({@link #key}), each list in registration order. */
  private final Map<String, List<Entry>> byShape = new HashMap<>();

  RouteTable(List<Route> documented, List<Route> undocumented) {
    this.documented = List.copyOf(documented);
    documented.forEach(r -> entries.add(Entry.of(r, true)));
    undocumented.forEach(r -> entries.add(Entry.of(r, false)));
    for (Entry e : entries) {
      byShape
          .computeIfAbsent(key(e.route().method(), e.segments().length), k -> new ArrayList<>())
          .add(e);
    }
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
    String[] segments = split(path);
    List<Entry> candidates = byShape.get(key(method, segments.length));
    if (candidates != null) {
      for (Entry e : candidates) {
        if (e.matches(segments)) {
          return Optional.of(e.route());
        }
      }
    }
    return Optional.empty();
  }

  /** The methods the documented routes allow on {@code path}, in order, without repeats. */
  List<String> allowed(String path) {
    String[] segments = split(path);
    return entries.stream()
        .filter(e -> e.documented() && e.matches(segments))
        .map(e -> e.route().method())
        .distinct()
        .toList();
  }

  private static String key(String method, int segments) {
    return method + ' ' + segments;
  }

  /** A path's segments, empty ones (a trailing {@code /}) included. */
  private static String[] split(String path) {
    return path.split("/", -1);
  }
}
