package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.StartupException;
import io.switchboard.testing.FreePorts;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server configured with {@code postgres-url}: two servers on one database share queues; while
 * the database is away requests answer 503 UNAVAILABLE with a clear message, and work again once it
 * is back; an unreachable database stops the start with a clear error.
 */
class PostgresServerTest {

  /** The access key of the admin, for the tests that sign requests. */
  private static final Map<String, String> ADMIN_KEY =
      Map.of("SWITCHBOARD_ACCESS_KEYS", "AKADMIN:admin-secret");

  private static final String ADMIN_AUTH = KeysApiTest.basic("AKADMIN", "admin-secret");

  @TempDir Path dir;

  @Test
  void twoServersOnOneDatabase_shareQueues_answer503WhileTheDatabaseIsAway() throws Exception {
    try (Database db = Database.start(dir, Map.of());
        TwoServers servers = TwoServers.start(db.config())) {
      assertTrue(db.config().postgres().isPresent());
      assertTrue(db.config().toString().contains("password=***"), db.config().toString());
      Http a = servers.a();
      Http b = servers.b();
      assertEquals(201, a.post("/v1/queues", "{\"name\":\"shared\"}").status());
      assertEquals(201, a.post("/v1/queues/shared/messages", "{\"body\":\"hello\"}").status());
      Http.Answer got = b.post("/v1/queues/shared/receive", "{\"maxMessages\":1}");
      assertEquals(200, got.status(), got.toString());
      assertEquals("hello", got.json().get("messages").get(0).get("body").asText());

      db.stop();
      Http.Answer away = a.post("/v1/queues/shared/messages", "{\"body\":\"lost?\"}");
      assertEquals(503, away.status(), away.toString());
      assertEquals("UNAVAILABLE", away.code());
      assertTrue(away.text().contains("PostgreSQL"), away.toString());

      db.restart();
      Http.Answer back = awaitStatus(b, "/v1/queues/shared/messages", "{\"body\":\"again\"}", 201);
      assertEquals(201, back.status(), back.toString());
    }
  }

  @Test
  void keyCreatedOnOneServer_authenticatesOnTheOtherAtOnce() throws Exception {
    try (TwoServers servers = TwoServers.start(onSharedDatabase("key_on_two", ADMIN_KEY))) {
      Http a = servers.a();
      Http b = servers.b();
      String auth = newKey(a)[1];
      Http.Answer onTwo =
          b.send(
              "POST",
              "/v1/queues",
              "{\"name\":\"made-with-a-new-key\"}",
              Map.of("Content-Type", "application/json", "Authorization", auth));
      assertEquals(201, onTwo.status(), onTwo.toString());
    }
  }

  @Test
  void consoleSession_madeOnOneServer_worksOnTheOther_endsAtSignOutAndRevocation()
      throws Exception {
    try (TwoServers servers = TwoServers.start(onSharedDatabase("console_session", ADMIN_KEY))) {
      Http a = servers.a();
      Http b = servers.b();
      String[] key = newKey(a);
      String id = key[0];
      String stored = key[1];

      // a session signed in on one is a session on the other, CSRF token included
      String[] first = signIn(a, "AKADMIN:admin-secret", ADMIN_AUTH);
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
          a.send("DELETE", "/v1/keys/" + id, null, Map.of("Authorization", ADMIN_AUTH));
      assertEquals(204, revoked.status(), revoked.toString());
      assertEquals(401, a.send("GET", "/v1/whoami", null, Map.of("Cookie", second[0])).status());
    }
  }

