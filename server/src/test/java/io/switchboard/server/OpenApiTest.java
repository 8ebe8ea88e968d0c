package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.switchboard.server.config.ServerConfig;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The served OpenAPI document and the real routes are the same set: every operation in the document
 * is registered and answers (with anything but "no such route"), and every registered route is in
 * the document.
 */
class OpenApiTest {

  private static final Set<String> METHODS = Set.of("get", "post", "put", "patch", "delete");

  private static SwitchboardServer server;
  private static Http http;
  private static JsonNode document;

  @BeforeAll
  static void start() throws Exception {
    server = SwitchboardServer.start(ServerConfig.forTests());
    http = new Http(server.uri());
    Http.Answer served = http.get("/openapi.yaml");
    assertEquals(200, served.status());
    document = new ObjectMapper(new YAMLFactory()).readTree(served.text());
  }

  @AfterAll
  static void stop() {
    http.close();
    server.stop();
  }

  private static Set<String> documented() {
    return operations(document);
  }

  /** Each operation {@code document} describes: {@code METHOD /path/{param}}, sorted. */
  static Set<String> operations(JsonNode document) {
    Set<String> out = new TreeSet<>();
    document
        .get("paths")
        .properties()
        .forEach(
            path ->
                path.getValue()
                    .properties()
                    .forEach(
                        op -> {
                          if (METHODS.contains(op.getKey())) {
                            out.add(op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey());
                          }
                        }));
    return out;
  }

  @Test
  void document_isOpenApi3() {
    assertTrue(document.get("openapi").asText().startsWith("3."));
  }

  @Test
  void everyRegisteredRoute_isDocumented_andNothingElse() {
    assertEquals(new TreeSet<>(server.routeTable()), documented());
  }

  @Test
  void everyDocumentedOperation_answersOverHttp() {
    for (String route : documented()) {
      String method = route.substring(0, route.indexOf(' '));
      String path = route.substring(route.indexOf(' ') + 1).replaceAll("\\{[^/]+}", "drift-check");
      if (route.endsWith("/events")) {
        // An event stream never ends; an invalid resume point proves the route without one.
        path += "?after=-1";
      }
      Http.Answer a =
          http.send(method, path, method.equals("GET") || method.equals("DELETE") ? null : "{}");
      if (a.status() >= 400) {
        assertNotEquals("NOT_FOUND", a.code(), route + " -> " + a);
        assertNotEquals("METHOD_NOT_ALLOWED", a.code(), route + " -> " + a);
      }
    }
  }

  @Test
  void everyOperation_hasAnOperationIdMatchingTheServersName() {
    Set<String> ids = new TreeSet<>();
    document
        .get("paths")
        .forEach(
            path ->
                path.properties()
                    .forEach(
                        op -> {
                          if (METHODS.contains(op.getKey())) {
                            ids.add(op.getValue().get("operationId").asText());
                          }
                        }));
    assertEquals(documented().size(), ids.size(), "operationIds must be unique");
  }
}
