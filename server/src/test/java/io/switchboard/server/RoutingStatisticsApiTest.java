package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.SwitchboardException;
import io.switchboard.routing.StatisticsQuery;
import io.switchboard.routing.StatisticsReport;
import io.switchboard.server.config.ServerConfig;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lasting statistics over HTTP ({@code GET /v1/routing/statistics} and the workspace's): what a
 * contact's life counts, the same answer through the Java client, and bad input as 400
 * INVALID_ARGUMENT naming what was wrong.
 */
class RoutingStatisticsApiTest {

  private SwitchboardServer server;
  private Http http;
  private Instant from;
  private Instant to;

  @BeforeEach
  void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
    http = new Http(server.uri());
    from = Instant.now().minus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
    to = from.plus(Duration.ofHours(2));
  }

  @AfterEach
  void stop() {
    http.close();
    server.stop();
  }

  private JsonNode ok(Http.Answer a) {
    assertEquals(200, a.status(), a.toString());
    return a.json();
  }

  private String range() {
    return "from=" + from + "&to=" + to;
  }

  private void contactAnsweredAndCompleted(String prefix) {
    assertEquals(
        201,
        http.post(
                prefix + "/agents",
                "{\"id\":\"ann\",\"capacity\":{\"voice\":1}"
                    + (prefix.startsWith("/v1/routing") ? ",\"presence\":\"available\"" : "")
                    + "}")
            .status());
    if (!prefix.startsWith("/v1/routing")) {
      assertEquals(
          200,
          http.send("PUT", prefix + "/agents/ann/activity", "{\"activity\":\"available\"}")
              .status());
    }
    JsonNode contact =
        http.post(prefix + "/contacts", "{\"id\":\"c1\",\"channel\":\"voice\"}").json();
    String reservation = contact.get("reservationId").asText();
    assertEquals(200, http.post(prefix + "/reservations/" + reservation + "/accept", "").status());
    assertEquals(200, http.post(prefix + "/contacts/c1/complete", "").status());
  }

  @Test
  void contactsLife_countedInTheIntervalAndTotals() {
    contactAnsweredAndCompleted("/v1/routing");

    JsonNode report = ok(http.get("/v1/routing/statistics?" + range()));
    assertEquals(from.toString(), report.get("from").asText());
    JsonNode totals = report.get("totals");
    assertEquals(1, totals.get("arrived").asLong());
    assertEquals(1, totals.get("offered").asLong());
    assertEquals(1, totals.get("accepted").asLong());
    assertEquals(1, totals.get("answered").asLong());
    assertEquals(1, totals.get("answeredWithinThreshold").asLong());
    assertEquals(1, totals.get("handled").asLong());
    assertTrue(totals.get("activityTimeMillis").has("available"), report.toString());
    assertFalse(report.get("intervals").isEmpty());
    JsonNode first = report.get("intervals").get(0);
    assertEquals(
        Duration.ofMinutes(15),
        Duration.between(
            Instant.parse(first.get("start").asText()), Instant.parse(first.get("end").asText())));
    assertEquals(1, report.get("cumulative").get("handled").asLong());

    JsonNode agent = ok(http.get("/v1/routing/statistics?" + range() + "&agent=ann"));
    assertEquals("ann", agent.get("agent").asText());
    assertEquals(1, agent.get("totals").get("accepted").asLong());
  }

  @Test
  void javaClient_readsTheSameReport() {
    contactAnsweredAndCompleted("/v1/routing");
    try (SwitchboardClient client = SwitchboardClient.create(server.uri())) {
      StatisticsReport report =
          client.routing().statistics(StatisticsQuery.between(from, to).forAgent("ann"));
      assertEquals(1, report.totals().handled());
      assertEquals(1, report.cumulative().answered());
      assertEquals("ann", report.agent().orElseThrow());
      SwitchboardException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              SwitchboardException.class,
              () -> client.routing().statistics(StatisticsQuery.between(to, from)));
      assertEquals(400, e.status());
    }
  }

  @Test
  void workspaceRoute_countsThatWorkspaceOnly() {
    assertEquals(201, http.post("/v1/workspaces", "{\"name\":\"centre\"}").status());
    contactAnsweredAndCompleted("/v1/workspaces/centre");

    JsonNode centre = ok(http.get("/v1/workspaces/centre/statistics?" + range()));
    assertEquals(1, centre.get("totals").get("handled").asLong());
    JsonNode routing = ok(http.get("/v1/routing/statistics?" + range()));
    assertEquals(0, routing.get("totals").get("arrived").asLong());
    assertEquals(404, http.get("/v1/workspaces/nowhere/statistics?" + range()).status());
  }

  @Test
  void badInput_400InvalidArgument_namingTheProblem() {
    bad("/v1/routing/statistics?to=" + to, "'from' is required");
    bad("/v1/routing/statistics?from=yesterday&to=" + to, "got 'yesterday'");
    bad("/v1/routing/statistics?from=" + to + "&to=" + from, "from must be before to");
    bad(
        "/v1/routing/statistics?from=" + from + "&to=" + from.plus(Duration.ofDays(40)),
        "longer than 31 days");
    bad("/v1/routing/statistics?" + range() + "&queue=nope", "'nope'");
    bad("/v1/routing/statistics?" + range() + "&agent=ghost", "'ghost'");
    bad("/v1/routing/statistics?" + range() + "&queue=q&agent=a", "not both");
    Http.Answer unknown = http.get("/v1/routing/statistics?" + range() + "&interval=5m");
    assertEquals(400, unknown.status(), unknown.toString());
    assertEquals("UNKNOWN_FIELD", unknown.code());
  }

  private void bad(String path, String says) {
    Http.Answer a = http.get(path);
    assertEquals(400, a.status(), a.toString());
    assertEquals("INVALID_ARGUMENT", a.code(), a.toString());
    String message = a.json().get("message").asText();
    assertTrue(message.contains(says), message);
  }
}
