package io.switchboard.server.api.push;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP/1.1 client of one push subscription: it POSTs each delivery on a kept-alive connection
 * to the subscription's endpoint, blocking on the delivery's own virtual thread (docs/decisions.md,
 * "Push deliveries are sent by a small HTTP/1.1 client of their own"). A connection answered is
 * kept for the next delivery while the endpoint keeps it open (not after {@code Connection: close},
 * an answer without a length, or one longer than {@link #MAX_ANSWER_BYTES}) and for at most {@link
 * #IDLE} unused; there are never more than the deliveries in flight at once.
 *
 * <p>A delivery has one deadline, its timeout from when it starts: connecting (at most {@link
 * #CONNECT_TIMEOUT}), the TLS handshake, writing the request and reading the answer all end by then
 * (a timer closes the connection at the deadline, so a write to an endpoint that reads nothing ends
 * too). A failure before the connection is made is a {@linkplain Failure#CONNECTION connection
 * failure}; after it, running past the deadline is a {@linkplain Failure#TIMEOUT timeout}, and
 * anything else (reset, closed early, an answer that is not HTTP/1.x) a connection failure. A
 * request on a kept-alive connection that the endpoint closed before answering anything, or
 * answered {@code 408} (it closed the connection as idle while the request was on its way), is sent
 * once more, at once, on a new connection: the same delivery, with the same id.
 *
 * <p>Nothing here follows redirects (a 3xx is an answer like any other) or uses a proxy. HTTPS
 * checks the endpoint's certificate against the host name of the URL, with the JVM's trust store
 * unless the server was given another {@link javax.net.ssl.SSLContext}.
 */
final class PushClient implements AutoCloseable {

  /** The most of an answer's body read; a longer answer lists no failures. */
  static final int MAX_ANSWER_BYTES = 256 * 1024;

  /** The most an answer's status line and headers may take. */
  static final int MAX_HEAD_BYTES = 64 * 1024;

  /** The longest a new connection may take to be made, within the delivery's timeout. */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** How long a connection is kept unused before it is closed. */
  static final Duration IDLE = Duration.ofSeconds(30);

  /** Why a request got no answer. */
  enum Failure {
    TIMEOUT,
    CONNECTION
  }

  /** A request that got no answer. */
  static final class Failed extends Exception {
    final Failure failure;

    Failed(Failure failure, String message, @Nullable Throwable cause) {
      super(message, cause, false, false);
      this.failure = failure;
    }
  }

  /** What the endpoint answered: its status, {@code Retry-After}, and its body (cut). */
  record Answer(int status, Optional<String> retryAfter, byte[] body) {}

  private final String host;
  private final int port;
  private final @Nullable SSLSocketFactory tls;
  private final ScheduledExecutorService timer;
  private final long idleNanos;

  /** The request's line and its constant headers, ending with a header's CRLF. */
  private final byte[] head;

  private final ReentrantLock lock = new ReentrantLock();

  /** Connections answered and unused, the most recently used last. */
  private final ArrayDeque<Connection> idle = new ArrayDeque<>();

  /** Every connection open, in use or idle: closed at once by {@link #abort}. */
  private final Set<Connection> open = ConcurrentHashMap.newKeySet();

  private final AtomicInteger connects = new AtomicInteger();
  private boolean closed;

  /**
   * @param uri the endpoint ({@code http} or {@code https}, checked by {@link PushSpec})
   * @param headers the subscription's own headers, sent with every request
   * @param tls how HTTPS connections are made
   * @param timer closes a connection at its delivery's deadline
   */
  PushClient(
      URI uri,
      Map<String, String> headers,
      SSLSocketFactory tls,
      ScheduledExecutorService timer,
      Duration idle) {
    this.host = host(uri);
    boolean https = "https".equalsIgnoreCase(uri.getScheme());
    this.port = uri.getPort() >= 0 ? uri.getPort() : https ? 443 : 80;
    this.tls = https ? tls : null;
    this.timer = timer;
    this.idleNanos = idle.toNanos();
    StringBuilder h = new StringBuilder(256);
    String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    h.append("POST ").append(path);
    if (uri.getRawQuery() != null) {
      h.append('?').append(uri.getRawQuery());
    }
    h.append(" HTTP/1.1\r\nHost: ");
    h.append(host.indexOf(':') >= 0 ? "[" + host + "]" : host);
    if (uri.getPort() >= 0) {
      h.append(':').append(port);
    }
    h.append("\r\nContent-Type: application/json\r\nUser-Agent: switchboard-push\r\n");
    ByteBuilder b = new ByteBuilder(h.length() + 64);
    b.ascii(h);
    for (Map.Entry<String, String> e : headers.entrySet()) {
      // names are tokens, values without control characters (PushSpec): nothing here splits a line
      b.ascii(e.getKey()).ascii(": ").utf8(e.getValue()).ascii("\r\n");
    }
    this.head = b.toArray();
  }

  /** The URL's host, without IPv6 brackets. */
  private static String host(URI uri) {
    String h = Optional.ofNullable(uri.getHost()).orElse("");
    return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
  }

  /**
   * The request of a delivery: the head, the delivery's own headers ({@code name: value} each,
   * ASCII), its length and {@code body}, in one array written at once.
   */
  byte[] request(String deliveryHeader, String signatureHeader, byte[] body) {
    String length = Integer.toString(body.length);
    ByteBuilder b =
        new ByteBuilder(
            head.length + deliveryHeader.length() + signatureHeader.length() + 40 + body.length);
    b.bytes(head, head.length)
        .ascii(deliveryHeader)
        .ascii("\r\n")
        .ascii(signatureHeader)
        .ascii("\r\nContent-Length: ")
        .ascii(length)
        .ascii("\r\n\r\n")
        .bytes(body, body.length);
    return b.toArray();
  }

  /**
   * Sends {@code request} ({@link #request}) to {@code address}, the endpoint's host resolved and
   * checked, and reads the answer, all within {@code timeout}.
   *
   * @throws Failed when there is no answer in time or the connection fails
   */
  Answer post(InetAddress address, byte[] request, Duration timeout) throws Failed {
    long deadline = System.nanoTime() + timeout.toNanos();
    Connection c = pooled(address);
    if (c != null) {
      try {
        return c.exchange(request, deadline, true);
      } catch (Stale closedBeforeAnswering) {
        // the endpoint closed it as idle meanwhile: once more on a new connection
      }
    }
    try {
      return connect(address, deadline).exchange(request, deadline, false);
    } catch (Stale cannotBe) {
      throw new Failed(Failure.CONNECTION, "the connection closed before an answer", cannotBe);
    }
  }

  /** How many connections were made: for tests of the reuse. */
  int connects() {
    return connects.get();
  }

  /** How many connections are open now, in use or idle: for tests. */
  int openConnections() {
    return open.size();
  }

  /** Closes the connections unused for longer than the idle time. */
  void closeIdle() {
    long now = System.nanoTime();
    List<Connection> old = new ArrayList<>();
    lock.lock();
    try {
      for (var it = idle.iterator(); it.hasNext(); ) {
        Connection c = it.next();
        if (now - c.idleSince >= idleNanos) {
          it.remove();
          old.add(c);
        }
      }
    } finally {
      lock.unlock();
    }
    old.forEach(Connection::close);
  }

  /**
   * No more requests: the idle connections close now, those in use when their request ends (a
   * stopped subscription lets its deliveries finish).
   */
  @Override
  public void close() {
    List<Connection> unused;
    lock.lock();
    try {
      closed = true;
      unused = new ArrayList<>(idle);
      idle.clear();
    } finally {
      lock.unlock();
    }
    unused.forEach(Connection::close);
  }

  /** Closes every connection now, those in use too: their requests fail (the server stops). */
  void abort() {
    close();
    for (Connection c : open) {
      c.close();
    }
  }

  private @Nullable Connection pooled(InetAddress address) {
    long now = System.nanoTime();
    List<Connection> drop = new ArrayList<>();
    Connection found = null;
    lock.lock();
    try {
      while (!idle.isEmpty()) {
        Connection c = idle.pollLast();
        if (c.address.equals(address) && now - c.idleSince < idleNanos) {
          found = c;
          break;
        }
        drop.add(c); // idle too long, or the host resolves elsewhere now
      }
    } finally {
      lock.unlock();
    }
    drop.forEach(Connection::close);
    return found;
  }

  private void reuse(Connection c) {
    lock.lock();
    try {
      if (!closed) {
        c.idleSince = System.nanoTime();
        idle.addLast(c);
        return;
      }
    } finally {
      lock.unlock();
    }
    c.close();
  }

  private Connection connect(InetAddress address, long deadline) throws Failed {
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      throw new Failed(Failure.TIMEOUT, "the timeout ran out before a connection was made", null);
    }
    Socket raw = new Socket();
    Connection c = new Connection(raw, address);
    open.add(c);
    connects.incrementAndGet();
    try {
      raw.setTcpNoDelay(true);
      int connectMillis =
          (int)
              Math.max(
                  1, Math.min(CONNECT_TIMEOUT.toMillis(), TimeUnit.NANOSECONDS.toMillis(left)));
      raw.connect(new InetSocketAddress(address, port), connectMillis);
      Socket s = raw;
      if (tls != null) {
        SSLSocket ssl = (SSLSocket) tls.createSocket(raw, host, port, true);
        SSLParameters p = ssl.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        ssl.setSSLParameters(p);
        c.watch(deadline);
        try {
          ssl.startHandshake();
        } finally {
          c.unwatch();
        }
        s = ssl;
      }
      c.opened(s);
      return c;
    } catch (SocketTimeoutException e) {
      c.close();
      throw new Failed(Failure.CONNECTION, "connecting timed out", e);
    } catch (IOException | RuntimeException e) {
      c.close();
      throw new Failed(Failure.CONNECTION, "connecting failed: " + e.getClass().getSimpleName(), e);
    }
  }

  /** A kept-alive connection the endpoint closed before answering anything. */
  private static final class Stale extends Exception {
    Stale(Throwable cause) {
      super(null, cause, false, false);
    }
  }

  /** One connection: its socket, its read buffer, and whether its deadline ran out. */
  private final class Connection {
    final Socket raw;
    final InetAddress address;
    InputStream in = InputStream.nullInputStream();
    OutputStream out = OutputStream.nullOutputStream();
    final byte[] buffer = new byte[8192];
    int pos;
    int limit;
    long idleSince;

    /**
     * The deadline being watched: the number of the watch, its negation once the timer ran out (and
     * closed the socket), 0 when nothing is watched. Numbered so that a timer that ran late for an
     * earlier request never closes the connection under a later one.
     */
    private final AtomicLong watched = new AtomicLong();

    private long watches;
    private @Nullable ScheduledFuture<?> watching;

    Connection(Socket raw, InetAddress address) {
      this.raw = raw;
      this.address = address;
    }

    void opened(Socket s) throws IOException {
      in = s.getInputStream();
      out = s.getOutputStream();
    }

    /** Closes the socket at {@code deadline} unless {@link #unwatch} comes first. */
    void watch(long deadline) {
      long n = ++watches;
      watched.set(n);
      try {
        watching =
            timer.schedule(() -> expire(n), deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException stopping) {
        close(); // the server stops: this request fails as a connection's
      }
    }

    /** Stops watching; false when the deadline came first (the socket is closed then). */
    boolean unwatch() {
      ScheduledFuture<?> w = watching;
      watching = null;
      if (w != null) {
        w.cancel(false);
      }
      return watched.compareAndSet(watches, 0);
    }

    private void expire(long n) {
      if (watched.compareAndSet(n, -n)) {
        close();
      }
    }

    void close() {
      open.remove(this);
      try {
        raw.close(); // the TCP socket under any TLS: no close_notify that could block
      } catch (IOException e) {
        // closed
      }
    }

    /**
     * Writes the request and reads the answer by {@code deadline}; a connection that may serve
     * another request goes back to the pool.
     *
     * @throws Stale when {@code reused} and the endpoint closed it before answering a byte
     */
    Answer exchange(byte[] request, long deadline, boolean reused) throws Failed, Stale {
      if (deadline - System.nanoTime() <= 0) {
        close();
        throw new Failed(Failure.TIMEOUT, "the timeout ran out before the request was sent", null);
      }
      boolean answered = false;
      Answer answer;
      boolean keep;
      pos = 0;
      limit = 0;
      watch(deadline);
      try {
        out.write(request);
        out.flush();
        Head h;
        do {
          h = head(reused);
          answered = true;
        } while (h.status >= 100 && h.status < 200 && h.status != 101);
        if (h.status == 101) {
          throw new IOException("the endpoint switched protocols (101), which no push asks for");
        }
        if (h.status == 408 && reused) {
          // an endpoint closing a connection idle too long may say so first: not this request's
          close();
          unwatch();
          throw new Stale(new IOException("408 on a kept-alive connection"));
        }
        Body body = body(h);
        answer = new Answer(h.status, h.retryAfter, body.bytes);
        keep = h.keepAlive && body.complete;
      } catch (IOException e) {
        boolean timedOut = !unwatch();
        close();
        if (timedOut) {
          throw new Failed(Failure.TIMEOUT, "no answer within the timeout", e);
        }
        if (reused && !answered && pos == 0 && limit <= 0) {
          throw new Stale(e);
        }
        throw new Failed(Failure.CONNECTION, "the connection failed: " + e.getMessage(), e);
      }
      if (unwatch() && keep) {
        reuse(this);
      } else {
        close();
      }
      return answer;
    }

    // ---- reading the answer --------------------------------------------------------------

    private int headBytes;

    /** Fills the buffer with more bytes; false at the end of the stream. */
    private boolean fill() throws IOException {
      if (pos < limit) {
        return true;
      }
      int n = in.read(buffer, 0, buffer.length);
      if (n <= 0) {
        return false;
      }
      pos = 0;
      limit = n;
      return true;
    }

    /** A line of the head, without its CRLF (a bare LF ends one too). */
    private String line() throws IOException {
      StringBuilder s = new StringBuilder(64);
      while (true) {
        if (!fill()) {
          throw new IOException("the answer ended within its head");
        }
        byte b = buffer[pos++];
        if (++headBytes > MAX_HEAD_BYTES) {
          throw new IOException("the answer's head is longer than " + MAX_HEAD_BYTES + " bytes");
        }
        if (b == '\n') {
          int n = s.length();
          return n > 0 && s.charAt(n - 1) == '\r' ? s.substring(0, n - 1) : s.toString();
        }
        s.append((char) (b & 0xff));
      }
    }

    private record Head(
        int status, boolean keepAlive, boolean chunked, long length, Optional<String> retryAfter) {}

    private Head head(boolean reused) throws IOException {
      headBytes = 0;
      if (!fill()) {
        throw new IOException("the connection closed before an answer");
      }
      String status = line();
      // HTTP/1.x SSS reason
      if (status.length() < 12
          || !status.startsWith("HTTP/1.")
          || status.charAt(8) != ' '
          || !Character.isDigit(status.charAt(9))
          || !Character.isDigit(status.charAt(10))
          || !Character.isDigit(status.charAt(11))
          || (status.length() > 12 && status.charAt(12) != ' ')) {
        throw new IOException("the answer is not HTTP/1.x: '" + clip(status) + "'");
      }
      boolean http11 = status.charAt(7) != '0';
      int code = Integer.parseInt(status, 9, 12, 10);
      boolean close = false;
      boolean keepAliveHeader = false;
      boolean chunked = false;
      long length = -1;
      String retryAfter = null;
      for (String line = line(); !line.isEmpty(); line = line()) {
        int colon = line.indexOf(':');
        if (colon <= 0) {
          throw new IOException(
              "the answer has a header line without a name: '" + clip(line) + "'");
        }
        String name = line.substring(0, colon).trim();
        String value = line.substring(colon + 1).trim();
        if (name.equalsIgnoreCase("Content-Length")) {
          long n;
          try {
            n = Long.parseLong(value);
          } catch (NumberFormatException e) {
            throw new IOException(
                "the answer's Content-Length is not a number: '" + clip(value) + "'");
          }
          if (n < 0 || (length >= 0 && length != n)) {
            throw new IOException("the answer's Content-Length is not one length: " + clip(value));
          }
          length = n;
        } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
          String[] codings = value.toLowerCase(Locale.ROOT).split(",");
          chunked = codings[codings.length - 1].trim().equals("chunked");
          if (!chunked) {
            close = true; // read to the end of the stream
          }
        } else if (name.equalsIgnoreCase("Connection")) {
          for (String t : value.toLowerCase(Locale.ROOT).split(",")) {
            close |= t.trim().equals("close");
            keepAliveHeader |= t.trim().equals("keep-alive");
          }
        } else if (name.equalsIgnoreCase("Retry-After") && retryAfter == null) {
          retryAfter = value;
        }
      }
      boolean keepAlive = !close && (http11 || keepAliveHeader);
      return new Head(
          code, keepAlive, chunked, chunked ? -1 : length, Optional.ofNullable(retryAfter));
    }

    private record Body(byte[] bytes, boolean complete) {}

    /**
     * The answer's body, at most {@code MAX_ANSWER_BYTES + 1} bytes of it; complete when all of it
     * was read, so the connection may serve another request.
     */
    private Body body(Head h) throws IOException {
      if (h.status == 204 || h.status == 304 || (h.status >= 100 && h.status < 200)) {
        return new Body(new byte[0], true);
      }
      int most = MAX_ANSWER_BYTES + 1;
      if (h.chunked) {
        ByteBuilder b = new ByteBuilder(256);
        while (true) {
          String sizeLine = line();
          int semi = sizeLine.indexOf(';');
          String hex = (semi >= 0 ? sizeLine.substring(0, semi) : sizeLine).trim();
          long size;
          try {
            size = Long.parseLong(hex, 16);
          } catch (NumberFormatException e) {
            throw new IOException(
                "the answer's chunk size is not hexadecimal: '" + clip(hex) + "'");
          }
          if (size < 0) {
            throw new IOException("the answer's chunk size is negative");
          }
          if (size == 0) {
            headBytes = 0;
            while (!line().isEmpty()) {
              // trailers: none is used
            }
            return new Body(b.toArray(), true);
          }
          long want = Math.min(size, most - b.length());
          read(b, want);
          if (want < size) {
            return new Body(b.toArray(), false); // too long: the rest is not read
          }
          headBytes = 0;
          if (!line().isEmpty()) {
            throw new IOException("the answer's chunk does not end where its size says");
          }
        }
      }
      if (h.length >= 0) {
        ByteBuilder b = new ByteBuilder((int) Math.min(h.length, most));
        read(b, Math.min(h.length, most));
        if (b.length() < h.length) {
          return new Body(b.toArray(), false);
        }
        return new Body(b.toArray(), true);
      }
      // neither a length nor chunks: the body ends with the connection
      ByteBuilder b = new ByteBuilder(256);
      while (b.length() < most && fill()) {
        int n = Math.min(limit - pos, most - b.length());
        b.bytes(buffer, pos, n);
        pos += n;
      }
      return new Body(b.toArray(), false);
    }

    /** Reads exactly {@code n} bytes into {@code b}. */
    private void read(ByteBuilder b, long n) throws IOException {
      long left = n;
      while (left > 0) {
        if (!fill()) {
          throw new IOException("the answer ended before its body did");
        }
        int k = (int) Math.min(left, limit - pos);
        b.bytes(buffer, pos, k);
        pos += k;
        left -= k;
      }
    }
  }

  private static String clip(String s) {
    return s.length() > 100 ? s.substring(0, 100) + "..." : s;
  }

  /** A growing byte array. */
  static final class ByteBuilder {
    private byte[] bytes;
    private int length;

    ByteBuilder(int capacity) {
      bytes = new byte[Math.max(16, capacity)];
    }

    int length() {
      return length;
    }

    private void room(int n) {
      if (length + n > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + n));
      }
    }

    ByteBuilder bytes(byte[] b, int n) {
      return bytes(b, 0, n);
    }

    ByteBuilder bytes(byte[] b, int from, int n) {
      room(n);
      System.arraycopy(b, from, bytes, length, n);
      length += n;
      return this;
    }

    /** Characters below 128 (what the callers give: header names, numbers, hex). */
    ByteBuilder ascii(CharSequence s) {
      int n = s.length();
      room(n);
      for (int i = 0; i < n; i++) {
        bytes[length++] = (byte) s.charAt(i);
      }
      return this;
    }

    ByteBuilder utf8(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      return bytes(b, b.length);
    }

    byte[] toArray() {
      return length == bytes.length ? bytes : Arrays.copyOf(bytes, length);
    }
  }
}
