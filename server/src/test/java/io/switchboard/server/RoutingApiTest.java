package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.server.config.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The routing API over real HTTP: the seeds' scenarios end to end, the life of a contact, and bad
 * input with its documented code and status. Each test gets its own server (its own router).
 */
class RoutingApiTest {

  private SwitchboardServer server;
  private Http http;

  @BeforeEach
  void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    http = new Http(server.uri());
  }

  @AfterEach
  void stop() {
    http.close();
    server.stop();
  }

  private JsonNode ok(int status, Http.Answer a) {
    assertEquals(status, a.status(), a.toString());
    return a.json();
  }

  private void agent(String id, String attributes) {
    ok(
        201,
        http.post(
            "/v1/routing/agents",
            "{\"id\":\""
                + id
                + "\",\"attributes\":"
                + attributes
                + ",\"capacity\":{\"voice\":1},\"presence\":\"available\"}"));
  }

  private JsonNode call(String id, String requirements) {
    return ok(
        201,
        http.post(
            "/v1/routing/contacts",
            "{\"id\":\""
                + id
                + "\",\"channel\":\"voice\",\"requirements\":\""
                + requirements
                + "\"}"));
  }

  private void error(int status, String code, Http.Answer a) {
    assertEquals(status, a.status(), a.toString());
    assertEquals(code, a.code(), a.toString());
    assertFalse(a.json().path("message").asText().isEmpty(), a.toString());
  }

  // ---- seeds -------------------------------------------------------------------------------

  @Test
  void seed000_spanishMaleCaller_getsEarliestSuchAgent_frenchCallerGetsTheNext() {
    agent("christine", "{\"gender\":\"F\",\"languages\":[\"es\"]}");
    agent("billy", "{\"gender\":\"M\",\"languages\":[\"en\",\"fr\",\"es\"]}");
    agent("chad", "{\"gender\":\"M\",\"languages\":[\"es\",\"fr\"]}");

    JsonNode spanish = call("caller-1", "languages HAS 'es' AND gender = 'M'");
    JsonNode french = call("caller-2", "languages HAS 'fr' AND gender = 'M'");

    assertEquals("offered", spanish.get("state").asText());
    assertEquals("billy", spanish.get("agentId").asText());
    assertEquals("chad", french.get("agentId").asText());
    JsonNode billy = ok(200, http.get("/v1/routing/agents/billy"));
    assertEquals(1, billy.at("/load/voice").asInt());
    JsonNode spanishSpeakers =
        ok(200, http.get("/v1/routing/agents?selector=languages%20HAS%20'es'"));
    assertEquals(3, spanishSpeakers.get("agents").size());

    String reservation = spanish.get("reservationId").asText();
    JsonNode pending = ok(200, http.get("/v1/routing/agents/billy/reservations"));
    assertEquals(reservation, pending.at("/reservations/0/id").asText());
    JsonNode assigned =
        ok(200, http.post("/v1/routing/reservations/" + reservation + "/accept", ""));
    assertEquals("assigned", assigned.get("state").asText());
    assertEquals(
        "accepted",
        ok(200, http.get("/v1/routing/reservations/" + reservation)).get("state").asText());
  }

  @Test
  void seed004_longestAvailableWithAllSkills_andUnservableContactWaitsInPlace() {
    agent("a1", "{\"skills\":[\"english\",\"billing\"]}");
    agent("a2", "{\"skills\":[\"english\"]}");
    agent("a3", "{\"skills\":[\"billing\",\"english\",\"vip\"]}");

    JsonNode c1 = call("c1", "skills HAS ALL ('english', 'billing')");
    assertEquals("a1", c1.get("agentId").asText());
    assertEquals("a3", call("c2", "skills HAS ALL ('english', 'billing')").get("agentId").asText());
    JsonNode waiting = call("c3", "skills HAS ALL ('english', 'billing')");
    assertEquals("queued", waiting.get("state").asText());
    JsonNode english = call("c4", "skills HAS 'english'");
    assertEquals("a2", english.get("agentId").asText(), "no head-of-line block");
    call("c5", "skills HAS ALL ('english', 'billing')");
    JsonNode line = ok(200, http.get("/v1/routing/contacts"));
    assertEquals("c3", line.at("/contacts/0/id").asText());
    assertEquals("c5", line.at("/contacts/1/id").asText());

    ok(
        200,
        http.post("/v1/routing/reservations/" + c1.get("reservationId").asText() + "/accept", ""));
    JsonNode done = ok(200, http.post("/v1/routing/contacts/c1/complete", "{\"wrapUpSeconds\":0}"));
    assertEquals("completed", done.get("state").asText());
    JsonNode served = ok(200, http.get("/v1/routing/contacts/c3"));
    assertEquals("offered", served.get("state").asText());
    assertEquals("a1", served.get("agentId").asText());
    assertEquals("queued", ok(200, http.get("/v1/routing/contacts/c5")).get("state").asText());

    JsonNode stats = ok(200, http.get("/v1/routing/stats"));
    assertEquals(1, stats.at("/overall/waiting").asInt(), stats.toString());
    assertEquals(1, stats.at("/overall/answered").asInt(), stats.toString());
    assertEquals(3, stats.at("/agentsByPresence/available").asInt());
    assertTrue(stats.at("/occupancyByChannel/voice").asDouble() > 0.99, stats.toString());

    String metrics = http.get("/metrics").text();
    assertTrue(
        metrics.contains(
            "switchboard_routing_agents{presence=\"available\",workspace=\"default\"} 3.0"),
        metrics);
    assertTrue(
        metrics.contains(
            "switchboard_routing_contacts_waiting{channel=\"all\",requirements=\"all\",workspace=\"default\"} 1.0"),
        metrics);
    assertTrue(
        metrics.contains(
            "switchboard_routing_occupancy{channel=\"voice\",workspace=\"default\"} 1.0"),
        metrics);
    assertTrue(metrics.contains("switchboard_routing_service_level{"), metrics);
  }

  @Test
  void agentLife_updatePresenceRejectAbandonDelete() {
    agent("a", "{\"skills\":[\"english\"]}");
    JsonNode updated =
        ok(
            200,
            http.send(
                "PATCH",
                "/v1/routing/agents/a",
                "{\"attributes\":{\"skills\":[\"english\",\"vip\"],\"level\":3},"
                    + "\"capacity\":{\"voice\":1,\"chat\":2}}"));
    assertEquals(3, updated.at("/attributes/level").asInt());
    assertEquals(2, updated.at("/capacity/chat").asInt());
    JsonNode away =
        ok(
            200,
            http.send(
                "PUT",
                "/v1/routing/agents/a/presence",
                "{\"presence\":\"away\",\"reason\":\"lunch\"}"));
    assertEquals("away", away.get("presence").asText());
    assertEquals("lunch", away.get("reason").asText());

    JsonNode c = call("c", "skills HAS 'vip'");
    assertEquals("queued", c.get("state").asText());
    ok(200, http.send("PUT", "/v1/routing/agents/a/presence", "{\"presence\":\"available\"}"));
    JsonNode offered = ok(200, http.get("/v1/routing/contacts/c"));
    String reservation = offered.get("reservationId").asText();
    JsonNode back = ok(200, http.post("/v1/routing/reservations/" + reservation + "/reject", ""));
    // The only matching agent rejected: the contact waits, resting from it for the rest period.
    assertEquals("queued", back.get("state").asText());
    JsonNode abandoned = ok(200, http.post("/v1/routing/contacts/c/abandon", ""));
    assertEquals("abandoned", abandoned.get("state").asText());
    assertEquals(204, http.send("DELETE", "/v1/routing/agents/a", null).status());
    error(404, "AGENT_NOT_FOUND", http.get("/v1/routing/agents/a"));
  }

  // ---- bad input ---------------------------------------------------------------------------

  @Test
  void unknownIds_are404WithTheirCodes() {
    error(404, "AGENT_NOT_FOUND", http.get("/v1/routing/agents/nobody"));
    error(
        404,
        "AGENT_NOT_FOUND",
        http.send("PUT", "/v1/routing/agents/nobody/presence", "{\"presence\":\"available\"}"));
    error(404, "AGENT_NOT_FOUND", http.get("/v1/routing/agents/nobody/events"));
    error(404, "CONTACT_NOT_FOUND", http.post("/v1/routing/contacts/nothing/abandon", ""));
    error(404, "RESERVATION_NOT_FOUND", http.post("/v1/routing/reservations/res-99/accept", ""));
  }

  @Test
  void invalidRequirement_is400InvalidSelector_namingTheColumn_andCreatesNothing() {
    Http.Answer a =
        http.post(
            "/v1/routing/contacts",
            "{\"id\":\"c\",\"channel\":\"voice\",\"requirements\":\"languages HAS\"}");
    error(400, "INVALID_SELECTOR", a);
    assertTrue(a.json().get("message").asText().contains("column"), a.toString());
    error(404, "CONTACT_NOT_FOUND", http.get("/v1/routing/contacts/c"));
    error(400, "INVALID_SELECTOR", http.get("/v1/routing/agents?selector=gender%20%3D"));
  }

  @Test
  void negativeCapacity_is400_andCreatesNothing() {
    Http.Answer a = http.post("/v1/routing/agents", "{\"id\":\"a\",\"capacity\":{\"voice\":-1}}");
    error(400, "INVALID_ARGUMENT", a);
    assertTrue(a.json().get("message").asText().contains("-1"), a.toString());
    error(404, "AGENT_NOT_FOUND", http.get("/v1/routing/agents/a"));
  }

  @Test
  void malformedBodies_are400() {
    error(400, "UNKNOWN_FIELD", http.post("/v1/routing/agents", "{\"id\":\"a\",\"skill\":1}"));
    error(400, "INVALID_ARGUMENT", http.post("/v1/routing/agents", "{\"capacity\":{}}"));
    error(
        400,
        "INVALID_ARGUMENT",
        http.post("/v1/routing/agents", "{\"id\":\"a\",\"presence\":\"busy\"}"));
    error(
        400,
        "INVALID_ARGUMENT",
        http.post("/v1/routing/agents", "{\"id\":\"a\",\"attributes\":{\"x\":{\"y\":1}}}"));
    error(
        400,
        "INVALID_ARGUMENT",
        http.post(
            "/v1/routing/agents", "{\"id\":\"a\",\"presence\":\"available\",\"reason\":\"x\"}"));
  }

  @Test
  void acceptOfCancelledOffer_is409ReservationExpired_andAcceptTwiceIsInvalidState() {
    agent("a", "{}");
    String reservation =
        ok(201, http.post("/v1/routing/contacts", "{\"id\":\"c\",\"channel\":\"voice\"}"))
            .get("reservationId")
            .asText();
    ok(200, http.send("PUT", "/v1/routing/agents/a/presence", "{\"presence\":\"offline\"}"));
    error(
        409,
        "RESERVATION_EXPIRED",
        http.post("/v1/routing/reservations/" + reservation + "/accept", ""));
    assertEquals("queued", ok(200, http.get("/v1/routing/contacts/c")).get("state").asText());

    ok(200, http.send("PUT", "/v1/routing/agents/a/presence", "{\"presence\":\"available\"}"));
    String again = ok(200, http.get("/v1/routing/contacts/c")).get("reservationId").asText();
    ok(200, http.post("/v1/routing/reservations/" + again + "/accept", ""));
    Http.Answer twice = http.post("/v1/routing/reservations/" + again + "/accept", "");
    assertEquals(409, twice.status(), twice.toString());
    error(409, "INVALID_STATE", http.send("DELETE", "/v1/routing/agents/a", null));
    error(409, "AGENT_ALREADY_EXISTS", http.post("/v1/routing/agents", "{\"id\":\"a\"}"));
  }

  @Test
  void escalationAndMaxWait_areRead() {
    JsonNode c =
        ok(
            201,
            http.post(
                "/v1/routing/contacts",
                "{\"id\":\"c\",\"channel\":\"chat\",\"priority\":5,\"maxWaitSeconds\":600,"
                    + "\"attributes\":{\"vip\":true},"
                    + "\"requirements\":\"skills HAS 'a'\","
                    + "\"escalations\":[{\"afterSeconds\":30,\"requirements\":\"skills HAS 'b'\"},"
                    + "{\"afterSeconds\":60}]}"));
    assertEquals(5, c.get("priority").asInt());
    assertTrue(c.at("/attributes/vip").asBoolean());
    error(
        400,
        "INVALID_ARGUMENT",
        http.post(
            "/v1/routing/contacts",
            "{\"id\":\"d\",\"channel\":\"chat\",\"escalations\":[{\"afterSeconds\":60},"
                + "{\"afterSeconds\":30}]}"));
  }

  // ---- lists in pages ------------------------------------------------------------------------

  private static String encode(String cursor) {
    return java.net.URLEncoder.encode(cursor, java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void listAgents_inPages_ofTheDefaultSizeWithoutALimit_cursorToTheEnd() {
    for (int i = 0; i < 105; i++) {
      ok(201, http.post("/v1/routing/agents", "{\"id\":\"a" + (1000 + i) + "\"}"));
    }
    JsonNode first = ok(200, http.get("/v1/routing/agents"));
    assertEquals(100, first.get("agents").size(), "an old client gets the first page");
    assertEquals("a1000", first.at("/agents/0/id").asText());
    String cursor = first.get("nextCursor").asText();
    JsonNode rest = ok(200, http.get("/v1/routing/agents?limit=100&cursor=" + encode(cursor)));
    assertEquals(5, rest.get("agents").size());
    assertEquals("a1100", rest.at("/agents/0/id").asText());
    assertFalse(rest.has("nextCursor"), "no cursor on the last page");

    JsonNode small = ok(200, http.get("/v1/routing/agents?limit=2"));
    assertEquals(2, small.get("agents").size());
    assertTrue(small.has("nextCursor"));
  }

  @Test
  void waitingContactsAndOffers_inPages() {
    for (int i = 0; i < 5; i++) {
      call("c" + i, "skills HAS 'none'");
    }
    JsonNode first = ok(200, http.get("/v1/routing/contacts?limit=3"));
    assertEquals(3, first.get("contacts").size());
    JsonNode rest =
        ok(
            200,
            http.get(
                "/v1/routing/contacts?limit=3&cursor=" + encode(first.get("nextCursor").asText())));
    assertEquals(2, rest.get("contacts").size());
    assertEquals("c3", rest.at("/contacts/0/id").asText());
    assertFalse(rest.has("nextCursor"));

    agent("busy", "{}");
    call("offered", "skills IS NULL");
    JsonNode offers = ok(200, http.get("/v1/routing/agents/busy/reservations?limit=1"));
    assertEquals(1, offers.get("reservations").size());
    assertFalse(offers.has("nextCursor"));
  }

  @Test
  void listLimitOrCursorBad_is400NamingTheFieldTheRangeAndTheValue() {
    for (String path :
        new String[] {
          "/v1/routing/agents", "/v1/routing/contacts", "/v1/routing/agents/x/reservations"
        }) {
      Http.Answer zero = http.get(path + "?limit=0");
      error(400, "INVALID_ARGUMENT", zero);
      assertEquals(
          "limit must be between 1 and 1000, got 0", zero.json().get("message").asText(), path);
      Http.Answer big = http.get(path + "?limit=1001");
      error(400, "INVALID_ARGUMENT", big);
      assertTrue(big.json().get("message").asText().endsWith("got 1001"), big.toString());
      Http.Answer text = http.get(path + "?limit=ten");
      error(400, "INVALID_ARGUMENT", text);
      assertEquals("limit must be an integer, got 'ten'", text.json().get("message").asText());
    }
    Http.Answer cursor = http.get("/v1/routing/agents?cursor=nonsense");
    error(400, "INVALID_ARGUMENT", cursor);
    assertTrue(
        cursor.json().get("message").asText().startsWith("cursor must be the nextCursor"),
        cursor.toString());
    error(400, "INVALID_ARGUMENT", http.get("/v1/routing/contacts?cursor=%25%25"));
  }
}
