package io.switchboard.server.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.switchboard.proto.QueuesService;
import io.switchboard.proto.v1.OutgoingMessage;
import io.switchboard.proto.v1.SendRequest;
import io.switchboard.queue.QueueConfig;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.auth.Action;
import io.switchboard.server.auth.Grant;
import io.switchboard.server.auth.Principal;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.server.sqs.TestPki;
import io.switchboard.time.ManualClock;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gRPC port serves the server's TLS files, and with a client CA takes client certificates. */
class GrpcTlsTest {

  @TempDir Path dir;

  private final TestPki.Issued ca = TestPki.ca("Server CA");
  private final TestPki.Issued serverCert = TestPki.server(ca, "server");
  private final TestPki.Issued clientCa = TestPki.ca("Client CA");

  private UnaryOperator<ServerConfig> tls(boolean mutual) {
    return c -> {
      ServerConfig t =
          c.with(
                  Settings.TLS_CERT,
                  TestPki.write(dir.resolve("cert.pem"), TestPki.pem(serverCert.cert())))
              .with(
                  Settings.TLS_KEY,
                  TestPki.write(dir.resolve("key.pem"), TestPki.pkcs8(serverCert.key())));
      return mutual
          ? t.with(
              Settings.TLS_CLIENT_CA,
              TestPki.write(dir.resolve("client-ca.pem"), TestPki.pem(clientCa.cert())))
          : t;
    };
  }

  private static ManagedChannel channel(GrpcHarness h, ChannelCredentials credentials) {
    return NettyChannelBuilder.forAddress(
            "localhost", h.server.grpcPort().orElseThrow(), credentials)
        .build();
  }

  private static Status send(ManagedChannel channel, CallOptions options) {
    try {
      ClientCalls.blockingUnaryCall(
          channel,
          QueuesService.SEND,
          options,
          SendRequest.newBuilder()
              .setQueue("jobs")
              .setMessage(OutgoingMessage.newBuilder().setBody("x"))
              .build());
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    } finally {
      channel.shutdownNow();
    }
  }

  /**
   * The TLS files replaced on disk are served to new gRPC connections after the next check ({@code
   * tls-reload-check}), as on the HTTPS port: a client that trusts only the new CA gets in, one
   * that trusts only the old no longer does.
   */
  @Test
  void replacedTlsFiles_areServedToNewConnections_afterTheNextCheck() throws Exception {
    ManualClock scheduler = ManualClock.create();
    io.switchboard.queue.QueueEngine engine = io.switchboard.queue.QueueEngine.inMemory();
    engine.createQueue("jobs", QueueConfig.defaults());
    SwitchboardServer server =
        SwitchboardServer.start(
            tls(false).apply(ServerConfig.forTests().with(Settings.GRPC_PORT, 0)),
            c -> engine,
            scheduler);
    try {
      TestPki.Issued newCa = TestPki.ca("New server CA");
      TestPki.Issued renewed = TestPki.server(newCa, "server");
      ChannelCredentials trustingOld =
          TlsChannelCredentials.newBuilder()
              .trustManager(TestPki.trustManagers(ca.cert()).getTrustManagers())
              .build();
      ChannelCredentials trustingNew =
          TlsChannelCredentials.newBuilder()
              .trustManager(TestPki.trustManagers(newCa.cert()).getTrustManagers())
              .build();
      int port = server.grpcPort().orElseThrow();
      assertEquals(Status.Code.OK, send(channel(port, trustingOld), CallOptions.DEFAULT).getCode());
      assertEquals(
          Status.Code.UNAVAILABLE,
          send(channel(port, trustingNew), CallOptions.DEFAULT).getCode(),
          "not yet: the files have not changed");

      TestPki.write(dir.resolve("cert.pem"), TestPki.pem(renewed.cert()) + "\n");
      TestPki.write(dir.resolve("key.pem"), TestPki.pkcs8(renewed.key()) + "\n");
      scheduler.advance(ServerConfig.forTests().get(Settings.TLS_RELOAD_CHECK));

      assertEquals(
          Status.Code.OK,
          send(channel(port, trustingNew), CallOptions.DEFAULT).getCode(),
          "the renewed certificate is served");
      assertEquals(
          Status.Code.UNAVAILABLE,
          send(channel(port, trustingOld), CallOptions.DEFAULT).getCode(),
          "the old one no longer is");
    } finally {
      server.close();
    }
  }

  private static ManagedChannel channel(int port, ChannelCredentials credentials) {
    return NettyChannelBuilder.forAddress("localhost", port, credentials).build();
  }

  @Test
  void overTls_basicCredentialsAreTaken_andPlaintextIsNotServed() throws Exception {
    try (GrpcHarness h = new GrpcHarness(tls(false))) {
      h.server.keys().put(Principal.admin("ADMIN", "ADMIN-secret"));
      h.engine.createQueue("jobs", QueueConfig.defaults());
      ChannelCredentials trusting =
          TlsChannelCredentials.newBuilder()
              .trustManager(TestPki.trustManagers(ca.cert()).getTrustManagers())
              .build();
      assertEquals(
          Status.Code.OK,
          send(channel(h, trusting), GrpcHarness.basic("ADMIN", "ADMIN-secret")).getCode());
      assertEquals(1, h.engine.stats("jobs").available());
      assertEquals(
          Status.Code.UNAUTHENTICATED, send(channel(h, trusting), CallOptions.DEFAULT).getCode());
      Status plain =
          send(
              channel(h, io.grpc.InsecureChannelCredentials.create()),
              GrpcHarness.basic("ADMIN", "ADMIN-secret"));
      assertEquals(Status.Code.UNAVAILABLE, plain.getCode(), plain.toString());
    }
  }

  @Test
  void withAClientCa_aClientCertificateNamesTheKey_andItsGrantsApply() throws Exception {
    try (GrpcHarness h = new GrpcHarness(tls(true))) {
      h.server
          .keys()
          .put(
              new Principal(
                  "AGENT7",
                  "unused-secret",
                  Optional.empty(),
                  List.of(Grant.of("jobs", Action.QUEUE_SEND)),
                  Optional.empty()));
      h.engine.createQueue("jobs", QueueConfig.defaults());
      TestPki.Issued client = TestPki.client(clientCa, "CN=AGENT7,O=Example");
      ChannelCredentials mutual =
          TlsChannelCredentials.newBuilder()
              .trustManager(TestPki.trustManagers(ca.cert()).getTrustManagers())
              .keyManager(TestPki.keyManagers(client).getKeyManagers())
              .build();
      assertEquals(Status.Code.OK, send(channel(h, mutual), CallOptions.DEFAULT).getCode());
      assertEquals(1, h.engine.stats("jobs").available());

      TestPki.Issued unknown = TestPki.client(clientCa, "CN=NOBODY,O=Example");
      ChannelCredentials stranger =
          TlsChannelCredentials.newBuilder()
              .trustManager(TestPki.trustManagers(ca.cert()).getTrustManagers())
              .keyManager(TestPki.keyManagers(unknown).getKeyManagers())
              .build();
      Status refused = send(channel(h, stranger), CallOptions.DEFAULT);
      assertEquals(Status.Code.UNAUTHENTICATED, refused.getCode(), refused.toString());

      ChannelCredentials noCertificate =
          TlsChannelCredentials.newBuilder()
              .trustManager(TestPki.trustManagers(ca.cert()).getTrustManagers())
              .build();
      assertEquals(
          Status.Code.UNAVAILABLE,
          send(channel(h, noCertificate), CallOptions.DEFAULT).getCode(),
          "mutual TLS: no handshake without a client certificate");
    }
  }
}
