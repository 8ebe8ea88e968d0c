package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.switchboard.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
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
 * Regression (docs/operations.md, "Limits"): nothing capped the connections a client could open.
 * 1,000 connections that connect and say nothing now meet {@code max-connections-per-address} and
 * {@code max-connections}: those over a cap are answered 429 or 503 {@code TOO_MANY_CONNECTIONS}
 * with {@code Retry-After} and closed at once, the server goes on serving other clients, {@code
 * /metrics} shows the caps and their use, and nothing is logged at WARN or ERROR.
 *
 * <p>Other clients come from other loopback addresses ({@code 127.0.0.2}, ...), which Linux routes
 * without any setup; elsewhere the test is skipped.
 */
@Timeout(120) // a guard: a cap that does not hold fails, not hangs
class ConnectionCapsTest {

  private static final int IDLE = 1_000;
  private static final int PER_ADDRESS = 500;
  private static final int TOTAL = 700;

  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
  private final List<Socket> sockets = new ArrayList<>();
  private SwitchboardServer server;

  private void start(String readTimeout) {
    log.start();
    root.addAppender(log);
    server =
        SwitchboardServer.start(
            ServerConfig.resolve(
                Map.of(
                    "port",
                    "0",
                    "in-memory",
                    "true",
                    "read-timeout",
                    readTimeout,
                    "max-connections",
                    Integer.toString(TOTAL),
                    "max-connections-per-address",
                    Integer.toString(PER_ADDRESS)),
                Map.of()));
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
    if (server != null) {
      server.stop();
    }
    root.detachAppender(log);
    log.stop();
  }

  @Test
  void thousandIdleConnections_capsHold_otherClientsAreServed_logStaysQuiet() throws IOException {
    Assumptions.assumeTrue(loopbackAliases(), "127.0.0.2 is not a loopback address here");
    start("1h");

    // 1,000 connections from one address that never send a byte
    List<Socket> idle = new ArrayList<>();
    for (int i = 0; i < IDLE; i++) {
      idle.add(connect("127.0.0.1"));
    }
    // accepted in order: the first PER_ADDRESS are held, every later one is refused at once
    for (Socket refused : idle.subList(PER_ADDRESS, IDLE)) {
      String answer = readAll(refused);
      assertTrue(answer.startsWith("HTTP/1.1 429 "), answer);
      assertTrue(answer.contains("Retry-After: 1"), answer);
      assertTrue(answer.contains("\"code\":\"TOO_MANY_CONNECTIONS\""), answer);
      assertTrue(answer.contains("max-connections-per-address"), answer);
    }

    // another client is served meanwhile, and the metrics show the cap and its use
    String metrics = get("127.0.0.2", "/metrics");
    assertTrue(metrics.startsWith("HTTP/1.1 200 "), metrics);
    assertTrue(
        metrics.contains("switchboard_limit{limit=\"max-connections\"} " + TOTAL + ".0"), metrics);
    assertTrue(
        metrics.contains(
            "switchboard_limit{limit=\"max-connections-per-address\"} " + PER_ADDRESS + ".0"),
        metrics);
    assertTrue(
        metrics.contains(
            "switchboard_limit_refused_total{limit=\"max-connections-per-address\"} "
                + (IDLE - PER_ADDRESS)
                + ".0"),
        metrics);
    assertTrue(
        metrics.contains(
            "switchboard_limit_used{limit=\"max-connections\"} " + (PER_ADDRESS + 1) + ".0"),
        metrics);
    assertTrue(
        metrics.contains(
            "switchboard_limit_used{limit=\"max-connections-per-address\"} " + PER_ADDRESS + ".0"),
        metrics);

    // fill the server from other addresses up to max-connections; the next one is refused 503
    int held = PER_ADDRESS;
    String refusal = null;
    for (int a = 3; refusal == null; a++) {
      for (int i = 0; i < 100 && refusal == null; i++) {
        Socket s = connect("127.0.0." + a);
        if (held < TOTAL) {
          held++;
        } else {
          refusal = readAll(s);
        }
      }
    }
    assertTrue(refusal.startsWith("HTTP/1.1 503 "), refusal);
    assertTrue(refusal.contains("\"code\":\"TOO_MANY_CONNECTIONS\""), refusal);
    assertTrue(refusal.contains("max-connections)"), refusal);

    // clients that leave make room: a new client is served once the server saw them go
    for (Socket s : idle.subList(0, 10)) {
      s.close();
    }
    String health;
    do {
      health = get("127.0.0.2", "/health");
    } while (!health.startsWith("HTTP/1.1 200 "));

    assertQuiet();
  }

  /**
   * A connection that never sent a byte was never closed (Helidon's idle timeout starts with the
   * first request): it is closed after {@code read-timeout}, and counted.
   */
  @Test
  void connectionThatSendsNothing_isClosedAfterTheReadTimeout() throws IOException {
    start("1s");
    Socket silent = connect("127.0.0.1");

    assertEquals("", readAll(silent)); // the end of the connection, no answer

    Http http = new Http(server.uri());
    String metrics = http.get("/metrics").text();
    http.close();
    assertTrue(metrics.contains("switchboard_read_timeouts_total 1.0"), metrics);
    assertQuiet();
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

  /** A GET on a connection of its own from {@code local}: the whole answer, or what came. */
  private String get(String local, String path) throws IOException {
    try (Socket s = connect(local)) {
      try {
        s.getOutputStream()
            .write(
                ("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
      } catch (SocketException refusedMeanwhile) {
        // the refusal is read below
      }
      return readAnswer(s);
    } finally {
      sockets.remove(sockets.size() - 1);
    }
  }

  private Socket connect(String local) throws IOException {
    Socket s = new Socket();
    sockets.add(s);
    s.setSoTimeout(60_000); // a connection kept where it should have been refused fails the test
    s.bind(new InetSocketAddress(local, 0));
    s.connect(new InetSocketAddress(server.uri().getHost(), server.uri().getPort()), 10_000);
    return s;
  }

  /**
   * Reads one answer (headers and a {@code Content-Length} body), or what came before the server
   * ended the connection.
   */
  private static String readAnswer(Socket s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      InputStream in = s.getInputStream();
      int length = -1;
      for (int b; (b = in.read()) >= 0; ) {
        out.write(b);
        String text = out.toString(StandardCharsets.ISO_8859_1);
        if (length < 0 && text.endsWith("\r\n\r\n")) {
          var m = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(text);
          length = m.find() ? Integer.parseInt(m.group(1)) : 0;
          out.write(in.readNBytes(length));
          break;
        }
      }
    } catch (SocketException reset) {
      // what came before the reset is the answer
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** Reads until the server ends the connection. */
  private static String readAll(Socket s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      InputStream in = s.getInputStream();
      byte[] buf = new byte[4096];
      for (int n; (n = in.read(buf)) >= 0; ) {
        out.write(buf, 0, n);
      }
    } catch (SocketException reset) {
      // what came before the reset is the answer
    }
    return out.toString(StandardCharsets.UTF_8);
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
