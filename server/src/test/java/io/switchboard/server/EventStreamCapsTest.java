package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.switchboard.server.config.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * Regression (docs/operations.md, "Limits"): nothing capped the routing event streams. With 1,000
 * streams open, {@code max-event-streams} holds (one more is refused 503 {@code
 * TOO_MANY_EVENT_STREAMS} with {@code Retry-After}), the server serves other requests, an agent
 * that leaves its stream gets its place back once the server has seen it go, and nothing is logged
 * at WARN or ERROR; {@code max-event-streams-per-key} holds per client.
 */
@Timeout(120) // a guard: a cap that does not hold, or a place never given back, fails, not hangs
class EventStreamCapsTest {

  private static final int STREAMS = 1_000;

  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
  private final List<Socket> sockets = new ArrayList<>();
  private SwitchboardServer server;
  private Http http;

  private void start(int max, int perKey) {
    log.start();
    root.addAppender(log);
    server =
        SwitchboardServer.start(
            ServerConfig.resolve(
                Map.of(
                    "port", "0",
                    "in-memory", "true",
                    "max-connections-per-address", "5000",
                    "max-event-streams", Integer.toString(max),
                    "max-event-streams-per-key", Integer.toString(perKey)),
                Map.of()));
    http = new Http(server.uri());
  }

  @AfterEach
  void stop() {
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
    if (http != null) {
      http.close();
    }
    if (server != null) {
      server.stop();
    }
    root.detachAppender(log);
    log.stop();
  }

  @Test
  void thousandStreams_capHolds_othersAreServed_anAgentLeavesAndRejoins_logStaysQuiet()
      throws IOException {
    start(STREAMS, STREAMS);
    assertEquals(201, createAgent("a1").status());
    for (int i = 0; i < STREAMS - 1; i++) {
      open("127.0.0.1", "/v1/routing/events", null);
    }
    Socket agent = open("127.0.0.1", "/v1/routing/agents/a1/events", null);

    // one more is refused, retryably
    Http.Answer refused = http.get("/v1/routing/events");
    assertEquals(503, refused.status(), refused.toString());
    assertEquals("TOO_MANY_EVENT_STREAMS", refused.code());
    assertTrue(refused.text().contains("max-event-streams"), refused.toString());
    assertEquals("1", refused.raw().headers().firstValue("Retry-After").orElse(""));

    // the server serves everyone else meanwhile, and the metrics show the cap and its use
    assertEquals(200, http.get("/health").status());
    assertEquals(201, createAgent("a2").status());
    String metrics = http.get("/metrics").text();
    assertTrue(
        metrics.contains("switchboard_limit_used{limit=\"max-event-streams\"} " + STREAMS + ".0"),
        metrics);
    assertTrue(
        metrics.contains("switchboard_limit{limit=\"max-event-streams\"} " + STREAMS + ".0"),
        metrics);
    assertTrue(
        metrics.contains("switchboard_limit_refused_total{limit=\"max-event-streams\"} 1.0"),
        metrics);

    // the agent leaves abruptly; its place is free once a write finds it gone (at its next event)
    agent.setSoLinger(true, 0);
    agent.close();
    Socket rejoined = null;
    for (int presence = 0; rejoined == null; presence++) {
      Http.Answer set =
          http.send(
              "PUT",
              "/v1/routing/agents/a1/presence",
              "{\"presence\":\"" + (presence % 2 == 0 ? "away" : "available") + "\"}");
      assertEquals(200, set.status(), set.toString());
      rejoined = tryOpen("127.0.0.1", "/v1/routing/agents/a1/events", "0");
    }
    // resumed from the start: the agent's own events since it left are replayed
    assertTrue(readUntil(rejoined, "event: agent.presence").contains("\"agentId\":\"a1\""));

    server.stop(); // ends the streams
    assertQuiet();
  }

  /**
   * Regression ("SSE stream slot freed late"; docs/operations.md, "Connections"): a client that
   * left a quiet stream kept its place until the next keepalive (15 s) failed to write, so an agent
   * that reconnected at once was refused for up to 30 s. Now a quiet stream probes its client every
   * second: with 1,000 streams open (the cap), an agent that closes its stream with no event to
   * write gets its place back in a few seconds, and rejoins, more than once; the log stays quiet.
   */
  @Test
  void streamSlotFreedLate_aQuietAgentLeavesAndRejoins_withinSeconds_atTheCap() throws IOException {
    start(STREAMS, STREAMS);
    assertEquals(201, createAgent("a1").status());
    for (int i = 0; i < STREAMS - 1; i++) {
      open("127.0.0.1", "/v1/routing/events", null);
    }
    Socket agent = open("127.0.0.1", "/v1/routing/agents/a1/events", null);
    for (int round = 0; round < 2; round++) {
      agent.close(); // an orderly close, and no event will come to find it gone
      long left = System.nanoTime();
      Socket rejoined = null;
      while (rejoined == null) {
        rejoined = tryOpen("127.0.0.1", "/v1/routing/agents/a1/events", null);
        long waited = (System.nanoTime() - left) / 1_000_000;
        // generous against the ~2 s a probe takes; a keepalive found it after 15 to 30 s
        assertTrue(waited < 12_000, "the agent's place was still held after " + waited + " ms");
        if (rejoined == null) {
          pause();
        }
      }
      assertEquals(
          "TOO_MANY_EVENT_STREAMS", http.get("/v1/routing/events").code(), "the cap still holds");
      agent = rejoined;
    }
    server.stop();
    assertQuiet();
  }

