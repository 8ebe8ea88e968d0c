package io.switchboard.server.api.push;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.switchboard.server.sqs.TestPki;
import io.switchboard.testing.FreePorts;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The push deliveries' HTTP/1.1 client against the JDK's HTTP server and against raw sockets that
 * answer what a real endpoint may: connections kept alive and reused, an endpoint that closed one,
 * answers in chunks, without a length, too long or not HTTP, a timeout while the endpoint neither
 * answers nor reads, a refused connection, and HTTPS with the endpoint's certificate checked.
 */
class PushClientTest {

  private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
  private static final SSLSocketFactory DEFAULT_TLS =
      (SSLSocketFactory) SSLSocketFactory.getDefault();

  private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
  private final List<AutoCloseable> toClose = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
    timer.shutdownNow();
  }

  private PushClient client(String url, Map<String, String> headers, SSLSocketFactory tls) {
    PushClient c = new PushClient(URI.create(url), headers, tls, timer, PushClient.IDLE);
    toClose.add(c);
    return c;
  }

  private static byte[] request(PushClient c, String body) {
    return c.request(
        "X-Switchboard-Delivery: d-1",
        "X-Switchboard-Signature: t=1,v1=ab",
        body.getBytes(StandardCharsets.UTF_8));
  }

  /** What the JDK's server got: the request line's path, the headers, the body. */
  private record Got(String uri, Map<String, List<String>> headers, String body) {}

  private HttpServer jdkServer(BiConsumer<HttpExchange, Got> answer) throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress(LOOPBACK, 0), 0);
    s.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    s.createContext(
        "/",
        x -> {
          try (x) {
            Got g =
                new Got(
                    x.getRequestURI().toString(),
                    Map.copyOf(x.getRequestHeaders()),
                    new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            answer.accept(x, g);
          }
        });
    s.start();
    toClose.add(() -> s.stop(0));
    return s;
  }

  private static void send(HttpExchange x, int status, String body) {
    try {
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      x.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
      if (b.length > 0) {
        x.getResponseBody().write(b);
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Requests one after the other share one connection; each carries the request line, the host, the
   * subscription's headers, the delivery's headers and its body as given.
   */
  @Test
  void requestsInTurn_shareOneConnection_andCarryEveryHeader() throws Exception {
    List<Got> got = new CopyOnWriteArrayList<>();
    HttpServer s =
        jdkServer(
            (x, g) -> {
              got.add(g);
              send(x, 200, "ok " + got.size());
            });
    int port = s.getAddress().getPort();
    PushClient c =
        client(
            "http://127.0.0.1:" + port + "/hooks/in?x=1&y=%20",
            Map.of("Authorization", "Bearer é"),
            DEFAULT_TLS);
    for (int i = 1; i <= 3; i++) {
      PushClient.Answer a =
          c.post(LOOPBACK, request(c, "{\"n\":" + i + "}"), Duration.ofSeconds(5));
      assertEquals(200, a.status());
      assertEquals("ok " + i, new String(a.body(), StandardCharsets.UTF_8));
    }
    assertEquals(1, c.connects(), "one connection, kept alive");
    Got first = got.get(0);
    assertEquals("/hooks/in?x=1&y=%20", first.uri());
    assertEquals("{\"n\":1}", first.body());
    assertEquals(List.of("127.0.0.1:" + port), first.headers().get("Host"));
    assertEquals(List.of("application/json"), first.headers().get("Content-type"));
    assertEquals(List.of("switchboard-push"), first.headers().get("User-agent"));
    assertEquals(List.of("d-1"), first.headers().get("X-switchboard-delivery"));
    assertEquals(List.of("t=1,v1=ab"), first.headers().get("X-switchboard-signature"));
    // the JDK's server reads header values as ISO-8859-1: the UTF-8 bytes of "é", as sent
    assertEquals(
        List.of(
            new String("Bearer é".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1)),
        first.headers().get("Authorization"));
  }

  /** Deliveries at once each get a connection of their own, all kept for the next ones. */
  @Test
  void concurrentRequests_eachGetAConnection_keptForTheNext() throws Exception {
    CountDownLatch together = new CountDownLatch(4);
    HttpServer s =
        jdkServer(
            (x, g) -> {
              together.countDown();
              try {
                together.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              send(x, 204, "");
            });
    PushClient c =
        client("http://127.0.0.1:" + s.getAddress().getPort() + "/", Map.of(), DEFAULT_TLS);
    for (int round = 0; round < 2; round++) {
      List<Thread> threads = new ArrayList<>();
      AtomicInteger ok = new AtomicInteger();
      for (int i = 0; i < 4; i++) {
        threads.add(
            Thread.ofVirtual()
                .start(
                    () -> {
                      try {
                        if (c.post(LOOPBACK, request(c, "{}"), Duration.ofSeconds(5)).status()
                            == 204) {
                          ok.incrementAndGet();
                        }
                      } catch (PushClient.Failed e) {
                        throw new AssertionError(e);
                      }
                    }));
      }
      for (Thread t : threads) {
        t.join();
      }
      assertEquals(4, ok.get());
      if (round == 0) {
        assertEquals(4, c.connects(), "four at once: four connections");
      }
    }
    assertEquals(4, c.connects(), "the second round reused the four");
    c.close();
    assertEquals(0, c.openConnections(), "closing the client closes the idle connections");
  }

  /**
   * An endpoint on a raw socket: each accepted connection is handed to {@code serve} on a thread of
   * its own; {@code accepted} counts the connections.
   */
  private ServerSocket rawServer(AtomicInteger accepted, RawHandler serve) throws IOException {
    ServerSocket server = new ServerSocket(0, 50, LOOPBACK);
    toClose.add(server);
    Thread.ofVirtual()
        .start(
            () -> {
              while (!server.isClosed()) {
                try {
                  Socket s = server.accept();
                  accepted.incrementAndGet();
                  toClose.add(s);
                  Thread.ofVirtual()
                      .start(
                          () -> {
                            try (s) {
                              serve.serve(s.getInputStream(), s.getOutputStream());
                            } catch (IOException e) {
                              // the client went away
                            }
                          });
                } catch (IOException e) {
                  return;
                }
              }
            });
    return server;
  }

  @FunctionalInterface
  private interface RawHandler {
    void serve(InputStream in, OutputStream out) throws IOException;
  }

  /** Reads one request (head and a Content-Length body); its head, or null at the stream's end. */
  private static String readRequest(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int b;
    int matched = 0;
    while (matched < 4 && (b = in.read()) >= 0) {
      head.write(b);
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    if (matched < 4) {
      return null;
    }
    String h = head.toString(StandardCharsets.ISO_8859_1);
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(?i)content-length: (\\d+)").matcher(h);
    if (m.find()) {
      in.readNBytes(Integer.parseInt(m.group(1)));
    }
    return h;
  }

  private static void write(OutputStream out, String s) throws IOException {
    out.write(s.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  /**
   * An endpoint that closes a connection after answering, without saying so: the next request on it
   * finds it closed before any answer and is sent once more on a new connection, which the endpoint
   * gets once.
   */
  @Test
  void aConnectionTheEndpointClosed_isReplaced_andTheRequestSentOnce() throws Exception {
    AtomicInteger accepted = new AtomicInteger();
    List<String> requests = new CopyOnWriteArrayList<>();
    ServerSocket s =
        rawServer(
            accepted,
            (in, out) -> {
              String h = readRequest(in);
              if (h != null) {
                requests.add(h);
                write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
              }
              // closed here, as an endpoint whose idle timeout ran out
            });
    PushClient c = client("http://127.0.0.1:" + s.getLocalPort() + "/", Map.of(), DEFAULT_TLS);
    assertEquals(200, c.post(LOOPBACK, request(c, "{}"), Duration.ofSeconds(5)).status());
    io.switchboard.testing.Await.until(
        () -> accepted.get() == 1 && requests.size() == 1, "the first request");
    PushClient.Answer second = c.post(LOOPBACK, request(c, "{}"), Duration.ofSeconds(5));
    assertEquals(200, second.status());
    assertEquals(2, c.connects(), "a new connection for the second request");
    assertEquals(2, requests.size(), "each request reached the endpoint once");
  }

  /**
   * Answers the client must read whole or not at all: in chunks (with an extension and a trailer),
   * after a {@code 100 Continue}, with {@code Connection: close}, without a length (read to the
   * end, not reused), and longer than the most read (cut, not reused).
   */
  @Test
  void answersInEveryFraming_areRead_andOnlyCompleteOnesKeepTheirConnection() throws Exception {
    String big = "x".repeat(PushClient.MAX_ANSWER_BYTES + 10);
    String[] answers = {
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n"
          + "Trailer-A: x\r\n\r\n",
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many\r\nRetry-After: 7\r\nContent-Length: 0\r\n"
          + "\r\n",
      "HTTP/1.1 500 Oops\r\nConnection: close\r\nContent-Length: 3\r\n\r\nbad",
      "HTTP/1.0 200 OK\r\n\r\nto the end",
      "HTTP/1.1 200 OK\r\nContent-Length: " + big.length() + "\r\n\r\n" + big,
    };
    AtomicInteger accepted = new AtomicInteger();
    AtomicInteger next = new AtomicInteger();
    ServerSocket s =
        rawServer(
            accepted,
            (in, out) -> {
              while (readRequest(in) != null) {
                int i = next.getAndIncrement();
                write(out, answers[i]);
                if (i >= 2) {
                  return; // close-delimited and cut answers end with the connection
                }
              }
            });
    PushClient c = client("http://127.0.0.1:" + s.getLocalPort() + "/", Map.of(), DEFAULT_TLS);
    Duration t = Duration.ofSeconds(5);
    PushClient.Answer chunked = c.post(LOOPBACK, request(c, "{}"), t);
    assertEquals(200, chunked.status());
    assertEquals("{\"a\":1}", new String(chunked.body(), StandardCharsets.UTF_8));
    PushClient.Answer throttled = c.post(LOOPBACK, request(c, "{}"), t);
    assertEquals(429, throttled.status(), "past the 100 Continue");
    assertEquals(java.util.Optional.of("7"), throttled.retryAfter());
    assertEquals(1, c.connects(), "both complete: one connection so far");
    PushClient.Answer closing = c.post(LOOPBACK, request(c, "{}"), t);
    assertEquals(500, closing.status());
    assertEquals("bad", new String(closing.body(), StandardCharsets.UTF_8));
    PushClient.Answer toTheEnd = c.post(LOOPBACK, request(c, "{}"), t);
    assertEquals(2, c.connects(), "Connection: close was not reused");
    assertEquals("to the end", new String(toTheEnd.body(), StandardCharsets.UTF_8));
    PushClient.Answer cut = c.post(LOOPBACK, request(c, "{}"), t);
    assertEquals(3, c.connects(), "an answer without a length was not reused");
    assertEquals(PushClient.MAX_ANSWER_BYTES + 1, cut.body().length, "read up to one byte past");
    assertEquals(0, c.openConnections(), "the cut answer's connection is not kept");
  }

  /** An answer that is not HTTP, or whose head never ends, fails as a connection failure. */
  @Test
  void anAnswerThatIsNotHttp_failsAsAConnectionFailure() throws Exception {
    String[] answers = {
      "SSH-2.0-OpenSSH_9.6\r\n\r\n",
      "HTTP/1.1 200 OK\r\n" + "X-Long: y\r\n".repeat(10_000) + "\r\n",
    };
    AtomicInteger next = new AtomicInteger();
    ServerSocket s =
        rawServer(
            new AtomicInteger(),
            (in, out) -> {
              readRequest(in);
              write(out, answers[next.getAndIncrement()]);
            });
    PushClient c = client("http://127.0.0.1:" + s.getLocalPort() + "/", Map.of(), DEFAULT_TLS);
    for (int i = 0; i < answers.length; i++) {
      PushClient.Failed f =
          assertThrows(
              PushClient.Failed.class,
              () -> c.post(LOOPBACK, request(c, "{}"), Duration.ofSeconds(5)));
      assertEquals(PushClient.Failure.CONNECTION, f.failure, f.getMessage());
    }
    assertEquals(0, c.openConnections());
  }

  /**
   * An endpoint that accepts and then neither answers nor reads: the delivery ends at its timeout,
   * a large request's write included, as a timeout; its connection is closed.
   */
  @Test
  void anEndpointThatNeitherAnswersNorReads_timesOut_evenInTheMiddleOfAWrite() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    toClose.add(never::countDown);
    ServerSocket s =
        rawServer(
            new AtomicInteger(),
            (in, out) -> {
              try {
                never.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    PushClient c = client("http://127.0.0.1:" + s.getLocalPort() + "/", Map.of(), DEFAULT_TLS);
    PushClient.Failed small =
        assertThrows(
            PushClient.Failed.class,
            () -> c.post(LOOPBACK, request(c, "{}"), Duration.ofMillis(300)));
    assertEquals(PushClient.Failure.TIMEOUT, small.failure);
    String huge = "\"" + "y".repeat(32 << 20) + "\"";
    PushClient.Failed large =
        assertThrows(
            PushClient.Failed.class,
            () -> c.post(LOOPBACK, request(c, huge), Duration.ofMillis(300)));
    assertEquals(PushClient.Failure.TIMEOUT, large.failure, "the write ended at the deadline");
    assertEquals(0, c.openConnections());
  }

  /** Nothing listening at the port: a connection failure. */
  @Test
  void nothingListening_isAConnectionFailure() {
    PushClient c = client("http://127.0.0.1:" + FreePorts.free() + "/", Map.of(), DEFAULT_TLS);
    PushClient.Failed f =
        assertThrows(
            PushClient.Failed.class,
            () -> c.post(LOOPBACK, request(c, "{}"), Duration.ofSeconds(5)));
    assertEquals(PushClient.Failure.CONNECTION, f.failure);
  }

  /**
   * HTTPS: an endpoint whose certificate the client's trust store vouches for is reached, over one
   * kept-alive connection; one it does not vouch for is refused as a connection failure.
   */
  @Test
  void https_trustedEndpoint_isReached_anUntrustedOneRefused() throws Exception {
    TestPki.Issued ca = TestPki.ca("Push CA");
    TestPki.Issued cert = TestPki.server(ca, "receiver");
    HttpsServer s = HttpsServer.create(new InetSocketAddress(LOOPBACK, 0), 0);
    s.setHttpsConfigurator(new HttpsConfigurator(TestPki.context(cert, ca.cert())));
    s.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    s.createContext(
        "/",
        x -> {
          try (x) {
            byte[] body = x.getRequestBody().readAllBytes();
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
          }
        });
    s.start();
    toClose.add(() -> s.stop(0));
    String url = "https://127.0.0.1:" + s.getAddress().getPort() + "/";
    SSLContext trusting = TestPki.context(null, ca.cert());
    PushClient c = client(url, Map.of(), trusting.getSocketFactory());
    for (int i = 0; i < 2; i++) {
      PushClient.Answer a =
          c.post(LOOPBACK, request(c, "{\"i\":" + i + "}"), Duration.ofSeconds(10));
      assertEquals(200, a.status());
      assertArrayEquals(("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8), a.body());
    }
    assertEquals(1, c.connects());
    PushClient untrusting = client(url, Map.of(), DEFAULT_TLS);
    PushClient.Failed f =
        assertThrows(
            PushClient.Failed.class,
            () -> untrusting.post(LOOPBACK, request(untrusting, "{}"), Duration.ofSeconds(10)));
    assertEquals(PushClient.Failure.CONNECTION, f.failure);
    assertEquals(0, untrusting.openConnections());
  }
}
