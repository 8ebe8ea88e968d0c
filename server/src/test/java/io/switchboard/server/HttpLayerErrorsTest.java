package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.switchboard.client.wire.WireFormat;
import io.switchboard.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Requests the HTTP layer itself refuses, before any route (a request line or a header that is not
 * HTTP/1.1), sent over a raw socket: each gets an answer with the API's {@code {"code","message"}}
 * shape, a message that says something, and a request id ({@code docs/api.md}, errors).
 */
class HttpLayerErrorsTest {

  private static SwitchboardServer server;

  @BeforeAll
  static void start() {
    server = SwitchboardServer.start(ServerConfig.forTests());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private record Answer(int status, String head, JsonNode body) {}

  /** Sends {@code raw} and reads the answer until the server closes (it does after these). */
  private static Answer send(String raw) throws IOException {
    try (Socket socket = new Socket(server.uri().getHost(), server.uri().getPort())) {
      socket.setSoTimeout(10_000); // an answer, not the read-timeout's close, is expected
      socket.getOutputStream().write(raw.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[4096];
      try {
        for (int n; (n = in.read(buffer)) >= 0; ) {
          got.write(buffer, 0, n);
          String text = got.toString(StandardCharsets.ISO_8859_1);
          int end = text.indexOf("\r\n\r\n");
          if (end >= 0 && text.endsWith("}")) {
            break;
          }
        }
      } catch (SocketTimeoutException e) {
        // judged below on what came
      }
      String text = got.toString(StandardCharsets.ISO_8859_1);
      String shown = raw.length() > 60 ? raw.substring(0, 60) + "..." : raw;
      assertFalse(text.isEmpty(), "no answer at all to " + shown.strip());
      int end = text.indexOf("\r\n\r\n");
      assertTrue(end > 0, "no complete answer head: " + text);
      String head = text.substring(0, end);
      int status = Integer.parseInt(head.substring(9, 12));
      JsonNode body = WireFormat.parse(text.substring(end + 4).getBytes(StandardCharsets.UTF_8));
      return new Answer(status, head, body);
    }
  }

  private static void assertErrorShape(Answer a, int status, String code) {
    assertEquals(status, a.status(), a.toString());
    assertEquals(code, a.body().path("code").asText(), a.toString());
    JsonNode message = a.body().path("message");
    assertTrue(message.isTextual() && !message.asText().isBlank(), "a message: " + a);
    assertTrue(a.head().toLowerCase(java.util.Locale.ROOT).contains("x-request-id:"), a.head());
    assertTrue(
        a.head().toLowerCase(java.util.Locale.ROOT).contains("content-type: application/json"),
        a.head());
  }

  @Test
  void aRequestLineWithoutSpaces_isA400WithAMessage() throws IOException {
    assertErrorShape(send("GARBAGE\r\n\r\n"), 400, "BAD_REQUEST");
  }

  @Test
  void aRequestLineWithoutAVersion_isA400WithAMessage() throws IOException {
    assertErrorShape(send("GET /health\r\nHost: x\r\n\r\n"), 400, "BAD_REQUEST");
  }

  @Test
  void anUnknownProtocol_isA400WithAMessage() throws IOException {
    assertErrorShape(send("GET /health FTP/9\r\nHost: x\r\n\r\n"), 400, "BAD_REQUEST");
  }

  @Test
  void http10_isA505WithAMessage() throws IOException {
    assertErrorShape(send("GET /health HTTP/1.0\r\n\r\n"), 505, "HTTP_VERSION_NOT_SUPPORTED");
  }

  @Test
  void aHeaderWithoutAColon_isA400WithAMessage() throws IOException {
    assertErrorShape(
        send("GET /health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n"), 400, "BAD_REQUEST");
  }

  @Test
  void aRequestLineWithABareLineFeed_isA400WithAMessage() throws IOException {
    assertErrorShape(send("GET /health HTTP/1.1\nHost: x\n\n"), 400, "BAD_REQUEST");
  }

  @Test
  void aTooLongRequestLine_isA414WithAMessage() throws IOException {
    assertErrorShape(
        send("GET /" + "a".repeat(70_000) + " HTTP/1.1\r\nHost: x\r\n\r\n"), 414, "URI_TOO_LONG");
  }
}
