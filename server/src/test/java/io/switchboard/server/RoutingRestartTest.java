package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.StartupException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durable server keeps its router in the data directory: agents, contacts and a pending offer
 * survive a stop and start, and the routing settings of the configuration apply (here a 1 h offer
 * timeout and a 1 h chat wrap-up, so nothing times out during the test).
 */
class RoutingRestartTest {

  @TempDir Path dir;

  private Map<String, String> flags() {
    return Map.of(
        "port", "0",
        "data-dir", dir.toString(),
        "routing-offer-timeout", "1h",
        "routing-wrap-up", "chat=1h");
  }

  private static JsonNode ok(int status, Http.Answer a) {
    assertEquals(status, a.status(), a.toString());
    return a.json();
  }

  @Test
  void durableServer_keepsAgentsContactsAndOffersAcrossARestart() {
    String reservation;
    JsonNode agentsBefore;
    try (SwitchboardServer server =
            SwitchboardServer.start(ServerConfig.resolve(flags(), Map.of()));
        Http http = new Http(server.uri())) {
      ok(
          201,
          http.post(
              "/v1/routing/agents",
              "{\"id\":\"ana\",\"attributes\":{\"skills\":[\"a\"],\"level\":3},"
                  + "\"capacity\":{\"voice\":1,\"chat\":1},\"presence\":\"available\"}"));
      ok(201, http.post("/v1/routing/agents", "{\"id\":\"bob\",\"capacity\":{\"voice\":1}}"));
      JsonNode c1 =
          ok(201, http.post("/v1/routing/contacts", "{\"id\":\"c1\",\"channel\":\"voice\"}"));
      ok(
          200,
          http.post(
              "/v1/routing/reservations/" + c1.get("reservationId").asText() + "/accept", ""));
      JsonNode c2 =
          ok(201, http.post("/v1/routing/contacts", "{\"id\":\"c2\",\"channel\":\"chat\"}"));
      reservation = c2.get("reservationId").asText();
      ok(
          201,
          http.post(
              "/v1/routing/contacts",
              "{\"id\":\"c3\",\"channel\":\"voice\",\"requirements\":\"skills HAS 'x'\"}"));
      agentsBefore = ok(200, http.get("/v1/routing/agents"));
    }

    try (SwitchboardServer server =
            SwitchboardServer.start(ServerConfig.resolve(flags(), Map.of()));
        Http http = new Http(server.uri())) {
      assertEquals(agentsBefore, ok(200, http.get("/v1/routing/agents")));
      assertEquals("assigned", ok(200, http.get("/v1/routing/contacts/c1")).get("state").asText());
      assertEquals("offered", ok(200, http.get("/v1/routing/contacts/c2")).get("state").asText());
      assertEquals("queued", ok(200, http.get("/v1/routing/contacts/c3")).get("state").asText());
      JsonNode offer = ok(200, http.get("/v1/routing/reservations/" + reservation));
      assertEquals("pending", offer.get("state").asText());
      assertEquals(
          Duration.ofHours(1),
          Duration.between(
              Instant.parse(offer.get("offeredAt").asText()),
              Instant.parse(offer.get("expiresAt").asText())));
      ok(200, http.post("/v1/routing/reservations/" + reservation + "/accept", ""));
      JsonNode done = ok(200, http.post("/v1/routing/contacts/c2/complete", ""));
      assertEquals("wrapUp", done.get("state").asText());
    }
  }

  @Test
  void badRoutingSettings_stopTheStartWithTheKeyAndValue() {
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> ServerConfig.resolve(Map.of("routing-offer-timeout", "soon"), Map.of()));
    assertTrue(e.getMessage().contains("routing-offer-timeout"), e.getMessage());
    assertTrue(e.getMessage().contains("'soon'"), e.getMessage());
    StartupException range =
        assertThrows(
            StartupException.class,
            () -> ServerConfig.resolve(Map.of("routing-miss-limit", "-1"), Map.of()));
    assertTrue(
        range.getMessage().startsWith("routing-miss-limit must be 0..1000, got -1 (from --"),
        range.getMessage());
    StartupException strategy =
        assertThrows(
            StartupException.class,
            () -> ServerConfig.resolve(Map.of("routing-strategy", "random"), Map.of()));
    assertTrue(strategy.getMessage().contains("longest-idle"), strategy.getMessage());
    assertEquals(
        Map.of("chat", Duration.ofSeconds(30), "voice", Duration.ofMillis(500)),
        ServerConfig.resolve(Map.of("routing-wrap-up", "chat=30s, voice=500ms"), Map.of())
            .routing()
            .wrapUp());
  }
}
