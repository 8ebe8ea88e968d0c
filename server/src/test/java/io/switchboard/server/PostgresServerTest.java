package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server configured with {@code postgres-url}: two servers on one database share queues; while
 * the database is away requests answer 503 UNAVAILABLE with a clear message, and work again once it
 * is back; an unreachable database stops the start with a clear error.
 */
class PostgresServerTest {

  @TempDir Path dir;

  @Test
  void twoServersOnOneDatabase_shareQueues_answer503WhileTheDatabaseIsAway() throws Exception {
    Path data = Files.createDirectories(dir.resolve("pgdata"));
    int port = freePort();
    EmbeddedPostgres pg = start(data, port);
    Map<String, String> env =
        Map.of(
            "SWITCHBOARD_POSTGRES_URL", "jdbc:postgresql://localhost:" + port + "/postgres",
            "SWITCHBOARD_POSTGRES_USER", "postgres",
            "SWITCHBOARD_POSTGRES_PASSWORD", "postgres");
    ServerConfig config = ServerConfig.resolve(Map.of("port", "0"), env);
    assertTrue(config.postgres().isPresent());
    assertTrue(config.toString().contains("password=***"), config.toString());
    try (SwitchboardServer one = SwitchboardServer.start(config);
        SwitchboardServer two = SwitchboardServer.start(config);
        Http a = new Http(one.uri());
        Http b = new Http(two.uri())) {
      assertEquals(201, a.post("/v1/queues", "{\"name\":\"shared\"}").status());
      assertEquals(201, a.post("/v1/queues/shared/messages", "{\"body\":\"hello\"}").status());
      Http.Answer got = b.post("/v1/queues/shared/receive", "{\"maxMessages\":1}");
      assertEquals(200, got.status(), got.toString());
      assertEquals("hello", got.json().get("messages").get(0).get("body").asText());

      pg.close();
      Http.Answer away = a.post("/v1/queues/shared/messages", "{\"body\":\"lost?\"}");
      assertEquals(503, away.status(), away.toString());
      assertEquals("UNAVAILABLE", away.code());
      assertTrue(away.text().contains("PostgreSQL"), away.toString());

      pg = start(data, port);
      Http.Answer back = awaitStatus(b, "/v1/queues/shared/messages", "{\"body\":\"again\"}", 201);
      assertEquals(201, back.status(), back.toString());
    } finally {
      pg.close();
    }
  }

  @Test
  void keyCreatedOnOneServer_authenticatesOnTheOtherAtOnce() throws Exception {
    Path data = Files.createDirectories(dir.resolve("pgkeys"));
    int port = freePort();
    EmbeddedPostgres pg = start(data, port);
    Map<String, String> env =
        Map.of(
            "SWITCHBOARD_POSTGRES_URL", "jdbc:postgresql://localhost:" + port + "/postgres",
            "SWITCHBOARD_POSTGRES_USER", "postgres",
            "SWITCHBOARD_POSTGRES_PASSWORD", "postgres",
            "SWITCHBOARD_ACCESS_KEYS", "AKADMIN:admin-secret");
    ServerConfig config = ServerConfig.resolve(Map.of("port", "0"), env);
    try (SwitchboardServer one = SwitchboardServer.start(config);
        SwitchboardServer two = SwitchboardServer.start(config);
        Http a = new Http(one.uri());
        Http b = new Http(two.uri())) {
      Http.Answer created =
          a.send(
              "POST",
              "/v1/keys",
              "{\"grants\":[{\"actions\":[\"queue:admin\"],\"resource\":\"*\"}]}",
              Map.of(
                  "Content-Type",
                  "application/json",
                  "Authorization",
                  KeysApiTest.basic("AKADMIN", "admin-secret")));
      assertEquals(201, created.status(), created.toString());
      String auth =
          KeysApiTest.basic(
              created.json().get("accessKeyId").asText(),
              created.json().get("secretAccessKey").asText());
      Http.Answer onTwo =
          b.send(
              "POST",
              "/v1/queues",
              "{\"name\":\"made-with-a-new-key\"}",
              Map.of("Content-Type", "application/json", "Authorization", auth));
      assertEquals(201, onTwo.status(), onTwo.toString());
    } finally {
      pg.close();
    }
  }