  private static void pause() {
    try {
      Thread.sleep(100); // between tries of a reconnecting client, not a wait for a result
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Test
  void streamsOfOneClient_capHoldsPerKey_otherClientsAreServed() throws IOException {
    Assumptions.assumeTrue(loopbackAliases(), "127.0.0.2 is not a loopback address here");
    start(STREAMS, 2);
    open("127.0.0.1", "/v1/routing/events", null);
    open("127.0.0.1", "/v1/routing/events", null);

    String third = request("127.0.0.1", "/v1/routing/events", null);
    assertTrue(third.startsWith("HTTP/1.1 429 "), third);
    assertTrue(third.contains("TOO_MANY_EVENT_STREAMS"), third);
    assertTrue(third.contains("max-event-streams-per-key"), third);

    open("127.0.0.2", "/v1/routing/events", null); // another client has its own share
    assertTrue(
        http.get("/metrics")
            .text()
            .contains("switchboard_limit_refused_total{limit=\"max-event-streams-per-key\"} 1.0"));
    assertQuiet();
  }

  private Http.Answer createAgent(String id) {
    return http.post(
        "/v1/routing/agents",
        "{\"id\":\"" + id + "\",\"capacity\":{\"voice\":1},\"presence\":\"available\"}");
  }

  /** Opens a stream and reads up to its first comment. */
  private Socket open(String local, String path, String lastEventId) throws IOException {
    Socket s = tryOpen(local, path, lastEventId);
    assertTrue(s != null, "refused: " + path);
    return s;
  }

  /** A started stream, or null when the server refused it (the refusal read). */
  private Socket tryOpen(String local, String path, String lastEventId) throws IOException {
    Socket s = send(local, path, lastEventId);
    String status = readUntil(s, "\r\n");
    if (!status.startsWith("HTTP/1.1 200 ")) {
      s.close();
      return null;
    }
    readUntil(s, "switchboard routing events");
    return s;
  }

  /** A request's answer: status line, headers and its {@code Content-Length} body. */
  private String request(String local, String path, String lastEventId) throws IOException {
    Socket s = send(local, path, lastEventId);
    String head = readUntil(s, "\r\n\r\n");
    var length = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
    int n = length.find() ? Integer.parseInt(length.group(1)) : 0;
    return head + new String(s.getInputStream().readNBytes(n), StandardCharsets.UTF_8);
  }

  private Socket send(String local, String path, String lastEventId) throws IOException {
    Socket s = new Socket();
    sockets.add(s);
    s.setSoTimeout(60_000); // a stream that never starts fails the test
    s.bind(new InetSocketAddress(local, 0));
    s.connect(new InetSocketAddress(server.uri().getHost(), server.uri().getPort()), 10_000);
    s.getOutputStream()
        .write(
            ("GET "
                    + path
                    + " HTTP/1.1\r\nHost: localhost\r\n"
                    + (lastEventId == null ? "" : "Last-Event-ID: " + lastEventId + "\r\n")
                    + "\r\n")
                .getBytes(StandardCharsets.US_ASCII));
    return s;
  }

  /** Reads until {@code marker} has come, and the rest of its line; returns what was read. */
  private static String readUntil(Socket s, String marker) throws IOException {
    InputStream in = s.getInputStream();
    StringBuilder seen = new StringBuilder();
    while (seen.indexOf(marker) < 0) {
      int b = in.read();
      assertTrue(b >= 0, "the stream ended before '" + marker + "': " + seen);
      seen.append((char) b);
    }
    for (int b; !marker.endsWith("\n") && (b = in.read()) >= 0 && b != '\n'; ) {
      seen.append((char) b);
    }
    if (marker.startsWith("event:")) {
      for (int b; (b = in.read()) >= 0 && b != '\n'; ) {
        seen.append((char) b); // the data line
      }
    }
    return seen.toString();
  }

  private void assertQuiet() {
    List<String> loud;
    synchronized (log) {
      loud =
          List.copyOf(log.list).stream()
              .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
              .map(e -> e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage())
              .toList();
    }
    assertEquals(List.of(), loud);
  }

  private static boolean loopbackAliases() {
    try (Socket s = new Socket()) {
      s.bind(new InetSocketAddress("127.0.0.2", 0));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
