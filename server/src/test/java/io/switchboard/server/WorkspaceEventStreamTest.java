package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.SseStream.Event;
import io.switchboard.server.config.ServerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The event streams of a workspace ({@code GET /v1/workspaces/{ws}/events} and one agent's), and
 * the {@code ?from=now} start of every stream, over real HTTP. Every read is bounded by a timeout;
 * nothing sleeps.
 */
class WorkspaceEventStreamTest {

  private static final long TIMEOUT_SECONDS = 10;
  private static final String WS = "/v1/workspaces/centre";

  private SwitchboardServer server;
  private Http http;

  private void start(Map<String, String> settings) {
    Map<String, String> all = new java.util.HashMap<>(Map.of("port", "0", "in-memory", "true"));
    all.putAll(settings);
    server = SwitchboardServer.start(ServerConfig.resolve(all, Map.of()));
    http = new Http(server.uri());
    created(
        "/v1/workspaces",
        "{\"name\":\"centre\",\"defaultActivity\":\"Offline\",\"activities\":["
            + "{\"name\":\"Ready\",\"available\":true},{\"name\":\"Offline\",\"available\":false}]}");
  }

  private void start() {
    start(Map.of());
  }

  @AfterEach
  void stop() {
    if (http != null) {
      http.close();
    }
    if (server != null) {
      server.stop();
    }
  }

  private SseStream open(String path, Map<String, String> headers) throws Exception {
    return new SseStream(http.client(), server.uri().resolve(path), headers, TIMEOUT_SECONDS);
  }

  private void created(String path, String body) {
    Http.Answer a = http.post(path, body);
    assertEquals(201, a.status(), a.toString());
  }

  private void agent(String prefix, String id, String state) {
    created(prefix + "/agents", "{\"id\":\"" + id + "\",\"capacity\":{\"voice\":1}," + state + "}");
  }

  private void wsAgent(String id) {
    agent(WS, id, "\"activity\":\"Ready\"");
  }

  @Test
  void workspaceEvents_carryOnlyThatWorkspacesEvents_andResumeAfterLastEventId() throws Exception {
    start();
    agent("/v1/routing", "d1", "\"presence\":\"available\"");
    wsAgent("a1");
    created(WS + "/contacts", "{\"id\":\"c1\",\"channel\":\"voice\"}");
    try (SseStream r = open(WS + "/events", Map.of())) {
      List<Event> replayed = r.next(3);
      assertEquals(List.of(1L, 2L, 3L), replayed.stream().map(Event::id).toList());
      assertEquals(
          List.of("agent.created", "contact.queued", "reservation.offered"),
          replayed.stream().map(Event::type).toList());
      assertEquals("a1", replayed.get(0).data().at("/agent/id").asText());

      agent("/v1/routing", "d2", "\"presence\":\"available\""); // default's: not in this stream
      wsAgent("a2");
      Event live = r.next();
      assertEquals("agent.created", live.type());
      assertEquals("a2", live.data().at("/agent/id").asText());
      assertEquals(4, live.id());
    }
    try (SseStream r = open(WS + "/events", Map.of("Last-Event-ID", "3"))) {
      assertEquals("a2", r.next().data().at("/agent/id").asText());
    }
  }

  @Test
  void workspaceAgentEvents_carryOnlyThatAgentsEvents() throws Exception {
    start();
    wsAgent("a1");
    wsAgent("a2");
    try (SseStream r = open(WS + "/agents/a2/events", Map.of())) {
      assertEquals("a2", r.next().data().at("/agent/id").asText());
      created(WS + "/contacts", "{\"id\":\"c1\",\"channel\":\"voice\"}"); // to a1, longest idle
      created(WS + "/contacts", "{\"id\":\"c2\",\"channel\":\"voice\"}");
      Event offered = r.next();
      assertEquals("reservation.offered", offered.type());
      assertEquals("c2", offered.data().at("/reservation/contactId").asText());
    }
    Http.Answer unknown = http.get(WS + "/agents/nobody/events");
    assertEquals(404, unknown.status(), unknown.toString());
    assertEquals("AGENT_NOT_FOUND", unknown.code());
  }

  @Test
  void fromNow_replaysNothing_startsWithTheNewestId_thenFollowsLive() throws Exception {
    start();
    wsAgent("a1");
    wsAgent("a2");
    try (SseStream r = open(WS + "/events?from=now", Map.of())) {
      Event start = r.next();
      assertEquals("start", start.type());
      assertEquals(2, start.id());
      assertEquals(2, start.data().get("after").asLong());
      wsAgent("a3");
      Event live = r.next();
      assertEquals(3, live.id());
      assertEquals("a3", live.data().at("/agent/id").asText());
    }
    // the default workspace's stream takes it too
    agent("/v1/routing", "d1", "\"presence\":\"available\"");
    try (SseStream r = open("/v1/routing/events?from=now", Map.of())) {
      assertEquals(1, r.next().id());
      agent("/v1/routing", "d2", "\"presence\":\"available\"");
      assertEquals("d2", r.next().data().at("/agent/id").asText());
    }
  }

  @Test
  void fromNow_reconnectingWithLastEventId_resumesWithoutAGap() throws Exception {
    start();
    wsAgent("a1");
    long resumeAt;
    try (SseStream r = open(WS + "/events?from=now", Map.of())) {
      resumeAt = r.next().id();
    }
    wsAgent("a2"); // while disconnected
    // a browser reconnects to the same URL, from=now included, with the last id it saw
    try (SseStream r =
        open(WS + "/events?from=now", Map.of("Last-Event-ID", Long.toString(resumeAt)))) {
      Event missedWhileAway = r.next();
      assertEquals("agent.created", missedWhileAway.type());
      assertEquals("a2", missedWhileAway.data().at("/agent/id").asText());
    }
  }

  @Test
  void deletingTheWorkspace_endsItsStream_withWorkspaceDeleted() throws Exception {
    start();
    wsAgent("a1");
    try (SseStream r = open(WS + "/events?from=now", Map.of())) {
      assertEquals("start", r.next().type());
      Http.Answer deleted = http.send("DELETE", WS, null);
      assertEquals(204, deleted.status(), deleted.toString());
      List<Event> last = new ArrayList<>();
      r.awaitEnd(last::add);
      assertEquals(List.of("workspace.deleted"), last.stream().map(Event::type).toList());
    }
    Http.Answer gone = http.get(WS + "/events");
    assertEquals(404, gone.status(), gone.toString());
    assertEquals("WORKSPACE_NOT_FOUND", gone.code());
  }

  @Test
  void reconfiguringTheWorkspace_endsItsStream_forTheClientToReconnect() throws Exception {
    start();
    try (SseStream r = open(WS + "/events", Map.of())) {
      Http.Answer patched = http.send("PATCH", WS, "{\"offerTimeoutSeconds\":20}");
      assertEquals(200, patched.status(), patched.toString());
      List<Event> last = new ArrayList<>();
      r.awaitEnd(last::add);
      assertEquals(List.of(), last);
    }
    wsAgent("a1"); // the rebuilt router's events stream again
    try (SseStream r = open(WS + "/events", Map.of())) {
      assertEquals(
          "a1",
          r.until(e -> e.type().equals("agent.created"), e -> {}).data().at("/agent/id").asText());
    }
  }

  @Test
  void badStartingPoints_are400_andChangeNothing() {
    start();
    for (String query : List.of("?from=start", "?from=now&after=3", "?after=-1")) {
      Http.Answer a = http.get(WS + "/events" + query);
      assertEquals(400, a.status(), query + " -> " + a);
      assertEquals("INVALID_ARGUMENT", a.code(), query + " -> " + a);
    }
    Http.Answer a = http.get("/v1/routing/events?from=start");
    assertTrue(a.text().contains("from must be 'now'") && a.text().contains("start"), a.text());
  }

  @Test
  void workspaceStreams_countAgainstTheStreamCaps() throws Exception {
    start(Map.of("max-event-streams-per-key", "1"));
    try (SseStream r = open(WS + "/events?from=now", Map.of())) {
      assertEquals("start", r.next().type());
      Http.Answer refused = http.get("/v1/routing/events");
      assertEquals(429, refused.status(), refused.toString());
      assertEquals("TOO_MANY_EVENT_STREAMS", refused.code());
    }
  }

  @Test
  void aResumePointBeyondTheNewestEvent_saysMissed_thenFollowsFromTheNewest() throws Exception {
    start();
    wsAgent("a1");
    try (SseStream r = open(WS + "/events", Map.of("Last-Event-ID", "50"))) {
      Event missed = r.next();
      assertEquals("missed", missed.type());
      assertEquals(50, missed.data().get("after").asLong());
      wsAgent("a2");
      Event live = r.next();
      assertEquals(2, live.id());
    }
  }
}
