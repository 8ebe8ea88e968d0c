package io.switchboard.bench.sqs;

import io.switchboard.bench.e2e.ClosedLoop.Cycle;
import io.switchboard.bench.e2e.ClosedLoop.CycleFactory;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The cheap load generator of {@link SqsBench}: the same SQS JSON-protocol requests the AWS SDK v2
 * sends ({@code POST /}, {@code X-Amz-Target: AmazonSQS.<Action>}, {@code
 * application/x-amz-json-1.0}), written as pre-built bytes on one blocking keep-alive socket per
 * thread, with the answers scanned for what the next request needs (receipt handles, failed
 * entries) instead of parsed. No signing (both servers run without access keys), no object model,
 * no pool: the client's CPU per request is a small fraction of the SDK's, so more of the machine
 * goes to the servers compared.
 *
 * <p>Sends and receives are built once per thread; a delete is its prefix bytes, the receipts as
 * they came (still JSON-escaped) and a fixed suffix.
 */
public final class LeanSqs implements AutoCloseable {

  private final URI endpoint;
  private final String host;
  private final Map<Integer, Connection> connections = new ConcurrentHashMap<>();

  public LeanSqs(URI endpoint) {
    this.endpoint = endpoint;
    this.host = endpoint.getHost() + ":" + endpoint.getPort();
  }

  /**
   * The no-op ceiling: {@code POST /v1/noop}, {@code application/json}, a body the size of a
   * DeleteMessage's with a 64-character receipt.
   */
  CycleFactory noop() {
    byte[] body =
        json(
            "{\"QueueUrl\":\""
                + endpoint
                + "/000000000000/noop\",\"ReceiptHandle\":\""
                + "x".repeat(64)
                + "\"}");
    return post("/v1/noop", "application/json", body, 0);
  }

  /**
   * One {@code POST path} of {@code body} per cycle (built once), on the thread's connection; a 2xx
   * answer counts {@code messages} moved, anything else a failure. The answer is read, not parsed.
   * For the HTTP stack comparison ({@code io.switchboard.bench.http}).
   */
  public CycleFactory post(String path, String contentType, byte[] body, long messages) {
    byte[] request = request(path, contentType, null, body);
    return index -> {
      Connection c = connection(index);
      return () -> {
        Answer a = c.exchange(request);
        boolean ok = a.status / 100 == 2;
        return new long[] {ok ? messages : 0, 1, ok ? 0 : 1};
      };
    };
  }

  CycleFactory cycle(SqsBench.Shape shape, String queueUrl) {
    return switch (shape) {
      case SINGLE -> index -> single(queueUrl, connection(index), index);
      case BATCH -> index -> batch(queueUrl, connection(index), index);
    };
  }

  private Cycle single(String queueUrl, Connection c, int thread) {
    String q = "{\"QueueUrl\":\"" + queueUrl + "\"";
    byte[] send =
        action("SendMessage", q + ",\"MessageBody\":\"" + SqsLoad.body(thread, 0) + "\"}");
    byte[] receive =
        action("ReceiveMessage", q + ",\"MaxNumberOfMessages\":1,\"WaitTimeSeconds\":0}");
    byte[] deletePrefix = json(q + ",\"ReceiptHandle\":\"");
    byte[] deleteSuffix = json("\"}");
    return () -> {
      long failed = c.exchange(send).status == 200 ? 0 : 1;
      Answer got = c.exchange(receive);
      List<String> receipts = got.receipts();
      for (String r : receipts) {
        Answer d = c.exchange(action("DeleteMessage", deletePrefix, json(r), deleteSuffix));
        failed += d.status == 200 ? 0 : 1;
      }
      return new long[] {
        receipts.size(), 2 + receipts.size(), failed + (got.status == 200 ? 0 : 1)
      };
    };
  }

  private Cycle batch(String queueUrl, Connection c, int thread) {
    String q = "{\"QueueUrl\":\"" + queueUrl + "\"";
    StringBuilder entries = new StringBuilder(q).append(",\"Entries\":[");
    for (int i = 0; i < SqsBench.Shape.BATCH.messages; i++) {
      entries
          .append(i == 0 ? "" : ",")
          .append("{\"Id\":\"")
          .append(i)
          .append("\",\"MessageBody\":\"")
          .append(SqsLoad.body(thread, i))
          .append("\"}");
    }
    byte[] send = action("SendMessageBatch", entries.append("]}").toString());
    byte[] receive =
        action(
            "ReceiveMessage",
            q
                + ",\"MaxNumberOfMessages\":"
                + SqsBench.Shape.BATCH.messages
                + ",\"WaitTimeSeconds\":0}");
    byte[] deletePrefix = json(q + ",\"Entries\":[");
    return () -> {
      Answer sent = c.exchange(send);
      long failed = sent.status == 200 ? sent.failedEntries() : SqsBench.Shape.BATCH.messages;
      Answer got = c.exchange(receive);
      List<String> receipts = got.receipts();
      if (receipts.isEmpty()) {
        return new long[] {0, 2, failed + (got.status == 200 ? 0 : 1)};
      }
      ByteArrayOutputStream body = new ByteArrayOutputStream(deletePrefix.length + 128 * 10);
      body.writeBytes(deletePrefix);
      for (int i = 0; i < receipts.size(); i++) {
        body.writeBytes(
            json(
                (i == 0 ? "" : ",")
                    + "{\"Id\":\""
                    + i
                    + "\",\"ReceiptHandle\":\""
                    + receipts.get(i)
                    + "\"}"));
      }
      body.writeBytes(json("]}"));
      Answer deleted = c.exchange(action("DeleteMessageBatch", body.toByteArray()));
      long notDeleted = deleted.status == 200 ? deleted.failedEntries() : receipts.size();
      return new long[] {receipts.size() - notDeleted, 3, failed + notDeleted};
    };
  }