  @Test
  void consoleSession_madeOnOneServer_worksOnTheOther_endsAtSignOutAndRevocation()
      throws Exception {
    Path data = Files.createDirectories(dir.resolve("pgsessions"));
    int port = freePort();
    EmbeddedPostgres pg = start(data, port);
    Map<String, String> env =
        Map.of(
            "SWITCHBOARD_POSTGRES_URL", "jdbc:postgresql://localhost:" + port + "/postgres",
            "SWITCHBOARD_POSTGRES_USER", "postgres",
            "SWITCHBOARD_POSTGRES_PASSWORD", "postgres",
            "SWITCHBOARD_ACCESS_KEYS", "AKADMIN:admin-secret");
    ServerConfig config = ServerConfig.resolve(Map.of("port", "0"), env);
    String admin = KeysApiTest.basic("AKADMIN", "admin-secret");
    try (SwitchboardServer one = SwitchboardServer.start(config);
        SwitchboardServer two = SwitchboardServer.start(config);
        Http a = new Http(one.uri());
        Http b = new Http(two.uri())) {
      Http.Answer created =
          a.send(
              "POST",
              "/v1/keys",
              "{\"grants\":[{\"actions\":[\"queue:admin\"],\"resource\":\"*\"}]}",
              Map.of("Content-Type", "application/json", "Authorization", admin));
      String id = created.json().get("accessKeyId").asText();
      String stored = KeysApiTest.basic(id, created.json().get("secretAccessKey").asText());

      // a session signed in on one is a session on the other, CSRF token included
      String[] first = signIn(a, "AKADMIN:admin-secret", admin);
      Http.Answer onTwo = b.send("GET", "/v1/whoami", null, Map.of("Cookie", first[0]));
      assertEquals(200, onTwo.status(), onTwo.toString());
      assertEquals("AKADMIN", onTwo.json().get("accessKeyId").asText());
      assertEquals(first[1], onTwo.json().get("csrfToken").asText());
      Http.Answer made =
          b.send(
              "POST",
              "/v1/queues",
              "{\"name\":\"made-in-a-session\"}",
              Map.of(
                  "Content-Type",
                  "application/json",
                  "Cookie",
                  first[0],
                  "X-CSRF-Token",
                  first[1]));
      assertEquals(201, made.status(), made.toString());

      // a changed cookie is no session on either
      String forged = first[0].substring(0, first[0].length() - 2) + "xx";
      assertEquals(401, a.send("GET", "/v1/whoami", null, Map.of("Cookie", forged)).status());
      assertEquals(401, b.send("GET", "/v1/whoami", null, Map.of("Cookie", forged)).status());

      // signed out on the other: ended on both at once
      Http.Answer out =
          b.send(
              "DELETE",
              "/console/session",
              null,
              Map.of("Cookie", first[0], "X-CSRF-Token", first[1]));
      assertEquals(204, out.status(), out.toString());
      assertEquals(401, a.send("GET", "/v1/whoami", null, Map.of("Cookie", first[0])).status());
      assertEquals(401, b.send("GET", "/v1/whoami", null, Map.of("Cookie", first[0])).status());

      // a stored key revoked: its session is refused at once where it was revoked
      String[] second = signIn(b, id, stored);
      assertEquals(200, a.send("GET", "/v1/whoami", null, Map.of("Cookie", second[0])).status());
      Http.Answer revoked =
          a.send("DELETE", "/v1/keys/" + id, null, Map.of("Authorization", admin));
      assertEquals(204, revoked.status(), revoked.toString());
      assertEquals(401, a.send("GET", "/v1/whoami", null, Map.of("Cookie", second[0])).status());
    } finally {
      pg.close();
    }
  }

  /** Signs in on {@code http}: the {@code name=value} of the session cookie and the CSRF token. */
  private static String[] signIn(Http http, String who, String authorization) {
    Http.Answer signedIn =
        http.send(
            "POST",
            "/console/session",
            "{}",
            Map.of("Content-Type", "application/json", "Authorization", authorization));
    assertEquals(201, signedIn.status(), who + ": " + signedIn);
    String cookie = signedIn.raw().headers().firstValue("Set-Cookie").orElseThrow();
    return new String[] {
      cookie.substring(0, cookie.indexOf(';')), signedIn.json().get("csrfToken").asText()
    };
  }

