package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.http.Guard;
import io.switchboard.server.http.Route;
import io.switchboard.server.security.Authentication;
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
 * Every documented route × {no credentials, a wrong secret, a key lacking the route's action, a key
 * with it} → 401, 401, 403, anything but 401/403. The routes and their actions come from the
 * routes' declarations (which {@link OpenApiTest} holds the OpenAPI document to), so a new route is
 * covered without editing this test, and a route that declares no action fails it.
 */
class AccessMatrixTest {

  /** What the path parameters are replaced with; the agent keys act as this agent. */
  private static final String ID = "drift-check";

  private static final String ADMIN = "AKADMIN";
  private static final String SECRET = "admin-secret";

  private static SwitchboardServer server;
  private static Http http;

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

  /**
   * Each documented operation, {@code METHOD /path/{param}}, as the routes declare it: the same
   * declarations {@link OpenApiTest} holds the OpenAPI document to, so a route missing from the
   * document fails there, and every declared route is in this matrix.
   */
  private static Set<String> documented() {
    return new java.util.TreeSet<>(server.routeTable());
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

  // ---- operations that name a second queue ------------------------------------------------

  /**
   * One operation that puts messages into a second queue, or names one to put them into later: its
   * setup (made by the admin) gives the request to make as a key ({@code basic} credentials).
   */
  private record SecondQueue(
      String operation,
      java.util.function.Supplier<java.util.function.Function<String, Http.Answer>> setup) {}

  private static Http.Answer asKey(String auth, String method, String path, String body) {
    Map<String, String> headers =
        body == null
            ? Map.of("Authorization", auth)
            : Map.of("Authorization", auth, "Content-Type", "application/json");
    return http.send(method, path, body, headers);
  }

  private static Http.Answer asAdmin(String method, String path, String body) {
    Http.Answer a = asKey(basic(ADMIN, SECRET), method, path, body);
    assertTrue(a.status() < 300, method + " " + path + " " + body + " -> " + a);
    return a;
  }

  private static String dlq(String target) {
    return "\"deadLetter\":{\"target\":\"" + target + "\",\"maxReceiveCount\":3}";
  }

  /** A message sent by the admin to {@code queue}; its id. */
  private static String adminSends(String queue) {
    return asAdmin("POST", "/v1/queues/" + queue + "/messages", "{\"body\":\"b\"}")
        .json()
        .get("id")
        .asText();
  }

  /** Row {@code n}'s queues: {@code sq<n>-a} (the key's) and {@code vault-<n>} (the second). */
  private static List<SecondQueue> secondQueueOperations() {
    return List.of(
        new SecondQueue(
            "POST /v1/queues naming a deadLetter target",
            () -> {
              asAdmin("POST", "/v1/queues", "{\"name\":\"vault-1\"}");
              return auth ->
                  asKey(
                      auth,
                      "POST",
                      "/v1/queues",
                      "{\"name\":\"sq1-"
                          + Math.abs(auth.hashCode())
                          + "\","
                          + dlq("vault-1")
                          + "}");
            }),
        new SecondQueue(
            "PATCH /v1/queues/{queue} naming a deadLetter target",
            () -> {
              asAdmin("POST", "/v1/queues", "{\"name\":\"vault-2\"}");
              asAdmin("POST", "/v1/queues", "{\"name\":\"sq2-a\"}");
              return auth -> asKey(auth, "PATCH", "/v1/queues/sq2-a", "{" + dlq("vault-2") + "}");
            }),
        new SecondQueue(
            "POST /v1/queues/{queue}/leases/{receipt}/dead-letter",
            () -> {
              asAdmin("POST", "/v1/queues", "{\"name\":\"vault-6\"}");
              asAdmin("POST", "/v1/queues", "{\"name\":\"sq6-a\"," + dlq("vault-6") + "}");
              adminSends("sq6-a");
              String receipt =
                  asAdmin("POST", "/v1/queues/sq6-a/receive", "{}")
                      .json()
                      .get("messages")
                      .get(0)
                      .get("receipt")
                      .asText();
              return auth ->
                  asKey(auth, "POST", "/v1/queues/sq6-a/leases/" + receipt + "/dead-letter", null);
            }),
        new SecondQueue(
            "POST /v1/queues/{queue}/messages/{id}/dead-letter",
            () -> {
              asAdmin("POST", "/v1/queues", "{\"name\":\"vault-7\"}");
              asAdmin("POST", "/v1/queues", "{\"name\":\"sq7-a\"," + dlq("vault-7") + "}");
              String id = adminSends("sq7-a");
              return auth ->
                  asKey(auth, "POST", "/v1/queues/sq7-a/messages/" + id + "/dead-letter", null);
            }),
        new SecondQueue(
            "POST /v1/queues/{queue}/messages/{id}/restore, to the queue it came from",
            () -> {
              asAdmin("POST", "/v1/queues", "{\"name\":\"sq8-a\"}");
              asAdmin("POST", "/v1/queues", "{\"name\":\"vault-8\"," + dlq("sq8-a") + "}");
              String id = adminSends("vault-8");
              asAdmin("POST", "/v1/queues/vault-8/messages/" + id + "/dead-letter", null);
              return auth ->
                  asKey(auth, "POST", "/v1/queues/sq8-a/messages/" + id + "/restore", null);
            }),
        new SecondQueue(
            "POST /v1/queues/{queue}/redrives naming a destination",
            () -> {
              asAdmin("POST", "/v1/queues", "{\"name\":\"vault-9\"}");
              asAdmin("POST", "/v1/queues", "{\"name\":\"sq9-a\"}");
              adminSends("sq9-a");
              return auth ->
                  asKey(auth, "POST", "/v1/queues/sq9-a/redrives", "{\"destination\":\"vault-9\"}");
            }));
  }

  @Test
  void everyOperationNamingASecondQueue_needsSendOnIt_whateverItsGrantsOnTheFirst() {
    String queues = "queue:admin,queue:send,queue:receive,queue:browse on sq*";
    server.keys().put(keyWith("SQ-LACKS", queues));
    server.keys().put(keyWith("SQ-HAS", queues, "queue:send on vault-*"));
    String lacks = basic("SQ-LACKS", "s");
    String has = basic("SQ-HAS", "s");
    for (SecondQueue row : secondQueueOperations()) {
      var request = row.setup().get();
      Http.Answer refused = request.apply(lacks);
      assertEquals(403, refused.status(), row.operation() + " -> " + refused);
      assertEquals("DESTINATION_FORBIDDEN", refused.code(), row.operation() + " -> " + refused);
      String message = refused.json().get("message").asText();
      assertTrue(
          message.contains("SQ-LACKS") && message.matches(".*queue:send on queue 'vault-\\d'.*"),
          row.operation() + " names the key, the right and the queue -> " + message);
      Http.Answer admitted = request.apply(has);
      assertTrue(admitted.status() < 300, row.operation() + " -> " + admitted);
    }
  }

  /**
   * Receiving from, and sending to, a queue with a dead-letter target needs nothing on the target
   * (least privilege for consumers, as SQS): the moves the engine makes there on its own are
   * checked against the key that set the target ({@code DestinationRightsTest}).
   */
  @Test
  void aConsumerAndAProducerOfAQueueWithADeadLetterTarget_needOnlyTheirOwnQueue() {
    server.keys().put(keyWith("SQ-RECEIVER", "queue:receive on sq3-a"));
    server.keys().put(keyWith("SQ-SENDER", "queue:send on sq4-a"));
    asAdmin("POST", "/v1/queues", "{\"name\":\"vault-3\"}");
    asAdmin("POST", "/v1/queues", "{\"name\":\"sq3-a\"," + dlq("vault-3") + "}");
    adminSends("sq3-a");
    Http.Answer received =
        asKey(basic("SQ-RECEIVER", "s"), "POST", "/v1/queues/sq3-a/receive", "{}");
    assertEquals(200, received.status(), received.toString());
    assertEquals(1, received.json().get("messages").size(), received.toString());

    asAdmin("POST", "/v1/queues", "{\"name\":\"vault-4\"}");
    asAdmin(
        "POST",
        "/v1/queues",
        "{\"name\":\"sq4-a\",\"onExpire\":\"deadLetter\"," + dlq("vault-4") + "}");
    String sender = basic("SQ-SENDER", "s");
    Http.Answer sent = asKey(sender, "POST", "/v1/queues/sq4-a/messages", "{\"body\":\"b\"}");
    assertEquals(201, sent.status(), sent.toString());
    Http.Answer batch =
        asKey(
            sender, "POST", "/v1/queues/sq4-a/messages/batch", "{\"messages\":[{\"body\":\"b\"}]}");
    assertTrue(batch.status() < 300, batch.toString());
  }

  /** A redrive back to the sources checks each message's source as it moves it. */
  @Test
  void aRedriveBackToTheSources_needsSendOnEachSource() {
    String queues = "queue:admin,queue:send,queue:receive,queue:browse on rs*";
    server.keys().put(keyWith("RS-LACKS", queues));
    server.keys().put(keyWith("RS-HAS", queues, "queue:send on vault-*"));
    asAdmin("POST", "/v1/queues", "{\"name\":\"rs-dlq\"}");
    asAdmin("POST", "/v1/queues", "{\"name\":\"vault-10\"," + dlq("rs-dlq") + "}");
    String id = adminSends("vault-10");
    asAdmin("POST", "/v1/queues/vault-10/messages/" + id + "/dead-letter", null);

    Http.Answer stopped = asKey(basic("RS-LACKS", "s"), "POST", "/v1/queues/rs-dlq/redrives", "{}");
    assertEquals(201, stopped.status(), stopped.toString());
    assertEquals("failed", stopped.json().get("status").asText(), stopped.toString());
    assertEquals(0, stopped.json().get("moved").asLong(), stopped.toString());
    assertTrue(
        stopped.json().get("failureReason").asText().contains("queue:send on queue 'vault-10'"),
        stopped.toString());
    Http.Answer moved = asKey(basic("RS-HAS", "s"), "POST", "/v1/queues/rs-dlq/redrives", "{}");
    assertEquals("completed", moved.json().get("status").asText(), moved.toString());
    assertEquals(1, moved.json().get("moved").asLong(), moved.toString());
  }

  private static Principal keyWith(String id, String... grants) {
    return new Principal(
        id,
        "s",
        Optional.empty(),
        java.util.Arrays.stream(grants).map(Grant::parse).toList(),
        Optional.empty());
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
