package io.switchboard.server.http;

import io.helidon.common.buffers.BufferData;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.http.Status;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http1.Http1ConnectionListener;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code read-timeout}: a connection that pauses longer than it while sending a request (its
 * request line, headers or body) is closed, so slow clients cannot hold connections and threads
 * (docs/operations.md, "Connections"). Helidon's own read timeout is a client setting, and its idle
 * timeout does not stop a request whose line has arrived; this listener hears every byte the server
 * reads and a sweeper closes the sockets that went quiet mid-request.
 *
 * <p>A request is being received from its first byte until its headers, when it has no body, or
 * until a handler has read its body ({@link #bodyRead}) or the answer starts. Writing an answer,
 * however slowly (a long poll's wait, an event stream), is never timed: the clock only runs while
 * the server waits for the client. Each HTTP/1 connection is served by one thread, which is how
 * {@link #bodyRead} finds its connection.
 */
public final class ReadTimeouts implements Http1ConnectionListener, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ReadTimeouts.class);

  /** The request being received on each connection thread, of every server in this JVM. */
  private static final Map<Thread, Receiving> RECEIVING = new ConcurrentHashMap<>();

  private final long timeoutNanos;
  private final ScheduledExecutorService sweeper;
  private final java.util.concurrent.atomic.AtomicLong cut =
      new java.util.concurrent.atomic.AtomicLong();

  private static final class Receiving {
    final ReadTimeouts owner;
    final ConnectionContext ctx;
    volatile long lastByteNanos = System.nanoTime();

    Receiving(ReadTimeouts owner, ConnectionContext ctx) {
      this.owner = owner;
      this.ctx = ctx;
    }
  }

  private final ConnectionLimits connections;

  /**
   * @param connections the accepted connections, of which this closes those that send nothing for
   *     the timeout
   */
  public ReadTimeouts(Duration timeout, ConnectionLimits connections) {
    this.timeoutNanos = timeout.toNanos();
    this.connections = connections;
    this.sweeper =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "switchboard-read-timeouts");
              t.setDaemon(true);
              return t;
            });
    long periodMillis = Math.max(50, timeout.toMillis() / 5);
    sweeper.scheduleAtFixedRate(this::sweep, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  /** The handler on this thread has read its request's body: the rest is answering. */
  static void bodyRead() {
    RECEIVING.remove(Thread.currentThread());
  }

  @Override
  public void data(ConnectionContext ctx, BufferData data) {
    progress(ctx);
  }

  @Override
  public void data(ConnectionContext ctx, byte[] bytes, int offset, int length) {
    progress(ctx);
  }

  @Override
  public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
    progress(ctx);
  }

  @Override
  public void headers(ConnectionContext ctx, Headers headers) {
    boolean hasBody;
    try {
      hasBody =
          headers.contains(HeaderNames.TRANSFER_ENCODING) || headers.contentLength().orElse(0) > 0;
    } catch (IllegalArgumentException malformed) {
      // a Content-Length that is not one decimal number: Helidon refuses the request next (400,
      // answered by the server's direct handler), before reading any body
      hasBody = false;
    }
    if (hasBody) {
      progress(ctx);
    } else {
      RECEIVING.remove(Thread.currentThread());
    }
  }

  /** The send listener: an answer starting (e.g. one that did not read the body) ends receiving. */
  public Http1ConnectionListener answering() {
    return new Http1ConnectionListener() {
      @Override
      public void status(ConnectionContext ctx, Status status) {
        RECEIVING.remove(Thread.currentThread());
      }
    };
  }

  /** Bytes arrived: the request (a new one if none was being received) is making progress. */
  private void progress(ConnectionContext ctx) {
    Receiving r = RECEIVING.get(Thread.currentThread());
    if (r == null || r.ctx != ctx) {
      connections.spoke(ctx.remotePeer().address());
      RECEIVING.put(Thread.currentThread(), new Receiving(this, ctx));
    } else {
      r.lastByteNanos = System.nanoTime();
    }
  }

  private void sweep() {
    long now = System.nanoTime();
    int silent = connections.closeSilent(now, timeoutNanos);
    if (silent > 0) {
      cut.addAndGet(silent);
      LOG.atDebug()
          .addKeyValue("connections", silent)
          .log("closed connections that sent nothing (read-timeout)");
    }
    RECEIVING.forEach(
        (thread, r) -> {
          if (r.owner != this) {
            return;
          }
          if (!thread.isAlive()) {
            RECEIVING.remove(thread, r);
          } else if (now - r.lastByteNanos > timeoutNanos && RECEIVING.remove(thread, r)) {
            cut.incrementAndGet();
            LOG.atDebug()
                .addKeyValue("remote", r.ctx.remotePeer().address())
                .log("closing a connection that stopped sending its request (read-timeout)");
            try {
              r.ctx.serverSocket().close();
            } catch (RuntimeException e) {
              LOG.atDebug().setCause(e).log("closing a timed out connection failed");
            }
          }
        });
  }

  /** Requests cut off by the read timeout since the start. */
  public long cut() {
    return cut.get();
  }

  @Override
  public void close() {
    sweeper.shutdownNow();
    RECEIVING.values().removeIf(r -> r.owner == this);
  }
}