  @Test
  void workspaces_definitionsAndTaskQueuesStoredInTheDatabase_keptAcrossARestart()
      throws Exception {
    Path data = Files.createDirectories(dir.resolve("pgworkspaces"));
    int port = freePort();
    EmbeddedPostgres pg = start(data, port);
    Map<String, String> env =
        Map.of(
            "SWITCHBOARD_POSTGRES_URL", "jdbc:postgresql://localhost:" + port + "/postgres",
            "SWITCHBOARD_POSTGRES_USER", "postgres",
            "SWITCHBOARD_POSTGRES_PASSWORD", "postgres");
    ServerConfig config = ServerConfig.resolve(Map.of("port", "0"), env);
    try {
      try (SwitchboardServer one = SwitchboardServer.start(config);
          SwitchboardServer two = SwitchboardServer.start(config);
          Http b = new Http(two.uri())) {
        Http.Answer put =
            b.send(
                "PUT",
                "/v1/workspaces/default/task-queues/billing",
                "{\"workerExpression\":\"skills HAS 'billing'\"}");
        assertEquals(200, put.status(), put.toString());
        Http.Answer created = b.post("/v1/workspaces", "{\"name\":\"centre\"}");
        assertEquals(201, created.status(), created.toString());
        Http.Answer queue = b.send("PUT", "/v1/workspaces/centre/task-queues/sales", "{}");
        assertEquals(200, queue.status(), queue.toString());
      }
      try (SwitchboardServer again = SwitchboardServer.start(config);
          Http a = new Http(again.uri())) {
        Http.Answer d = a.get("/v1/workspaces/default");
        assertEquals(200, d.status(), d.toString());
        assertEquals("billing", d.json().at("/taskQueues/0/name").asText(), d.toString());
        assertEquals(1, d.json().get("taskQueues").size());
        Http.Answer centre = a.get("/v1/workspaces/centre");
        assertEquals(200, centre.status(), centre.toString());
        assertEquals("sales", centre.json().at("/taskQueues/0/name").asText(), centre.toString());
      }
    } finally {
      pg.close();
    }
  }

  /**
   * A server that takes the lead recovers the router from the database; the rules of {@code
   * default}'s task queues must hold on it from the first call under {@code /v1/routing}, not only
   * once a workspace route has been called.
   */
  @Test
  void newLeader_appliesDefaultsTaskQueueRules_fromItsFirstRoutingCall() throws Exception {
    Path data = Files.createDirectories(dir.resolve("pgrules"));
    int port = freePort();
    EmbeddedPostgres pg = start(data, port);
    Map<String, String> env =
        Map.of(
            "SWITCHBOARD_POSTGRES_URL", "jdbc:postgresql://localhost:" + port + "/postgres",
            "SWITCHBOARD_POSTGRES_USER", "postgres",
            "SWITCHBOARD_POSTGRES_PASSWORD", "postgres");
    ServerConfig config = ServerConfig.resolve(Map.of("port", "0"), env);
    try {
      try (SwitchboardServer one = SwitchboardServer.start(config);
          Http h = new Http(one.uri())) {
        Http.Answer put =
            h.send(
                "PUT",
                "/v1/workspaces/default/task-queues/chat",
                "{\"maxReservationsPerAgent\":1}");
        assertEquals(200, put.status(), put.toString());
        Http.Answer ann =
            h.post(
                "/v1/routing/agents",
                "{\"id\":\"ann\",\"capacity\":{\"chat\":2},\"presence\":\"available\"}");
        assertEquals(201, ann.status(), ann.toString());
        for (String id : new String[] {"c1", "c2"}) {
          Http.Answer c =
              h.post(
                  "/v1/routing/contacts",
                  "{\"id\":\"" + id + "\",\"channel\":\"chat\",\"queue\":\"chat\"}");
          assertEquals(201, c.status(), c.toString());
        }
        assertEquals("queued", h.get("/v1/routing/contacts/c2").json().get("state").asText());
      }
      try (SwitchboardServer again = SwitchboardServer.start(config);
          Http h = new Http(again.uri())) {
        Http.Answer patch =
            h.send("PATCH", "/v1/routing/agents/ann", "{\"capacity\":{\"chat\":3}}");
        assertEquals(200, patch.status(), patch.toString());
        assertEquals(
            "queued",
            h.get("/v1/routing/contacts/c2").json().get("state").asText(),
            "ann holds 1 of the queue's contacts: its cap");
      }
    } finally {
      pg.close();
    }
  }

