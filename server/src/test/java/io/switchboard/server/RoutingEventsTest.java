package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.SseStream.Event;
import io.switchboard.server.config.ServerConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The routing event streams over real HTTP: replay, live follow, resume after an id, one agent's
 * stream, and a stop that ends open streams. Every read is bounded by a timeout; nothing sleeps.
 */
class RoutingEventsTest {

  private static final long TIMEOUT_SECONDS = 10;

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

  /** Opens a stream on this server; every wait on it is bounded by {@link #TIMEOUT_SECONDS}. */
  private SseStream open(String path, Map<String, String> headers) throws Exception {
    return new SseStream(http.client(), server.uri().resolve(path), headers, TIMEOUT_SECONDS);
  }

  private void post(String path, String body) {
    Http.Answer a = http.post(path, body);
    assertEquals(201, a.status(), a.toString());
  }

  private void agent(String id) {
    post(
        "/v1/routing/agents",
        "{\"id\":\"" + id + "\",\"capacity\":{\"voice\":1},\"presence\":\"available\"}");
  }

  @Test
  void events_replaysHistoryThenFollowsLive_withIncreasingIds() throws Exception {
    agent("a");
    post("/v1/routing/contacts", "{\"id\":\"c1\",\"channel\":\"voice\"}");
    try (SseStream r = open("/v1/routing/events", Map.of())) {
      assertEquals(200, r.response.statusCode());
      assertTrue(
          r.response
              .headers()
              .firstValue("Content-Type")
              .orElse("")
              .startsWith("text/event-stream"));
      List<Event> replayed = r.next(3);
      assertEquals(List.of(1L, 2L, 3L), replayed.stream().map(Event::id).toList());
      assertEquals("agent.created", replayed.get(0).type());
      assertEquals("a", replayed.get(0).data().at("/agent/id").asText());
      assertEquals("contact.queued", replayed.get(1).type());
      assertEquals("reservation.offered", replayed.get(2).type());
      assertEquals(3, replayed.get(2).data().get("id").asLong());

      agent("b");
      Event live = r.next();
      assertEquals(4, live.id());
      assertEquals("agent.created", live.type());
      assertEquals("b", live.data().at("/agent/id").asText());
    }
  }

  @Test
  void events_resumeAfterLastEventId_orAfterQuery() throws Exception {
    agent("a");
    agent("b");
    agent("c");
    try (SseStream r = open("/v1/routing/events", Map.of("Last-Event-ID", "2"))) {
      Event first = r.next();
      assertEquals(3, first.id());
      assertEquals("c", first.data().at("/agent/id").asText());
    }
    try (SseStream r = open("/v1/routing/events?after=1", Map.of())) {
      assertEquals(2, r.next().id());
    }
  }

  @Test
  void agentEvents_carryOnlyThatAgentsEvents() throws Exception {
    agent("a");
    agent("b");
    try (SseStream r = open("/v1/routing/agents/b/events", Map.of())) {
      Event created = r.next();
      assertEquals(2, created.id());
      post("/v1/routing/contacts", "{\"id\":\"c1\",\"channel\":\"voice\"}");
      // Longest idle: a gets c1, and neither the offer to a nor the queued contact concerns b.
      post("/v1/routing/contacts", "{\"id\":\"c2\",\"channel\":\"voice\"}");
      Event offered = r.next();
      assertEquals("reservation.offered", offered.type());
      assertEquals("c2", offered.data().at("/reservation/contactId").asText());
    }
  }

  @Test
  void badResumePoint_is400() {
    Http.Answer a = http.get("/v1/routing/events?after=-1");
    assertEquals(400, a.status(), a.toString());
    assertEquals("INVALID_ARGUMENT", a.code());
  }

  @Test
  void stop_endsOpenStreams() throws Exception {
    agent("a");
    try (SseStream r = open("/v1/routing/events", Map.of())) {
      r.next();
      server.stop();
      r.awaitEnd();
    }
  }
}