  private byte[] action(String name, String body) {
    return action(name, json(body));
  }

  private byte[] action(String name, byte[]... body) {
    return request("/", "application/x-amz-json-1.0", "AmazonSQS." + name, body);
  }

  private byte[] request(String path, String contentType, @Nullable String target, byte[]... body) {
    int length = 0;
    for (byte[] b : body) {
      length += b.length;
    }
    String head =
        "POST "
            + path
            + " HTTP/1.1\r\nHost: "
            + host
            + "\r\nContent-Type: "
            + contentType
            + (target == null ? "" : "\r\nX-Amz-Target: " + target)
            + "\r\nContent-Length: "
            + length
            + "\r\n\r\n";
    ByteArrayOutputStream out = new ByteArrayOutputStream(head.length() + length);
    out.writeBytes(json(head));
    for (byte[] b : body) {
      out.writeBytes(b);
    }
    return out.toByteArray();
  }

  private static byte[] json(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Thread {@code index}'s connection, kept from one measurement to the next. */
  private Connection connection(int index) {
    return connections.computeIfAbsent(index, i -> new Connection(endpoint));
  }

  @Override
  public void close() {
    for (Connection c : connections.values()) {
      c.close();
    }
    connections.clear();
  }

  /** An answer: the status and the body as text (answers here are small). */
  record Answer(int status, String body) {

    /** Every {@code "ReceiptHandle":"..."} value, still JSON-escaped. */
    List<String> receipts() {
      List<String> out = new ArrayList<>(10);
      String key = "\"ReceiptHandle\":";
      for (int at = body.indexOf(key); at >= 0; at = body.indexOf(key, at)) {
        int start = body.indexOf('"', at + key.length()) + 1;
        int end = start;
        while (body.charAt(end) != '"') {
          end += body.charAt(end) == '\\' ? 2 : 1;
        }
        out.add(body.substring(start, end));
        at = end;
      }
      return out;
    }

    /** How many entries the answer's {@code "Failed"} list holds (0 when it has none). */
    long failedEntries() {
      int at = body.indexOf("\"Failed\":");
      if (at < 0) {
        return 0;
      }
      int open = body.indexOf('[', at);
      int close = body.indexOf(']', open);
      long n = 0;
      for (int i = body.indexOf("\"Id\"", open);
          i >= 0 && i < close;
          i = body.indexOf("\"Id\"", i + 1)) {
        n++;
      }
      return n;
    }
  }

  /** One blocking HTTP/1.1 keep-alive connection; answers with a Content-Length or chunked. */
  private static final class Connection {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    Connection(URI endpoint) {
      try {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(60_000);
        socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 5_000);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    Answer exchange(byte[] request) throws IOException {
      out.write(request);
      out.flush();
      String status = line();
      if (status == null) {
        throw new IOException("the server closed the connection");
      }
      int code = Integer.parseInt(status.substring(9, 12));
      long length = -1;
      boolean chunked = false;
      for (String h; !(h = line()).isEmpty(); ) {
        int colon = h.indexOf(':');
        String name = h.substring(0, colon);
        if (name.equalsIgnoreCase("Content-Length")) {
          length = Long.parseLong(h.substring(colon + 1).trim());
        } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
          chunked = h.regionMatches(true, colon + 1, " chunked", 0, 8);
        }
      }
      byte[] body;
      if (chunked) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int size; (size = Integer.parseInt(line().split(";")[0].trim(), 16)) > 0; ) {
          b.writeBytes(in.readNBytes(size));
          line();
        }
        while (!line().isEmpty()) {
          // trailers
        }
        body = b.toByteArray();
      } else {
        body = length > 0 ? in.readNBytes((int) length) : new byte[0];
      }
      return new Answer(code, new String(body, StandardCharsets.UTF_8));
    }

    private String line() throws IOException {
      StringBuilder s = new StringBuilder(64);
      for (int b; (b = in.read()) != '\n'; ) {
        if (b < 0) {
          if (s.isEmpty()) {
            throw new java.io.EOFException("the server closed the connection mid-answer");
          }
          return s.toString();
        }
        if (b != '\r') {
          s.append((char) b);
        }
      }
      return s.toString();
    }

    void close() {
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }
}
