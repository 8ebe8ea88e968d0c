package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.WireFormat;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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

  /** One server-sent event as read: its id, type and data. */
  record Event(long id, String type, JsonNode data) {}

  /** Reads a stream on a background thread; {@link #next} waits a bounded time for each event. */
  final class Reader implements AutoCloseable {
    private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    private final Stream<String> lines;
    final HttpResponse<Stream<String>> response;

    Reader(String path, Map<String, String> headers) throws Exception {
      HttpRequest.Builder b = HttpRequest.newBuilder(server.uri().resolve(path)).GET();
      headers.forEach(b::header);
      response =
          http.client()
              .sendAsync(b.build(), HttpResponse.BodyHandlers.ofLines())
              .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      lines = response.body();
      Thread.ofVirtual().start(this::pump);
    }

    private void pump() {
      Map<String, String> fields = new java.util.HashMap<>();
      try {
        lines.forEach(
            line -> {
              if (line.isEmpty()) {
                if (fields.containsKey("data")) {
                  events.add(
                      new Event(
                          Long.parseLong(fields.getOrDefault("id", "0")),
                          fields.get("event"),
                          WireFormat.parse(fields.get("data").getBytes(StandardCharsets.UTF_8))));
                }
                fields.clear();
              } else if (!line.startsWith(":")) {
                int colon = line.indexOf(':');
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
              }
            });
        events.add("end");
      } catch (RuntimeException closed) {
        events.add("end");
      }
    }

    Event next() throws InterruptedException {
      Object e = events.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      assertNotNull(e, "no event within " + TIMEOUT_SECONDS + " s");
      assertTrue(e instanceof Event, "stream ended");
      return (Event) e;
    }

    List<Event> next(int n) throws InterruptedException {
      List<Event> out = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        out.add(next());
      }
      return out;
    }

    /** Waits for the server to end the stream. */
    void awaitEnd() throws InterruptedException {
      while (true) {
        Object e = events.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(e, "stream did not end within " + TIMEOUT_SECONDS + " s");
        if (e.equals("end")) {
          return;
        }
      }
    }

    @Override
    public void close() {
      lines.close();
    }
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
    try (Reader r = new Reader("/v1/routing/events", Map.of())) {
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
    try (Reader r = new Reader("/v1/routing/events", Map.of("Last-Event-ID", "2"))) {
      Event first = r.next();
      assertEquals(3, first.id());
      assertEquals("c", first.data().at("/agent/id").asText());
    }
    try (Reader r = new Reader("/v1/routing/events?after=1", Map.of())) {
      assertEquals(2, r.next().id());
    }
  }

  @Test
  void agentEvents_carryOnlyThatAgentsEvents() throws Exception {
    agent("a");
    agent("b");
    try (Reader r = new Reader("/v1/routing/agents/b/events", Map.of())) {
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
    try (Reader r = new Reader("/v1/routing/events", Map.of())) {
      r.next();
      server.stop();
      r.awaitEnd();
    }
  }
}
