package io.switchboard.server.http;

import io.helidon.common.socket.SocketOptions;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The caps on open connections, {@code max-connections} in all and {@code
 * max-connections-per-address} from one client address (docs/operations.md, "Connections"), counted
 * from the moment a connection is accepted, before it sends a byte, so that clients that connect
 * and say nothing are held by the caps too.
 *
 * <p>Helidon's own {@code maxTcpConnections} stops accepting when full, which leaves every new
 * client (the well-behaved ones too) hanging in the kernel's backlog, and it has no per-address
 * cap. Instead, these options are the listener's socket options: Helidon configures every socket it
 * accepts with them ({@link #configureSocket(SocketChannel)}) before it hands it to a connection
 * handler, which is where a connection over a cap is answered {@code 503} (the server is full) or
 * {@code 429} (this address holds its share), with {@code Retry-After: 1} and the code {@code
 * TOO_MANY_CONNECTIONS}, and closed at once; nothing of it is read and no thread is spent on it. A
 * connection is counted until its socket is closed, by whichever side; closed sockets are swept out
 * of the count when a cap is reached and when the metrics are read.
 *
 * <p>Only the listener's accept thread adds connections; the lock is shared with the sweeps.
 */
public final class ConnectionLimits implements SocketOptions {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimits.class);

  private final SocketOptions base;
  private final int max;
  private final int maxPerAddress;
  private final Map<SocketChannel, String> open = new LinkedHashMap<>();

  /** Connections that have not sent a byte yet, by remote address, with when they were accepted. */
  private final Map<SocketAddress, Silent> silent = new ConcurrentHashMap<>();

  private record Silent(SocketChannel channel, long acceptedNanos) {}

  private final Map<String, Integer> perAddress = new HashMap<>();
  private final AtomicLong refusedTotal = new AtomicLong();
  private final AtomicLong refusedPerAddress = new AtomicLong();

  ConnectionLimits(int max, int maxPerAddress) {
    this(SocketOptions.create(), max, maxPerAddress);
  }

  ConnectionLimits(SocketOptions base, int max, int maxPerAddress) {
    this.base = base;
    this.max = max;
    this.maxPerAddress = maxPerAddress;
  }

  public static ConnectionLimits of(ServerConfig config) {
    return new ConnectionLimits(
        config.get(Settings.MAX_CONNECTIONS), config.get(Settings.MAX_CONNECTIONS_PER_ADDRESS));
  }

  /**
   * Admits an accepted connection or answers and closes it. Throwing makes Helidon drop the socket
   * (it closes it and logs at TRACE); the answer has been written by then.
   */
  @Override
  public void configureSocket(SocketChannel channel) {
    base.configureSocket(channel);
    String address = address(channel);
    Refusal refusal = admit(channel, address);
    if (refusal != null) {
      refuse(channel, address, refusal);
      throw new ConnectionRefused(refusal.message());
    }
  }

  /** Why a connection is refused: 503 for the server's cap, 429 for its address's. */
  private record Refusal(int status, String message) {}

  /** Null when admitted (and counted), else the refusal. */
  private synchronized @Nullable Refusal admit(SocketChannel channel, String address) {
    if (open.size() >= max || perAddress.getOrDefault(address, 0) >= maxPerAddress) {
      sweep();
    }
    if (open.size() >= max) {
      refusedTotal.incrementAndGet();
      return new Refusal(
          503,
          "the server holds its maximum of " + max + " connections (max-connections); retry later");
    }
    int mine = perAddress.getOrDefault(address, 0);
    if (mine >= maxPerAddress) {
      refusedPerAddress.incrementAndGet();
      return new Refusal(
          429,
          "this client address holds its maximum of "
              + maxPerAddress
              + " connections (max-connections-per-address); reuse a connection or retry later");
    }
    open.put(channel, address);
    perAddress.put(address, mine + 1);
    try {
      silent.put(channel.getRemoteAddress(), new Silent(channel, System.nanoTime()));
    } catch (IOException closedMeanwhile) {
      // nothing to time
    }
    return null;
  }

  /** Forgets the sockets closed since the last sweep. */
  private synchronized void sweep() {
    for (Iterator<Map.Entry<SocketChannel, String>> it = open.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<SocketChannel, String> e = it.next();
      if (!e.getKey().isOpen()) {
        it.remove();
        perAddress.computeIfPresent(e.getValue(), (a, n) -> n <= 1 ? null : n - 1);
      }
    }
  }

  /**
   * Writes the refusal without reading anything (the socket is fresh: its send buffer takes the few
   * bytes at once) and closes it.
   */
  private void refuse(SocketChannel channel, String address, Refusal refusal) {
    String body = "{\"code\":\"TOO_MANY_CONNECTIONS\",\"message\":\"" + refusal.message() + "\"}";
    String answer =
        (refusal.status() == 503
                ? "HTTP/1.1 503 Service Unavailable"
                : "HTTP/1.1 429 Too Many Requests")
            + "\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close"
            + "\r\nContent-Length: "
            + body.getBytes(StandardCharsets.UTF_8).length
            + "\r\n\r\n"
            + body;
    try {
      channel.configureBlocking(false);
      channel.write(ByteBuffer.wrap(answer.getBytes(StandardCharsets.UTF_8)));
      channel.shutdownOutput();
    } catch (IOException | RuntimeException e) {
      // the client is gone already; closing is all there is to do
    }
    try {
      channel.close();
    } catch (IOException e) {
      // closed either way
    }
    LOG.atDebug()
        .addKeyValue("remote", address)
        .addKeyValue("reason", refusal.message())
        .log("refused a connection over a cap");
  }

  private static String address(SocketChannel channel) {
    try {
      if (channel.getRemoteAddress() instanceof InetSocketAddress a && a.getAddress() != null) {
        return a.getAddress().getHostAddress();
      }
    } catch (IOException e) {
      // closed meanwhile: counted under no address, swept out soon
    }
    return "";
  }

  /** The client at {@code remote} sent its first bytes: it is no longer silent. */
  void spoke(SocketAddress remote) {
    silent.remove(remote);
  }

  /**
   * Closes the connections that have not sent a byte within {@code timeoutNanos} of being accepted
   * (Helidon's idle timeout only sees a connection once its first bytes arrived); returns how many.
   */
  int closeSilent(long nowNanos, long timeoutNanos) {
    int closed = 0;
    for (var it = silent.values().iterator(); it.hasNext(); ) {
      Silent s = it.next();
      if (!s.channel().isOpen()) {
        it.remove();
      } else if (nowNanos - s.acceptedNanos() > timeoutNanos) {
        it.remove();
        try {
          s.channel().close();
          closed++;
        } catch (IOException e) {
          // closed either way
        }
      }
    }
    return closed;
  }

  /** Open connections, closed ones swept out first. */
  public synchronized int open() {
    sweep();
    return open.size();
  }

  /** The most connections open from one client address, closed ones swept out first. */
  public synchronized int mostFromOneAddress() {
    sweep();
    int most = 0;
    for (int n : perAddress.values()) {
      most = Math.max(most, n);
    }
    return most;
  }

  public int max() {
    return max;
  }

  public int maxPerAddress() {
    return maxPerAddress;
  }

  public long refusedTotal() {
    return refusedTotal.get();
  }

  public long refusedPerAddress() {
    return refusedPerAddress.get();
  }

  /** Dropping the socket, the answer written: Helidon logs it at TRACE only. */
  private static final class ConnectionRefused extends RuntimeException {
    ConnectionRefused(String message) {
      super(message, null, false, false);
    }
  }

  // ---- the base options, unchanged

  @Override
  public void configureSocket(Socket socket) {
    base.configureSocket(socket);
  }

  @Override
  public Map<SocketOption<?>, Object> socketOptions() {
    return base.socketOptions();
  }

  @Override
  public Duration connectTimeout() {
    return base.connectTimeout();
  }

  @Override
  public Duration readTimeout() {
    return base.readTimeout();
  }

  @Override
  public Optional<Integer> socketReceiveBufferSize() {
    return base.socketReceiveBufferSize();
  }

  @Override
  public Optional<Integer> socketSendBufferSize() {
    return base.socketSendBufferSize();
  }

  @Override
  public boolean socketReuseAddress() {
    return base.socketReuseAddress();
  }

  @Override
  public boolean socketKeepAlive() {
    return base.socketKeepAlive();
  }

  @Override
  public boolean tcpNoDelay() {
    return base.tcpNoDelay();
  }
}
