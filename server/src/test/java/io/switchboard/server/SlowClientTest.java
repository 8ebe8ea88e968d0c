package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.switchboard.server.config.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression (docs/operations.md, "Limits"): a client that stopped in the middle of a request, or
 * trickled its body a byte at a time, kept its connection (and a thread) for more than seven
 * minutes. The {@code read-timeout} now closes a connection that pauses longer than it while
 * sending a request, and the {@code idle-timeout} one that waits too long between requests;
 * answering, however long it takes, is not limited.
 */
@Timeout(120) // a guard: a kept connection or an uncounted send fails, not hangs
class SlowClientTest {

  /** How long a test waits for the server to drop a connection before it calls it kept. */
  private static final int KEPT_MILLIS = 30_000;

  private final SwitchboardServer server =
      SwitchboardServer.start(
          ServerConfig.resolve(
              Map.of(
                  "port", "0",
                  "in-memory", "true",
                  "read-timeout", "1s",
                  "idle-timeout", "1s"),
              Map.of()));
  private final Http http = new Http(server.uri());

  @AfterEach
  void stop() {
    http.close();
    server.stop();
  }

  @Test
  void halfSentHeader_isDisconnected_whileOtherClientsAreServed() throws IOException {
    try (Socket slow = connect()) {
      write(slow, "POST /v1/queues HTTP/1.1\r\nHost: localhost\r\nContent-Ty");

      // served normally while the slow client holds its connection
      assertEquals(200, http.get("/health").status());

      assertDisconnected(slow);
    }
    assertEquals(200, http.get("/health").status());
  }

  @Test
  void halfSentRequestLine_isDisconnected() throws IOException {
    try (Socket slow = connect()) {
      write(slow, "GET /hea");

      assertDisconnected(slow);
    }
  }

  @Test
  void trickledBody_isCutOff_andNothingIsSent() throws IOException {
    assertEquals(201, http.post("/v1/queues", "{\"name\":\"q\"}").status());
    String body = "{\"body\":\"hello\"}";
    try (Socket slow = connect()) {
      write(
          slow,
          "POST /v1/queues/q/messages HTTP/1.1\r\nHost: localhost\r\n"
              + "Content-Type: application/json\r\nContent-Length: "
              + body.length()
              + "\r\n\r\n");
      try {
        for (int i = 0; i < 2; i++) {
          write(slow, body.substring(i, i + 1));
          LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2)); // a slow client, not a test wait
        }
      } catch (IOException e) {
        // the server closed it already
      }
      assertDisconnected(slow);
    }
    Http.Answer stats = http.get("/v1/queues/q/stats");
    assertEquals(200, stats.status(), stats.toString());
    assertEquals(0, stats.json().at("/counters/sent").asInt(), stats.toString());
  }

  /** A client leaving in the middle of its body was an internal error: a 500 and an ERROR log. */
  @Test
  void clientLeavingMidBody_isNotAnInternalError() throws IOException {
    assertEquals(201, http.post("/v1/queues", "{\"name\":\"q\"}").status());
    try (Socket leaving = connect()) {
      write(
          leaving,
          "POST /v1/queues/q/messages HTTP/1.1\r\nHost: localhost\r\n"
              + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"body\"");
    }
    assertSendFailedAsTheClients();
  }

  /** Waits until the send is counted, and checks it counted as the client's error, not ours. */
  private void assertSendFailedAsTheClients() {
    String sends;
    do {
      sends =
          http.get("/metrics")
              .text()
              .lines()
              .filter(l -> l.startsWith("switchboard_http_requests_seconds_count{"))
              .filter(l -> l.contains("operation=\"send\""))
              .reduce("", (a, b) -> a + b + "\n");
    } while (sends.isEmpty());
    assertTrue(sends.contains("status=\"400\""), sends);
    assertFalse(sends.contains("status=\"500\""), sends);
  }

  @Test
  void idleKeptAliveConnection_isClosed() throws IOException {
    try (Socket idle = connect()) {
      write(idle, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n");
      // the answer, then the end of the connection once it has waited past the idle timeout
      assertDisconnected(idle);
    }
  }

  @Test
  void longPollLongerThanTheReadTimeout_isAnsweredNormally() {
    Http.Answer created =
        http.send(
            "POST",
            "/",
            "{\"QueueName\":\"lp\"}",
            Map.of(
                "X-Amz-Target",
                "AmazonSQS.CreateQueue",
                "Content-Type",
                "application/x-amz-json-1.0"));
    assertEquals(200, created.status(), created.toString());

    // waits 3 s for a message after its body has been read: the read timeout does not cut it
    Http.Answer polled =
        http.send(
            "POST",
            "/",
            "{\"QueueUrl\":\"" + server.uri() + "/000000000000/lp\",\"WaitTimeSeconds\":3}",
            Map.of(
                "X-Amz-Target",
                "AmazonSQS.ReceiveMessage",
                "Content-Type",
                "application/x-amz-json-1.0"));

    assertEquals(200, polled.status(), polled.toString());
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket(server.uri().getHost(), server.uri().getPort());
    socket.setSoTimeout(KEPT_MILLIS); // so that a kept connection fails the test, not hangs it
    return socket;
  }

  private static void write(Socket socket, String text) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(text.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** Reads (any answer) until the server ends the connection. */
  private static void assertDisconnected(Socket socket) {
    try {
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[4096];
      while (in.read(buffer) >= 0) {
        // an answer, if any, before the end
      }
    } catch (SocketTimeoutException e) {
      fail("the server kept the connection for " + KEPT_MILLIS + " ms");
    } catch (IOException e) {
      // reset by the server: closed as well
    }
  }
}
