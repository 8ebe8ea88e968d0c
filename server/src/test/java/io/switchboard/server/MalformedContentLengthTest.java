package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request whose {@code Content-Length} is not one non-negative decimal number ({@code -1}, {@code
 * abc}, {@code +5}, two different values) is bad input, refused before anything else with 400 in
 * the API's error shape and a request id: never a 500, never a stack trace. Sent over a raw socket,
 * as no HTTP client sends such a header.
 */
class MalformedContentLengthTest {

  private static SwitchboardServer server;

  @BeforeAll
  static void start() {
    server =
        SwitchboardServer.start(
            ServerConfig.forTests()
                .withAccessKeys(io.switchboard.server.auth.AccessKeys.parse("AKADMIN:admin-pw")));
  }

  @AfterAll
  static void stop() {
    server.stop();
  }

  /** The status line, the head's lines and the body of one request sent as is. */
  record Raw(String status, String head, String body) {
    boolean hasHeader(String name) {
      return head.toLowerCase(Locale.ROOT).contains("\r\n" + name.toLowerCase(Locale.ROOT) + ":");
    }
  }

  static Raw send(String path, String headers) {
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST "
                  + path
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  + headers
                  + "Connection: close\r\n\r\n{}")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      in.transferTo(all);
      String text = all.toString(StandardCharsets.UTF_8);
      int end = text.indexOf("\r\n\r\n");
      String head = end < 0 ? text : text.substring(0, end);
      return new Raw(
          head.substring(0, head.indexOf("\r\n") < 0 ? head.length() : head.indexOf("\r\n")),
          head,
          end < 0 ? "" : text.substring(end + 4));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "Content-Length: -1\r\n",
        "Content-Length: abc\r\n",
        "Content-Length: +5\r\n",
        "Content-Length: 2\r\nContent-Length: 3\r\n",
        "Content-Length: 2, 3\r\n"
      })
  void nativeApi_answers400_inTheErrorShape_withARequestId(String contentLength) {
    Raw raw = send("/v1/queues", "Content-Type: application/json\r\n" + contentLength);
    assertTrue(raw.status().contains(" 400 "), raw.head() + "\n" + raw.body());
    assertTrue(raw.body().contains("\"code\":\"BAD_REQUEST\""), raw.body());
    assertTrue(raw.body().contains("Content-Length"), raw.body());
    assertTrue(raw.hasHeader("X-Request-Id"), raw.head());
    assertFalse(raw.body().contains("Exception") || raw.body().contains("\tat "), raw.body());
  }

  @ParameterizedTest
  @ValueSource(strings = {"Content-Length: -1\r\n", "Content-Length: 2\r\nContent-Length: 3\r\n"})
  void sqsJsonProtocol_answers400_inTheSqsJsonShape_withARequestId(String contentLength) {
    Raw raw =
        send(
            "/",
            "X-Amz-Target: AmazonSQS.ListQueues\r\n"
                + "Content-Type: application/x-amz-json-1.0\r\n"
                + contentLength);
    assertTrue(raw.status().contains(" 400 "), raw.head() + "\n" + raw.body());
    assertTrue(raw.body().contains("\"__type\":\"com.amazonaws.sqs#BadRequest\""), raw.body());
    assertTrue(raw.hasHeader("x-amzn-RequestId"), raw.head());
    assertTrue(raw.hasHeader("X-Request-Id"), raw.head());
  }

  @ParameterizedTest
  @ValueSource(strings = {"Content-Length: abc\r\n", "Content-Length: +5\r\n"})
  void sqsQueryProtocol_answers400_inTheSqsXmlShape_withARequestId(String contentLength) {
    Raw raw =
        send(
            "/000000000000/orders",
            "Content-Type: application/x-www-form-urlencoded\r\n" + contentLength);
    assertTrue(raw.status().contains(" 400 "), raw.head() + "\n" + raw.body());
    assertTrue(raw.body().contains("<Code>BadRequest</Code>"), raw.body());
    assertTrue(raw.body().contains("<RequestId>"), raw.body());
    assertTrue(raw.hasHeader("x-amzn-RequestId"), raw.head());
  }
}
