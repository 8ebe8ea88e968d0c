package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Queue URLs name {@code public-url} when it is set, and never a {@code Host} that is not one of
 * the server's names: a signed request cannot plant another host into the URLs a server hands out.
 */
class SqsPublicUrlTest {

  private static final String KEY = "AKIDPUBLIC";
  private static final String SECRET = "public-secret";

  private static SwitchboardServer keyed(Map<String, String> extra) {
    Map<String, String> flags = new LinkedHashMap<>(extra);
    flags.putAll(Map.of("port", "0", "in-memory", "true", "sqs-access-keys", KEY + ":" + SECRET));
    return SwitchboardServer.start(ServerConfig.resolve(flags, Map.of()));
  }

  @Test
  void publicUrl_namesQueueUrls_forSdkClients() {
    try (SwitchboardServer server = keyed(Map.of("public-url", "https://sqs.example.com/"));
        SqsClient sqs = SqsClients.v2(server.uri(), KEY, SECRET)) {
      String url = sqs.createQueue(b -> b.queueName("pub")).queueUrl();
      assertEquals("https://sqs.example.com/000000000000/pub", url);
      assertEquals(List.of(url), sqs.listQueues(b -> b.queueNamePrefix("pub")).queueUrls());
      // the URL it named addresses the queue
      sqs.sendMessage(b -> b.queueUrl(url).messageBody("m"));
      assertEquals(
          "1",
          sqs.getQueueAttributes(
                  b -> b.queueUrl(url).attributeNamesWithStrings("ApproximateNumberOfMessages"))
              .attributesAsStrings()
              .get("ApproximateNumberOfMessages"));
    }
  }

  @Test
  void withoutPublicUrl_aForeignHostIsNotEchoedIntoQueueUrls() throws IOException {
    try (SwitchboardServer server = keyed(Map.of())) {
      String answer = signedCreateQueue(server, "evil.example:8080", "echo");
      assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
      assertFalse(answer.contains("evil.example"), answer);
      assertTrue(
          answer.contains(
              "\"QueueUrl\":\"http://127.0.0.1:" + server.port() + "/000000000000/echo"),
          answer);
      // a loopback Host is still what the client used
      String local = signedCreateQueue(server, "localhost:" + server.port(), "echo2");
      assertTrue(
          local.contains(
              "\"QueueUrl\":\"http://localhost:" + server.port() + "/000000000000/echo2"),
          local);
    }
  }

  /** A JSON-protocol CreateQueue signed for {@code host}, sent with that Host; the raw answer. */
  private static String signedCreateQueue(SwitchboardServer server, String host, String name)
      throws IOException {
    byte[] body = ("{\"QueueName\":\"" + name + "\"}").getBytes(StandardCharsets.UTF_8);
    Map<String, List<String>> h = new LinkedHashMap<>();
    h.put("content-type", List.of("application/x-amz-json-1.0"));
    h.put("host", List.of(host));
    h.put("x-amz-date", List.of(SigV4Requests.amzDate(Instant.now())));
    h.put("x-amz-target", List.of("AmazonSQS.CreateQueue"));
    String authorization = SigV4Requests.authorization(KEY, SECRET, "POST", "/", "", h, body);
    StringBuilder head = new StringBuilder("POST / HTTP/1.1\r\n");
    h.forEach((k, v) -> head.append(k).append(": ").append(v.get(0)).append("\r\n"));
    head.append("authorization: ").append(authorization).append("\r\n");
    head.append("content-length: ").append(body.length).append("\r\nconnection: close\r\n\r\n");
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      while (!got.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("connection closed in the head: " + got);
        }
        got.write(b);
      }
      String text = got.toString(StandardCharsets.US_ASCII);
      int length = 0;
      for (String line : text.split("\r\n")) {
        if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
          length = Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
        }
      }
      return text + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }
  }
}