  @Test
  void workflowsOfDefault_andAContactWaitingInOne_surviveARestartOnTheDatabase() throws Exception {
    Path data = Files.createDirectories(dir.resolve("pgworkflows"));
    int port = freePort();
    EmbeddedPostgres pg = start(data, port);
    Map<String, String> env =
        Map.of(
            "SWITCHBOARD_POSTGRES_URL", "jdbc:postgresql://localhost:" + port + "/postgres",
            "SWITCHBOARD_POSTGRES_USER", "postgres",
            "SWITCHBOARD_POSTGRES_PASSWORD", "postgres");
    ServerConfig config = ServerConfig.resolve(Map.of("port", "0"), env);
    String w = "/v1/workspaces/default";
    try {
      String workflow;
      try (SwitchboardServer one = SwitchboardServer.start(config);
          Http a = new Http(one.uri())) {
        assertEquals(
            200,
            a.send(
                    "PUT",
                    w + "/task-queues/billing",
                    "{\"workerExpression\":\"skills HAS 'billing'\"}")
                .status());
        assertEquals(200, a.send("PUT", w + "/task-queues/general", "{}").status());
        Http.Answer put = a.send("PUT", w + "/workflows/support", WorkflowApiTest.SUPPORT);
        assertEquals(200, put.status(), put.toString());
        workflow = a.get(w + "/workflows/support").text();
        Http.Answer c =
            a.post(
                w + "/contacts",
                "{\"id\":\"b1\",\"channel\":\"voice\",\"workflow\":\"support\","
                    + "\"attributes\":{\"topic\":\"billing\"}}");
        assertEquals(201, c.status(), c.toString());
      }
      try (SwitchboardServer again = SwitchboardServer.start(config);
          Http a = new Http(again.uri())) {
        assertEquals(workflow, a.get(w + "/workflows/support").text());
        Http.Answer b1 = a.get(w + "/contacts/b1");
        assertEquals(200, b1.status(), b1.toString());
        assertEquals("billing", b1.json().get("queue").asText(), b1.toString());
        assertEquals("support", b1.json().get("workflow").asText(), b1.toString());
      }
    } finally {
      pg.close();
    }
  }

  @Test
  void unreachableDatabase_stopsTheStartWithAClearError() throws Exception {
    ServerConfig config =
        ServerConfig.resolve(
            Map.of("port", "0", "postgres-url", "jdbc:postgresql://127.0.0.1:" + freePort() + "/x"),
            Map.of());
    StartupException e =
        assertThrows(StartupException.class, () -> EngineFactory.forConfig(config).open(config));
    assertTrue(e.getMessage().contains("cannot use PostgreSQL at"), e.getMessage());
  }

  @Test
  void passwordInTheUrl_isHiddenFromMessages() {
    ServerConfig config =
        ServerConfig.resolve(
            Map.of("postgres-url", "jdbc:postgresql://db/x?user=u&password=secret&ssl=true"),
            Map.of());
    assertTrue(config.toString().contains("password=***&ssl=true"), config.toString());
    assertTrue(!config.toString().contains("secret"), config.toString());
  }

  @Test
  void postgresUrlThatIsNotJdbc_isRefusedNamingTheValue() {
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> ServerConfig.resolve(Map.of("postgres-url", "postgres://db/x"), Map.of()));
    assertTrue(e.getMessage().contains("'postgres://db/x'"), e.getMessage());
  }

  private static Http.Answer awaitStatus(Http http, String path, String body, int status)
      throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    Http.Answer last = http.post(path, body);
    while (last.status() != status && System.nanoTime() < deadline) {
      Thread.sleep(50); // bounded poll: the pool reconnects on its own
      last = http.post(path, body);
    }
    return last;
  }

  private static EmbeddedPostgres start(Path data, int port) throws Exception {
    return EmbeddedPostgres.builder()
        .setDataDirectory(data)
        .setCleanDataDirectory(false)
        .setPort(port)
        .start();
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
