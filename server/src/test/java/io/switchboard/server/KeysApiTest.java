package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.Credentials;
import io.switchboard.client.KeyWire;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.SwitchboardException;
import io.switchboard.queue.QueueEngine;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.config.StartupException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /v1/keys}: create (the secret once), list (never the secret), revoke; a key created here
 * authenticates the next request, a revoked one is refused at once, a stored key survives a
 * restart, and only {@code admin} may manage keys.
 */
class KeysApiTest {

  private static final String ADMIN = "AKADMIN";
  private static final String ADMIN_SECRET = "admin-secret-for-keys";

  private static SwitchboardServer server;
  private static QueueEngine engine;
  private static Http http;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    engine = QueueEngine.inMemory();
    server =
        SwitchboardServer.start(
            ServerConfig.forTests().with(Settings.ACCESS_KEYS, adminKeys()), config -> engine);
    http = new Http(server.uri());
  }

  @AfterAll
  static void stop() {
    http.close();
    server.stop();
  }

  private static io.switchboard.server.auth.AccessKeys adminKeys() {
    return io.switchboard.server.auth.AccessKeys.parse(ADMIN + ":" + ADMIN_SECRET);
  }

  static String basic(String id, String secret) {
    return "Basic "
        + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
  }

  private static Http.Answer as(String id, String secret, String method, String path, String body) {
    return http.send(
        method,
        path,
        body,
        Map.of("Content-Type", "application/json", "Authorization", basic(id, secret)));
  }

  private static Http.Answer admin(String method, String path, String body) {
    return as(ADMIN, ADMIN_SECRET, method, path, body);
  }

  @Test
  void create_answersTheSecretOnce_listNeverShowsIt() {
    Http.Answer created =
        admin(
            "POST",
            "/v1/keys",
            "{\"name\":\"orders worker\",\"grants\":[{\"actions\":[\"queue:send\",\"queue:receive\"],"
                + "\"resource\":\"orders-*\"}]}");
    assertEquals(201, created.status(), created.text());
    JsonNode key = created.json();
    String id = key.get("accessKeyId").asText();
    String secret = key.get("secretAccessKey").asText();
    assertTrue(id.matches("SB[A-Z2-7]{18}"), id);
    assertEquals(40, secret.length());
    assertEquals("orders-*", key.get("grants").get(0).get("resource").asText());

    Http.Answer list = admin("GET", "/v1/keys", null);
    assertEquals(200, list.status());
    assertTrue(list.text().contains(id));
    assertTrue(list.text().contains(ADMIN), "the configured key is listed: " + list.text());
    assertFalse(list.text().contains(secret), list.text());
    assertFalse(list.text().contains(ADMIN_SECRET), list.text());
    assertFalse(list.text().contains("secret"), list.text());

    // kept as a system record, the shape the key ring reads
    assertTrue(
        new String(engine.systemRecords().get("key/" + id).orElseThrow())
            .contains("\"secret\":\"" + secret + "\""));
  }

  @Test
  void createdKey_authenticatesAtOnce_withItsGrantsOnly_revokedKeyIsRefusedAtOnce() {
    JsonNode key =
        admin(
                "POST",
                "/v1/keys",
                "{\"grants\":[{\"actions\":[\"queue:admin\",\"queue:send\"],\"resource\":\"keyed-*\"}]}")
            .json();
    String id = key.get("accessKeyId").asText();
    String secret = key.get("secretAccessKey").asText();

    assertEquals(201, as(id, secret, "POST", "/v1/queues", "{\"name\":\"keyed-a\"}").status());
    assertEquals(
        201, as(id, secret, "POST", "/v1/queues/keyed-a/messages", "{\"body\":\"x\"}").status());
    Http.Answer elsewhere = as(id, secret, "POST", "/v1/queues", "{\"name\":\"other\"}");
    assertEquals(403, elsewhere.status(), elsewhere.text());
    Http.Answer noKeys = as(id, secret, "GET", "/v1/keys", null);
    assertEquals(403, noKeys.status(), "only admin manages keys: " + noKeys.text());
    assertEquals(401, as(id, "wrong", "POST", "/v1/queues", "{\"name\":\"keyed-b\"}").status());

    assertEquals(204, admin("DELETE", "/v1/keys/" + id, null).status());
    Http.Answer revoked = as(id, secret, "POST", "/v1/queues/keyed-a/messages", "{\"body\":\"y\"}");
    assertEquals(401, revoked.status(), revoked.text());
  }

  @Test
  void revoke_removesTheKey_thenNotFound_configuredKeyIsNotRevokedHere() {
    String id =
        admin("POST", "/v1/keys", "{\"grants\":[{\"actions\":[\"admin\"],\"resource\":\"*\"}]}")
            .json()
            .get("accessKeyId")
            .asText();
    assertEquals(204, admin("DELETE", "/v1/keys/" + id, null).status());
    assertFalse(admin("GET", "/v1/keys", null).text().contains(id));
    Http.Answer again = admin("DELETE", "/v1/keys/" + id, null);
    assertEquals(404, again.status());
    assertEquals("KEY_NOT_FOUND", again.code());

    Http.Answer configured = admin("DELETE", "/v1/keys/" + ADMIN, null);
    assertEquals(409, configured.status(), configured.text());
    assertEquals("KEY_CONFIGURED", configured.code());
    assertEquals(200, admin("GET", "/v1/keys", null).status(), "the admin key still works");
  }

  @Test
  void create_unknownActionOrNoGrantsOrAgentGrantWithoutAgent_refusedNamingTheProblem() {
    Http.Answer bad =
        admin(
            "POST",
            "/v1/keys",
            "{\"grants\":[{\"actions\":[\"queue:everything\"],\"resource\":\"*\"}]}");
    assertEquals(400, bad.status());
    assertEquals("INVALID_ARGUMENT", bad.code());
    assertTrue(bad.text().contains("queue:everything") && bad.text().contains("queue:send"));
    assertEquals(400, admin("POST", "/v1/keys", "{\"grants\":[]}").status());
    assertEquals(400, admin("POST", "/v1/keys", "{}").status());
    assertEquals(400, admin("POST", "/v1/keys", "{\"grants\":[],\"secret\":\"x\"}").status());
    Http.Answer agentless =
        admin(
            "POST",
            "/v1/keys",
            "{\"grants\":[{\"actions\":[\"routing:agent\"],\"resource\":\"*\"}]}");
    assertEquals(400, agentless.status(), agentless.text());
    assertTrue(agentless.text().contains("agent"), agentless.text());
    Http.Answer agent =
        admin(
            "POST",
            "/v1/keys",
            "{\"grants\":[{\"actions\":[\"routing:agent\"],\"resource\":\"*\"}],"
                + "\"agent\":\"alice\"}");
    assertEquals(201, agent.status(), agent.text());
    assertEquals("alice", agent.json().get("agent").asText());
  }

  @Test
  void create_aKeyOfAnotherAccount_showsItsAccount_andABadAccountIsRefused() {
    Http.Answer bad =
        admin(
            "POST",
            "/v1/keys",
            "{\"grants\":[{\"actions\":[\"queue:send\"],\"resource\":\"*\"}],"
                + "\"account\":\"1234\"}");
    assertEquals(400, bad.status(), bad.text());
    assertEquals("INVALID_ARGUMENT", bad.code());
    assertTrue(bad.text().contains("12-digit") && bad.text().contains("'1234'"), bad.text());

    Http.Answer partner =
        admin(
            "POST",
            "/v1/keys",
            "{\"grants\":[{\"actions\":[\"queue:send\"],\"resource\":\"*\"}],"
                + "\"account\":\"111122223333\"}");
    assertEquals(201, partner.status(), partner.text());
    String id = partner.json().get("accessKeyId").asText();
    JsonNode listed = null;
    for (JsonNode k : admin("GET", "/v1/keys", null).json().get("keys")) {
      if (k.get("accessKeyId").asText().equals(id)) {
        listed = k;
      }
    }
    assertEquals("111122223333", listed == null ? null : listed.path("account").asText());
  }

  @Test
  void javaClient_createsListsAndRevokes() {
    try (SwitchboardClient c =
        SwitchboardClient.builder()
            .baseUri(server.uri())
            .credentials(Credentials.of(ADMIN, ADMIN_SECRET))
            .build()) {
      KeyWire.AccessKey k =
          c.createKey("ci", List.of(new KeyWire.Grant(List.of("metrics:read"), "*")));
      assertTrue(k.secretAccessKey() != null);
      assertFalse(k.toString().contains(k.secretAccessKey()));
      assertTrue(c.listKeys().stream().anyMatch(x -> x.accessKeyId().equals(k.accessKeyId())));
      assertTrue(c.listKeys().stream().allMatch(x -> x.secretAccessKey() == null));
      c.revokeKey(k.accessKeyId());
      SwitchboardException e =
          assertThrows(SwitchboardException.class, () -> c.revokeKey(k.accessKeyId()));
      assertEquals(404, e.status());
    }
  }

  @Test
  void keylessServer_firstKeyCreated_turnsCheckingOn_andTheKeySurvivesARestart() {
    ServerConfig config =
        ServerConfig.resolve(Map.of("port", "0", "data-dir", dir.toString()), Map.of());
    String id;
    String secret;
    try (SwitchboardServer keyless = SwitchboardServer.start(config);
        Http h = new Http(keyless.uri())) {
      assertEquals(200, h.get("/v1/queues").status(), "keyless: nothing is checked");
      JsonNode key =
          h.post("/v1/keys", "{\"grants\":[{\"actions\":[\"admin\"],\"resource\":\"*\"}]}").json();
      id = key.get("accessKeyId").asText();
      secret = key.get("secretAccessKey").asText();
      assertEquals(401, h.get("/v1/queues").status(), "a key exists: credentials are needed");
    }
    try (SwitchboardServer again = SwitchboardServer.start(config);
        Http h = new Http(again.uri())) {
      assertEquals(401, h.get("/v1/queues").status(), "still keyed after a restart");
      Http.Answer ok =
          h.send("GET", "/v1/queues", null, Map.of("Authorization", basic(id, secret)));
      assertEquals(200, ok.status(), ok.text());
    }
  }

  /**
   * Regression (docs/security.md): the refusal to start bound off loopback without keys counted the
   * configured keys only, so a server whose keys were all created at run time (kept in its store)
   * needed {@code --allow-anonymous} to bind {@code 0.0.0.0}. Stored keys count: such a server
   * starts and checks every request; one whose store holds no key is still refused, and keeps
   * nothing open.
   */
  @Test
  void storedKeysOnly_wildcardBind_starts_andChecks_anEmptyStoreIsRefused() {
    ServerConfig loopback =
        ServerConfig.resolve(Map.of("port", "0", "data-dir", dir.toString()), Map.of());
    ServerConfig exposed = loopback.with(Settings.BIND, "0.0.0.0");
    StartupException refused =
        assertThrows(StartupException.class, () -> SwitchboardServer.start(exposed).stop());
    assertTrue(
        refused.getMessage().contains("no access keys are configured or stored"),
        refused.getMessage());
    assertTrue(refused.getMessage().contains("--allow-anonymous"), refused.getMessage());

    String id;
    String secret;
    try (SwitchboardServer keyless = SwitchboardServer.start(loopback);
        Http h = new Http(keyless.uri())) {
      JsonNode key =
          h.post("/v1/keys", "{\"grants\":[{\"actions\":[\"admin\"],\"resource\":\"*\"}]}").json();
      id = key.get("accessKeyId").asText();
      secret = key.get("secretAccessKey").asText();
    }
    try (SwitchboardServer again = SwitchboardServer.start(exposed);
        Http h = new Http(again.uri())) {
      assertEquals(401, h.get("/v1/queues").status(), "stored keys: every request is checked");
      Http.Answer ok =
          h.send("GET", "/v1/queues", null, Map.of("Authorization", basic(id, secret)));
      assertEquals(200, ok.status(), ok.text());
    }
  }
}
