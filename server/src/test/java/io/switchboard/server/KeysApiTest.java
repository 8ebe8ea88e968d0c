package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.KeyWire;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.SwitchboardException;
import io.switchboard.queue.QueueEngine;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code /v1/keys}: create (the secret once), list (never the secret), revoke. */
class KeysApiTest {

  private static SwitchboardServer server;
  private static QueueEngine engine;
  private static Http http;

  @BeforeAll
  static void start() {
    engine = QueueEngine.inMemory();
    server = SwitchboardServer.start(ServerConfig.forTests(), config -> engine);
    http = new Http(server.uri());
  }

  @AfterAll
  static void stop() {
    http.close();
    server.stop();
  }

  @Test
  void create_answersTheSecretOnce_listNeverShowsIt() {
    Http.Answer created =
        http.post(
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

    Http.Answer list = http.get("/v1/keys");
    assertEquals(200, list.status());
    assertTrue(list.text().contains(id));
    assertFalse(list.text().contains(secret), list.text());
    assertFalse(list.text().contains("secret"), list.text());

    // kept as a system record, the shape an authentication filter reads
    assertTrue(
        new String(engine.systemRecords().get("key/" + id).orElseThrow())
            .contains("\"secret\":\"" + secret + "\""));
  }

  @Test
  void revoke_removesTheKey_thenNotFound() {
    String id =
        http.post("/v1/keys", "{\"grants\":[{\"actions\":[\"admin\"],\"resource\":\"*\"}]}")
            .json()
            .get("accessKeyId")
            .asText();
    assertEquals(204, http.send("DELETE", "/v1/keys/" + id, null).status());
    assertFalse(http.get("/v1/keys").text().contains(id));
    Http.Answer again = http.send("DELETE", "/v1/keys/" + id, null);
    assertEquals(404, again.status());
    assertEquals("KEY_NOT_FOUND", again.code());
  }

  @Test
  void create_unknownActionOrNoGrants_refusedNamingTheAllowedOnes() {
    Http.Answer bad =
        http.post(
            "/v1/keys", "{\"grants\":[{\"actions\":[\"queue:everything\"],\"resource\":\"*\"}]}");
    assertEquals(400, bad.status());
    assertEquals("INVALID_ARGUMENT", bad.code());
    assertTrue(bad.text().contains("queue:everything") && bad.text().contains("queue:send"));
    assertEquals(400, http.post("/v1/keys", "{\"grants\":[]}").status());
    assertEquals(400, http.post("/v1/keys", "{}").status());
    assertEquals(400, http.post("/v1/keys", "{\"grants\":[],\"secret\":\"x\"}").status());
  }

  @Test
  void javaClient_createsListsAndRevokes() {
    try (SwitchboardClient c = SwitchboardClient.create(server.uri())) {
      KeyWire.AccessKey k =
          c.createKey("ci", List.of(new KeyWire.Grant(List.of("metrics:read"), "*")));
      assertTrue(k.secretAccessKey() != null);
      assertFalse(k.toString().contains(k.secretAccessKey()));
      assertTrue(c.listKeys().stream().anyMatch(x -> x.accessKeyId().equals(k.accessKeyId())));
      assertTrue(c.listKeys().stream().allMatch(x -> x.secretAccessKey() == null));
      c.revokeKey(k.accessKeyId());
      SwitchboardException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              SwitchboardException.class, () -> c.revokeKey(k.accessKeyId()));
      assertEquals(404, e.status());
    }
  }
}
