package io.switchboard.server.grpc;

import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptors;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.server.api.routing.RoutingApi;
import io.switchboard.server.auth.KeyRing;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.config.StartupException;
import io.switchboard.server.dispatch.Dispatcher;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The gRPC API's listener (docs/api.md#grpc): grpc-java over Netty on {@code grpc-port} of the
 * server's bind address, with the server's TLS (and mutual TLS) when it has one, calls run on
 * virtual threads, one {@link Dispatcher} for the {@code Consume} streams.
 */
public final class GrpcServer implements AutoCloseable {

  private final Server server;
  private final Dispatcher dispatcher;
  private final ExecutorService calls;
  private final QueuesEndpoint endpoint;
  private final RoutingEndpoint events;
  private final @Nullable AdvancedTlsX509KeyManager tlsKeys;
  private final @Nullable AdvancedTlsX509TrustManager tlsTrust;

  private GrpcServer(
      Server server,
      Dispatcher dispatcher,
      ExecutorService calls,
      QueuesEndpoint endpoint,
      RoutingEndpoint events,
      @Nullable AdvancedTlsX509KeyManager tlsKeys,
      @Nullable AdvancedTlsX509TrustManager tlsTrust) {
    this.server = server;
    this.dispatcher = dispatcher;
    this.calls = calls;
    this.endpoint = endpoint;
    this.events = events;
    this.tlsKeys = tlsKeys;
    this.tlsTrust = tlsTrust;
  }

  /**
   * Listens on {@code grpc-port}; the engine must be open.
   *
   * @param routing the routing API whose event feed {@code Routing.Events} streams
   * @param tls the server's TLS (what its HTTP listener serves), if it has one
   * @throws StartupException when the port cannot be listened on or the TLS material not used
   */
  public static GrpcServer start(
      ServerConfig config,
      QueueEngine engine,
      RoutingApi routing,
      KeyRing keys,
      Optional<Tls> tls,
      boolean mutual) {
    int port = config.get(Settings.GRPC_PORT);
    Dispatcher dispatcher = new Dispatcher(engine);
    ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();
    StreamCaps caps = new StreamCaps(config.get(Settings.GRPC_MAX_STREAMS_PER_KEY));
    QueuesEndpoint endpoint =
        new QueuesEndpoint(
            engine,
            dispatcher,
            caps,
            config.get(Settings.GRPC_MAX_CREDIT),
            config.get(Settings.GRPC_PUBLISH_WINDOW),
            config.maxBatch(),
            config.maxSelectorLength());
    Credentials credentials = new Credentials(keys);
    AdvancedTlsX509KeyManager tlsKeys = new AdvancedTlsX509KeyManager();
    AdvancedTlsX509TrustManager tlsTrust;
    try {
      tlsTrust =
          mutual
              ? AdvancedTlsX509TrustManager.newBuilder()
                  .setVerification(
                      AdvancedTlsX509TrustManager.Verification.CERTIFICATE_ONLY_VERIFICATION)
                  .build()
              : null;
    } catch (java.security.cert.CertificateException e) {
      throw new StartupException("cannot use the TLS files for gRPC: " + e.getMessage(), e);
    }
    RoutingEndpoint events = new RoutingEndpoint(routing, caps);
    Server server =
        NettyServerBuilder.forAddress(
                new InetSocketAddress(config.bind(), port),
                credentials(tls, mutual, tlsKeys, tlsTrust))
            .executor(calls)
            .maxInboundMessageSize(config.maxBodyBytes())
            .addService(ServerInterceptors.intercept(endpoint.definition(), credentials))
            .addService(ServerInterceptors.intercept(events.definition(), credentials))
            .build();
    try {
      server.start();
    } catch (IOException e) {
      dispatcher.close();
      calls.shutdownNow();
      throw new StartupException(
          "cannot listen for gRPC on " + config.bind() + ":" + port + ": " + e.getMessage(), e);
    }
    return new GrpcServer(
        server,
        dispatcher,
        calls,
        endpoint,
        events,
        tls.isPresent() ? tlsKeys : null,
        tls.isPresent() ? tlsTrust : null);
  }

  /**
   * The server's TLS as grpc-java's credentials, with key and trust managers that {@link
   * #reloadTls} updates in place: a reload applies to the handshakes after it, connections open
   * keep theirs.
   */
  private static ServerCredentials credentials(
      Optional<Tls> tls,
      boolean mutual,
      AdvancedTlsX509KeyManager keyManager,
      @Nullable AdvancedTlsX509TrustManager trustManager) {
    if (tls.isEmpty()) {
      return InsecureServerCredentials.create();
    }
    update(tls.get(), keyManager, trustManager);
    var builder = TlsServerCredentials.newBuilder().keyManager(keyManager);
    if (mutual && trustManager != null) {
      builder.trustManager(trustManager).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
    }
    return builder.build();
  }

  private static void update(
      Tls tls,
      AdvancedTlsX509KeyManager keyManager,
      @Nullable AdvancedTlsX509TrustManager trustManager) {
    TlsConfig c = tls.prototype();
    PrivateKey key =
        c.privateKey().orElseThrow(() -> new StartupException("the TLS files hold no key"));
    List<X509Certificate> chain = c.privateKeyCertChain();
    keyManager.updateIdentityCredentials(chain.toArray(X509Certificate[]::new), key);
    if (trustManager != null) {
      try {
        trustManager.updateTrustCredentials(c.trust().toArray(X509Certificate[]::new));
      } catch (GeneralSecurityException | IOException e) {
        throw new StartupException("cannot use the TLS files for gRPC: " + e.getMessage(), e);
      }
    }
  }

  /**
   * Serves {@code tls} (the TLS files as reloaded, {@code tls-reload-check}) to the gRPC handshakes
   * from now on, as the HTTP listener does; no-op without TLS.
   */
  public void reloadTls(Tls tls) {
    if (tlsKeys != null) {
      update(tls, tlsKeys, tlsTrust);
    }
  }

  /** The port it listens on (the one picked, for {@code grpc-port} 0). */
  public int port() {
    return server.getPort();
  }

  /** How many {@code Consume} streams are open. */
  public int consumers() {
    return dispatcher.open();
  }

  /** How many {@code Publish} streams are open. */
  public long publishers() {
    return endpoint.publishers.get();
  }

  /** Messages sent through the gRPC API ({@code Publish} and {@code Send}) since the start. */
  public long sent() {
    return endpoint.sent.sum();
  }

  /** Messages pushed to {@code Consume} streams since the start (each delivery counts). */
  public long pushed() {
    return endpoint.pushed.sum();
  }

  /**
   * Stops: new calls are refused, open streams end ({@code Consume} streams release their leases,
   * routing event streams complete), and calls in flight get a few seconds to finish.
   */
  @Override
  public void close() {
    server.shutdown();
    dispatcher.close();
    events.close();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      calls.shutdownNow();
    }
  }
}
