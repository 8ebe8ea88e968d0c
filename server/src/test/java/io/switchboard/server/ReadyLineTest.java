package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.switchboard.server.config.ServerConfig;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The start line ({@code docs/server.md}, "Logging"): the address the server really listens on, a
 * URL a client reaches it at, and the limits in a form people read.
 */
class ReadyLineTest {

  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(SwitchboardServer.class);

  @BeforeEach
  void listen() {
    lines.start();
    logger.addAppender(lines);
    logger.setLevel(Level.INFO); // the tests' logging configuration may keep INFO quiet
  }

  @AfterEach
  void stopListening() {
    logger.detachAppender(lines);
    logger.setLevel(null);
  }

  private Map<String, String> readyLine() {
    ILoggingEvent ready =
        lines.list.stream()
            .filter(e -> e.getFormattedMessage().equals("switchboard ready"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no ready line in " + lines.list));
    return ready.getKeyValuePairs().stream()
        .collect(Collectors.toMap(kv -> kv.key, kv -> String.valueOf(kv.value)));
  }

  @Test
  void boundToEveryInterface_theLineSaysSo_andAUrlThatAnswersOnThisHost() {
    ServerConfig config =
        ServerConfig.resolve(
            Map.of("port", "0", "in-memory", "true", "bind", "0.0.0.0", "allow-anonymous", "true"),
            Map.of());
    try (SwitchboardServer server = SwitchboardServer.start(config)) {
      Map<String, String> line = readyLine();
      assertEquals("0.0.0.0:" + server.port(), line.get("bind"), line.toString());
      assertEquals("http://127.0.0.1:" + server.port(), line.get("url"), line.toString());
    }
  }

  @Test
  void withAPublicUrl_theLineNamesIt() {
    ServerConfig config =
        ServerConfig.resolve(
            Map.of("port", "0", "in-memory", "true", "public-url", "https://queues.example.com"),
            Map.of());
    try (SwitchboardServer server = SwitchboardServer.start(config)) {
      Map<String, String> line = readyLine();
      assertEquals("127.0.0.1:" + server.port(), line.get("bind"), line.toString());
      assertEquals("https://queues.example.com", line.get("url"), line.toString());
    }
  }

  @Test
  void theLimits_areInBinaryUnits_neverABareByteCount() {
    // the default max-queued-bytes is a share of the heap: rarely a whole number of MiB
    try (SwitchboardServer server = SwitchboardServer.start(ServerConfig.forTests())) {
      String limits = readyLine().get("limits");
      assertFalse(limits.matches(".*=\\d{4,}B\\b.*"), limits);
      assertTrue(limits.matches(".*queuedBytes=\\d+(\\.\\d)?[KMGT]iB .*"), limits);
    }
    assertEquals("2.9GiB", SwitchboardServer.mebibytes(3_160_408_050L));
    assertEquals("2048MiB", SwitchboardServer.mebibytes(2048L << 20));
    assertEquals("100KiB", SwitchboardServer.mebibytes(100L << 10));
    assertEquals("1.5MiB", SwitchboardServer.mebibytes((3L << 19) + 1));
    assertEquals("999B", SwitchboardServer.mebibytes(999));
  }
}
