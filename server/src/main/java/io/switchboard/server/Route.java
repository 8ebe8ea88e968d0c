package io.switchboard.server;

import java.util.regex.Pattern;

/**
 * One route of the server: method, path pattern ({@code {name}} matches one segment), the operation
 * name that metrics and the OpenAPI document use, and its handler. {@code engineBound} routes need
 * a ready engine and are refused while the server starts or stops.
 */
record Route(
    String method, String pattern, String operation, boolean engineBound, Endpoint endpoint) {

  /** What a route does with a call. */
  @FunctionalInterface
  interface Endpoint {
    void handle(Call call);
  }

  boolean matchesPath(String path) {
    return Pattern.compile(pattern.replaceAll("\\{[^/]+}", "[^/]+")).matcher(path).matches();
  }
}
