package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.http.Route;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each documented route is declared once, in one piece, where its handler is: {@code
 * Route.declare("METHOD", "/literal/path/{param}", "operation")} is in the server's sources as
 * written (spaces aside), so a search for a path finds the line that declares it. A path glued from
 * a prefix, or an operation name made from another, fails here.
 */
class RouteDeclarationsTest {

  private static SwitchboardServer server;
  private static String sources;

  @BeforeAll
  static void start() throws IOException {
    server = SwitchboardServer.start(ServerConfig.forTests());
    // surefire runs in the module's directory
    Path main = Path.of("src/main/java/io/switchboard/server");
    assertTrue(Files.isDirectory(main), "run from the server module: " + main.toAbsolutePath());
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.walk(main)) {
      files
          .filter(f -> f.toString().endsWith(".java"))
          .forEach(
              f -> {
                try {
                  all.append(Files.readString(f).replaceAll("\\s+", ""));
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
    sources = all.toString();
  }

  @AfterAll
  static void stop() {
    server.stop();
  }

  @Test
  void everyDocumentedRoute_isDeclaredWithItsLiteralPath() {
    List<String> missing = new ArrayList<>();
    for (Route r : server.routes().documented()) {
      assertTrue(r.pattern().startsWith("/"), r.pattern());
      String declared =
          "Route.declare(\"" + r.method() + "\",\"" + r.pattern() + "\",\"" + r.operation() + "\")";
      if (!sources.contains(declared)) {
        missing.add(declared);
      }
    }
    assertEquals(List.of(), missing, "routes not declared with a literal path and operation");
  }

  @Test
  void everyDocumentedRoute_isDeclaredOnce_andEachOperationNamesOne() {
    Set<String> routes = new HashSet<>();
    Set<String> operations = new HashSet<>();
    for (Route r : server.routes().documented()) {
      assertTrue(routes.add(r.method() + " " + r.pattern()), "declared twice: " + r);
      assertTrue(operations.add(r.operation()), "operation named twice: " + r);
    }
    assertTrue(routes.size() > 80, "documented routes: " + routes.size());
  }

  @Test
  void everyDocumentedRoute_saysWhatBodyAndQueryItTakes() {
    for (Route r : server.routes().documented()) {
      assertTrue(
          r.query().checked(),
          r.method() + " " + r.pattern() + " must list the query parameters it allows");
      assertTrue(
          !(r.body() instanceof Route.Body.Unchecked),
          r.method() + " " + r.pattern() + " must say what body it takes");
    }
  }
}
