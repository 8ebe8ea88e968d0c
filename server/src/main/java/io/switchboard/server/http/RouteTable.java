package io.switchboard.server.http;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The server's declared routes, and the one dispatch of every request to its route: the filters
 * read the route a request goes to before it is served (whether it is engine-bound for the gate,
 * which operation the metrics record it under, which methods a path allows for the answer to a
 * method it does not), and the server's one Helidon handler serves it with the same route ({@link
 * io.switchboard.server.SwitchboardServer}). Matching is Helidon's for these patterns: a pattern
 * without parameters matches the raw path exactly; {@code {name}} matches one non-empty segment of
 * the decoded path; first match wins, in the order the routes are registered.
 *
 * <p>A lookup is by method, then by raw path (patterns without parameters) or by number of segments
 * and segment by segment over the few routes with both: no regular expression, no allocation beyond
 * splitting the path. Helidon matched each request against each registered route in turn, a regular
 * expression per pattern with parameters (the SQS routes, registered last, paid for every {@code
 * POST} route before them); it no longer matches any (docs/benchmarks.md, "SQS and the shared
 * filters, profiled again").
 *
 * <p>The documented routes are those of {@link io.switchboard.server.SwitchboardServer#routeTable}
 * and the OpenAPI document; the undocumented ones (the SQS endpoint's) are served and gated alike
 * but do not answer a wrong method with 405.
 */
public final class RouteTable {

  /**
   * A request matched to its route: the route and the decoded path's segments, from which the
   * route's path parameters are read ({@link #parameter}).
   */
  public static final class Match {
    private final Entry entry;
    private final String @Nullable [] segments;

    private Match(Entry entry, String @Nullable [] segments) {
      this.entry = entry;
      this.segments = segments;
    }

    Route route() {
      return entry.route();
    }

    /** The value of path parameter {@code {name}}, decoded; null if the route has none. */
    @Nullable String parameter(String name) {
      Integer i = entry.parameters().get(name);
      return i == null || segments == null ? null : segments[i];
    }
  }

  /**
   * A route, its registration order, and its pattern's segments, split at {@code /} ({@code null}
   * for a {@code {name}} segment), with the index of each parameter's segment; {@code exact} when
   * the pattern has no parameter (matched against the raw path, as Helidon does).
   */
  private record Entry(
      Route route,
      int order,
      String[] segments,
      Map<String, Integer> parameters,
      boolean exact,
      boolean documented) {

    static Entry of(Route route, int order, boolean documented) {
      String[] segments = split(route.pattern());
      Map<String, Integer> parameters = new HashMap<>();
      for (int i = 0; i < segments.length; i++) {
        String s = segments[i];
        if (s.startsWith("{") && s.endsWith("}")) {
          parameters.put(s.substring(1, s.length() - 1), i);
          segments[i] = null;
        }
      }
      return new Entry(
          route, order, segments, Map.copyOf(parameters), parameters.isEmpty(), documented);
    }

    boolean matches(String rawPath, String[] path) {
      if (exact) {
        return route.pattern().equals(rawPath);
      }
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

  /** By method: the routes without parameters by pattern (the first registered of each). */
  private final Map<String, Map<String, Entry>> exact = new HashMap<>();

  /**
   * By method: the routes with parameters by segment count, each list in registration order (an
   * empty list where there are none).
   */
  private final Map<String, List<List<Entry>>> byShape = new HashMap<>();

  public RouteTable(List<Route> documented, List<Route> undocumented) {
    this.documented = List.copyOf(documented);
    documented.forEach(r -> entries.add(Entry.of(r, entries.size(), true)));
    undocumented.forEach(r -> entries.add(Entry.of(r, entries.size(), false)));
    for (Entry e : entries) {
      String method = e.route().method();
      if (e.exact()) {
        exact.computeIfAbsent(method, k -> new HashMap<>()).putIfAbsent(e.route().pattern(), e);
      } else {
        List<List<Entry>> shapes = byShape.computeIfAbsent(method, k -> new ArrayList<>());
        while (shapes.size() <= e.segments().length) {
          shapes.add(new ArrayList<>());
        }
        shapes.get(e.segments().length).add(e);
      }
    }
  }

  /** The documented routes, in order. */
  public List<Route> documented() {
    return documented;
  }

  /** Every route, documented first, in the order they are matched. */
  public List<Route> all() {
    return entries.stream().map(Entry::route).toList();
  }

  /** The route a request goes to, if any, for a path that is the same raw and decoded. */
  public Optional<Route> find(String method, String path) {
    return Optional.ofNullable(match(method, path, path)).map(Match::route);
  }

  /**
   * The route a request goes to, with its path parameters; null if none.
   *
   * @param rawPath the path as sent (what a pattern without parameters must equal)
   * @param path the path decoded (whose segments the parameters match)
   */
  public @Nullable Match match(String method, String rawPath, String path) {
    Entry found = null;
    Map<String, Entry> byPattern = exact.get(method);
    if (byPattern != null) {
      found = byPattern.get(rawPath);
    }
    List<List<Entry>> shapes = byShape.get(method);
    String @Nullable [] segments = null;
    if (shapes != null) {
      int count = segmentCount(path);
      List<Entry> candidates = count < shapes.size() ? shapes.get(count) : List.of();
      if (!candidates.isEmpty() && (found == null || candidates.get(0).order() < found.order())) {
        segments = split(path);
        for (Entry e : candidates) {
          if (found != null && found.order() < e.order()) {
            break; // the exact route was registered first
          }
          if (e.matches(rawPath, segments)) {
            found = e;
            break;
          }
        }
      }
    }
    return found == null ? null : new Match(found, found.exact() ? null : segments);
  }

  /** The methods the documented routes allow on {@code path}, in order, without repeats. */
  public List<String> allowed(String rawPath, String path) {
    String[] segments = split(path);
    return entries.stream()
        .filter(e -> e.documented() && e.matches(rawPath, segments))
        .map(e -> e.route().method())
        .distinct()
        .toList();
  }

  /** {@link #allowed(String, String)} for a path that is the same raw and decoded. */
  public List<String> allowed(String path) {
    return allowed(path, path);
  }

  /** How many segments {@link #split} makes of {@code path}. */
  private static int segmentCount(String path) {
    int n = 1;
    for (int i = 0; i < path.length(); i++) {
      if (path.charAt(i) == '/') {
        n++;
      }
    }
    return n;
  }

  /** A path's segments, empty ones (a trailing {@code /}) included. */
  private static String[] split(String path) {
    return path.split("/", -1);
  }
}
