package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.switchboard.server.api.routing.RoutingEventStreams;
import io.switchboard.server.config.ServerConfig;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Regression (docs/operations.md, "Limits"): a client that leaves a routing event stream is
 * routine, not an error: the server logs it at DEBUG at most, with no stack trace at ERROR or WARN,
 * and keeps serving.
 */
class SseClientLeftTest {

  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
  private final Logger streams = (Logger) LoggerFactory.getLogger(RoutingEventStreams.class);
  private SwitchboardServer server;
  private Http http;

  @BeforeEach
  void start() {
    log.start();
    root.addAppender(log);
    streams.setLevel(Level.DEBUG);
    server = SwitchboardServer.start(ServerConfig.forTests());
    http = new Http(server.uri());
  }

  @AfterEach
  void stop() {
    http.close();
    root.detachAppender(log);
    streams.setLevel(null);
    log.stop();
  }

  @Test
  void clientLeavingAnEventStream_isNotLoggedAsAnError() throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(server.uri().getHost(), server.uri().getPort()), 5_000);
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET /v1/routing/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      StringBuilder seen = new StringBuilder();
      while (!seen.toString().contains("switchboard routing events")) {
        int b = in.read();
        assertTrue(b >= 0, "stream closed before its first comment: " + seen);
        seen.append((char) b);
      }
      s.setSoLinger(true, 0); // leave abruptly: the server's next writes fail
    }
    // events for the abandoned stream to write, until a write finds the client gone (bounded)
    for (int i = 0; i < 200 && !departureLogged(); i++) {
      Http.Answer a =
          http.post(
              "/v1/routing/agents",
              "{\"id\":\"a" + i + "\",\"capacity\":{\"voice\":1},\"presence\":\"available\"}");
      assertEquals(201, a.status(), a.toString());
      Thread.onSpinWait();
    }
    server.stop(); // waits for the stream's handler to finish
    List<String> loud =
        log.list.stream()
            .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
            .map(e -> e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage())
            .toList();
    assertEquals(List.of(), loud);
    log.list.forEach(
        e ->
            System.err.println(
                "CAPTURED "
                    + e.getLevel()
                    + " "
                    + e.getLoggerName()
                    + " "
                    + e.getFormattedMessage()));
    assertTrue(departureLogged(), "the departure is logged at DEBUG, without a stack trace");
  }

  private boolean departureLogged() {
    synchronized (log) {
      return List.copyOf(log.list).stream()
          .anyMatch(
              e ->
                  e.getLevel() == Level.DEBUG
                      && e.getFormattedMessage().contains("event stream client left")
                      && e.getThrowableProxy() == null);
    }
  }
}
