package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every route of the served OpenAPI document × {no credentials, a wrong secret, a key lacking the
 * route's action, a key with it} → 401, 401, 403, anything but 401/403. The routes come from the
 * document and their actions from the route table, so a new route is covered without editing this
 * test, and a route that declares no action fails it.
 */
class AccessMatrixTest {

  /** What the path parameters are replaced with; the agent keys act as this agent. */
  private static final String ID = "drift-check";

  private static final String ADMIN = "AKADMIN";
  private static final String SECRET = "admin-secret";

  private static SwitchboardServer server;
  private static Http http;
  private static JsonNode document;

  @BeforeAll
  static void start() throws Exception {
    server = SwitchboardServer.start(ServerConfig.forTests());
    server.keys().put(Principal.admin(ADMIN, SECRET));
    for (Action a : Action.values()) {
      server.keys().put(has(a));
      server.keys().put(lacks(a));
    }
    http = new Http(server.uri());
    Http.Answer served = http.get("/openapi.yaml");
    assertEquals(200, served.status(), "the OpenAPI document stays public: " + served);
    document = new ObjectMapper(new YAMLFactory()).readTree(served.text());
  }

  @AfterAll
  static void stop() {
    http.close();
    server.stop();
  }

  /** A key with {@code a} on every resource (as agent {@value #ID} for routing:agent). */
  static Principal has(Action a) {
    return new Principal(
        "HAS-" + a.name(),
        "s-" + a.name(),
        Optional.of("has " + a.wireName()),
        List.of(Grant.of("*", a)),
        Optional.of(ID));
  }

  /** A key with every action but {@code a} and those that imply it. */
  static Principal lacks(Action a) {
    Set<Action> others = EnumSet.allOf(Action.class);
    others.remove(a);
    others.remove(Action.ADMIN);
    if (a == Action.ROUTING_AGENT) {
      others.remove(Action.ROUTING_SUPERVISOR);
    }
    return new Principal(
        "LACKS-" + a.name(),
        "s-" + a.name(),
        Optional.empty(),
        List.of(new Grant(others, "*")),
        Optional.of(ID));
  }

  private static String basic(String id, String secret) {
    return "Basic "
        + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
  }

  /** Each documented operation: {@code METHOD /path/{param}}. */
  private static Set<String> documented() {
    return OpenApiTest.operations(document);
  }

  private static Http.Answer call(String route, Optional<String> authorization) {
    String method = route.substring(0, route.indexOf(' '));
    String path = route.substring(route.indexOf(' ') + 1).replaceAll("\\{[^/]+}", ID);
    if (path.endsWith("/events")) {
      path += "?after=-1"; // an event stream never ends; a bad resume point ends it at once
    }
    String body = method.equals("GET") || method.equals("DELETE") ? null : "{}";
    Map<String, String> headers = new java.util.HashMap<>();
    if (body != null) {
      headers.put("Content-Type", "application/json");
    }
    authorization.ifPresent(a -> headers.put("Authorization", a));
    return http.send(method, path, body, headers);
  }

  private static Route route(String operation) {
    String method = operation.substring(0, operation.indexOf(' '));
    String path = operation.substring(operation.indexOf(' ') + 1).replaceAll("\\{[^/]+}", ID);
    return server.routes().find(method, path).orElseThrow(() -> new AssertionError(operation));
  }

  @Test
  void everyRoute_declaresWhatItNeeds() {
    for (Route r : server.routes().all()) {
      assertNotNull(
          r.guard(),
          r.method()
              + " "
              + r.pattern()
              + " declares no action: give it a Guard (docs/security.md)");
    }
  }

  @Test
  void everyDocumentedRoute_refusesWithoutCredentials_orWithAWrongSecret() {
    for (String op : documented()) {
      if (route(op).guard() instanceof Guard.Open) {
        assertEquals(200, call(op, Optional.empty()).status(), op + " is open");
        continue;
      }
      for (Optional<String> auth :
          List.of(Optional.<String>empty(), Optional.of(basic(ADMIN, "wrong-secret")))) {
        Http.Answer a = call(op, auth);
        assertEquals(401, a.status(), op + " " + auth.isPresent() + " -> " + a);
        assertEquals("UNAUTHENTICATED", a.code(), op + " -> " + a);
        String challenge = a.raw().headers().firstValue("WWW-Authenticate").orElse("");
        assertTrue(
            challenge.contains("Basic realm=") && challenge.contains("AWS4-HMAC-SHA256"),
            op + " -> " + challenge);
      }
    }
  }

  @Test
  void everyDocumentedRoute_refusesAKeyLackingItsAction_andAdmitsOneWithIt() {
    int checked = 0;
    for (String op : documented()) {
      Guard guard = route(op).guard();
      if (guard instanceof Guard.Needs needs) {
        Action action = needs.action();
        Http.Answer refused =
            call(op, Optional.of(basic("LACKS-" + action.name(), "s-" + action.name())));
        assertEquals(403, refused.status(), op + " -> " + refused);
        assertEquals("FORBIDDEN", refused.code(), op + " -> " + refused);
        assertTrue(
            refused.json().get("message").asText().contains(action.wireName()),
            op + " names the missing action -> " + refused);
        Http.Answer admitted =
            call(op, Optional.of(basic("HAS-" + action.name(), "s-" + action.name())));
        assertFalse(admitted.status() == 401 || admitted.status() == 403, op + " -> " + admitted);
        checked++;
      } else if (guard instanceof Guard.Authenticated) {
        Http.Answer any = call(op, Optional.of(basic("LACKS-ADMIN", "s-ADMIN")));
        assertFalse(any.status() == 401 || any.status() == 403, op + " -> " + any);
      }
      Http.Answer admin = call(op, Optional.of(basic(ADMIN, SECRET)));
      assertFalse(admin.status() == 401 || admin.status() == 403, op + " -> " + admin);
    }
    assertTrue(checked > 40, "routes with an action: " + checked);
  }

  @Test
  void basicCredentials_onlyOverTlsOrFromLoopback() {
    var remote = new InetSocketAddress("192.0.2.7", 40000);
    var local = new InetSocketAddress("127.0.0.1", 40000);
    var local6 = new InetSocketAddress("::1", 40000);
    assertFalse(Authentication.clearCredentialsAllowed(false, remote));
    assertTrue(Authentication.clearCredentialsAllowed(true, remote));
    assertTrue(Authentication.clearCredentialsAllowed(false, local));
    assertTrue(Authentication.clearCredentialsAllowed(false, local6));
    assertFalse(Authentication.clearCredentialsAllowed(false, null));
  }

  @Test
  void listQueues_showsOnlyTheQueuesAKeyMayBrowse() {
    String admin = basic(ADMIN, SECRET);
    for (String q : List.of("orders-1", "orders-2", "billing")) {
      Http.Answer created =
          http.send(
              "POST",
              "/v1/queues",
              "{\"name\":\"" + q + "\"}",
              Map.of("Content-Type", "application/json", "Authorization", admin));
      assertEquals(201, created.status(), created.toString());
    }
    server
        .keys()
        .put(
            new Principal(
                "ORDERS",
                "orders-secret",
                Optional.of("orders service"),
                List.of(Grant.parse("queue:browse,queue:admin on orders-*")),
                Optional.empty()));
    Http.Answer list =
        http.send(
            "GET", "/v1/queues", null, Map.of("Authorization", basic("ORDERS", "orders-secret")));
    assertEquals(200, list.status(), list.toString());
    List<String> names = new ArrayList<>();
    list.json().get("queues").forEach(q -> names.add(q.get("name").asText()));
    assertTrue(names.containsAll(List.of("orders-1", "orders-2")), names.toString());
    assertFalse(names.contains("billing"), names.toString());
    Http.Answer other =
        http.send(
            "POST",
            "/v1/queues",
            "{\"name\":\"billing-2\"}",
            Map.of(
                "Content-Type",
                "application/json",
                "Authorization",
                basic("ORDERS", "orders-secret")));
    assertEquals(403, other.status(), other.toString());
    assertTrue(other.text().contains("queue 'billing-2'"), other.toString());
  }

  @Test
  void aRevokedKey_isRefusedAtOnce() {
    server.keys().put(Principal.admin("SHORTLIVED", "x"));
    Map<String, String> auth = Map.of("Authorization", basic("SHORTLIVED", "x"));
    assertEquals(200, http.send("GET", "/v1/queues", null, auth).status());
    assertTrue(server.keys().revoke("SHORTLIVED"));
    assertEquals(401, http.send("GET", "/v1/queues", null, auth).status());
  }

  /**
   * The web console's static files are routes too, undocumented (not API): open with keys, since
   * they hold no data; what they show comes from the API, checked as above.
   */
  @Test
  void consoleAssets_areOpen_andHoldNoData() {
    List<Route> assets =
        server.routes().all().stream().filter(r -> r.pattern().startsWith("/console")).toList();
    assertTrue(assets.size() >= 4, assets.toString());
    for (Route r : assets) {
      assertNotNull(r.guard(), r.pattern());
    }
    for (String path : List.of("/console", "/console/app.js", "/console/console.css")) {
      assertTrue(server.routes().find("GET", path).orElseThrow().guard() instanceof Guard.Open);
      assertEquals(200, http.get(path).status(), path + " is open");
    }
    Http.Answer session = http.get("/console/session");
    assertEquals(200, session.status(), session.toString());
    assertFalse(session.json().has("accessKeyId"), "no session, no key: " + session);
  }

  @Test
  void healthStaysOpen() {
    assertEquals(200, http.get("/health").status());
  }
}