  /**
   * A key allowed {@code queue:admin} on everything, made by the admin through {@code http}: its id
   * and its Basic authorization.
   */
  private static String[] newKey(Http http) {
    Http.Answer created =
        http.send(
            "POST",
            "/v1/keys",
            "{\"grants\":[{\"actions\":[\"queue:admin\"],\"resource\":\"*\"}]}",
            Map.of("Content-Type", "application/json", "Authorization", ADMIN_AUTH));
    assertEquals(201, created.status(), created.toString());
    String id = created.json().get("accessKeyId").asText();
    return new String[] {id, KeysApiTest.basic(id, created.json().get("secretAccessKey").asText())};
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
    ServerConfig config = onSharedDatabase("workspaces_restart", Map.of());
    try (TwoServers servers = TwoServers.start(config)) {
      Http b = servers.b();
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
  }

  /**
   * A server that takes the lead recovers the router from the database; the rules of {@code
   * default}'s task queues must hold on it from the first call under {@code /v1/routing}, not only
   * once a workspace route has been called.
   */
  @Test
  void newLeader_appliesDefaultsTaskQueueRules_fromItsFirstRoutingCall() throws Exception {
    ServerConfig config = onSharedDatabase("new_leader_rules", Map.of());
    try (SwitchboardServer one = SwitchboardServer.start(config);
        Http h = new Http(one.uri())) {
      Http.Answer put =
          h.send(
              "PUT", "/v1/workspaces/default/task-queues/chat", "{\"maxReservationsPerAgent\":1}");
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
      Http.Answer patch = h.send("PATCH", "/v1/routing/agents/ann", "{\"capacity\":{\"chat\":3}}");
      assertEquals(200, patch.status(), patch.toString());
      assertEquals(
          "queued",
          h.get("/v1/routing/contacts/c2").json().get("state").asText(),
          "ann holds 1 of the queue's contacts: its cap");
    }
  }

  @Test
  void workflowsOfDefault_andAContactWaitingInOne_surviveARestartOnTheDatabase() throws Exception {
    ServerConfig config = onSharedDatabase("workflows_restart", Map.of());
    String w = "/v1/workspaces/default";
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
  }

  @Test
  void unreachableDatabase_stopsTheStartWithAClearError() throws Exception {
    ServerConfig config =
        ServerConfig.resolve(
            Map.of(
                "port",
                "0",
                "postgres-url",
                "jdbc:postgresql://127.0.0.1:" + FreePorts.free() + "/x"),
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

  /**
   * The configuration of a server on a new database {@code name} of the shared PostgreSQL ({@link
   * SharedPostgres}), given by the environment as an operator gives it, with {@code env} added: for
   * the tests that leave PostgreSQL running (a test that stops it has a {@link Database} of its
   * own).
   */
  private static ServerConfig onSharedDatabase(String name, Map<String, String> env)
      throws Exception {
    Map<String, String> all = new HashMap<>(env);
    all.put("SWITCHBOARD_POSTGRES_URL", SharedPostgres.database(name).replaceAll("\\?.*", ""));
    all.put("SWITCHBOARD_POSTGRES_USER", "postgres");
    all.put("SWITCHBOARD_POSTGRES_PASSWORD", "postgres");
    return ServerConfig.resolve(Map.of("port", "0"), all);
  }

  /**
   * An embedded PostgreSQL on a free port, its data in a folder of {@code dir} so that it can be
   * stopped and started again with what it held, and the configuration of a server that uses it
   * (with {@code env} added to the environment).
   */
  private static final class Database implements AutoCloseable {
    private final Path data;
    private final int port;
    private final ServerConfig config;
    private EmbeddedPostgres pg;

    private Database(Path data, int port, Map<String, String> env) throws Exception {
      this.data = data;
      this.port = port;
      Map<String, String> all = new HashMap<>(env);
      all.put("SWITCHBOARD_POSTGRES_URL", "jdbc:postgresql://localhost:" + port + "/postgres");
      all.put("SWITCHBOARD_POSTGRES_USER", "postgres");
      all.put("SWITCHBOARD_POSTGRES_PASSWORD", "postgres");
      this.config = ServerConfig.resolve(Map.of("port", "0"), all);
      this.pg = embedded(data, port);
    }

    static Database start(Path dir, Map<String, String> env) throws Exception {
      return new Database(Files.createDirectories(dir.resolve("pgdata")), FreePorts.free(), env);
    }

    ServerConfig config() {
      return config;
    }

    /** The database goes away (its data is kept). */
    void stop() throws Exception {
      pg.close();
    }

    /** The database is back, on the same port with the same data. */
    void restart() throws Exception {
      pg = embedded(data, port);
    }

    @Override
    public void close() throws Exception {
      pg.close();
    }

    private static EmbeddedPostgres embedded(Path data, int port) throws Exception {
      return EmbeddedPostgres.builder()
          .setDataDirectory(data)
          .setCleanDataDirectory(false)
          .setPort(port)
          .start();
    }
  }

  /** Two servers on one configuration and a client of each: {@code a} of one, {@code b} of two. */
  private record TwoServers(SwitchboardServer one, SwitchboardServer two, Http a, Http b)
      implements AutoCloseable {

    static TwoServers start(ServerConfig config) {
      SwitchboardServer one = SwitchboardServer.start(config);
      try {
        SwitchboardServer two = SwitchboardServer.start(config);
        return new TwoServers(one, two, new Http(one.uri()), new Http(two.uri()));
      } catch (RuntimeException e) {
        one.close();
        throw e;
      }
    }

    @Override
    public void close() {
      a.close();
      b.close();
      try {
        two.close();
      } finally {
        one.close();
      }
    }
  }
}
