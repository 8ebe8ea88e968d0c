package io.switchboard.client;

import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import java.util.HashMap;
import java.util.Map;

/**
 * The whole engine contract through the client's gRPC transport ({@link Transport#GRPC}): the
 * servers {@link ClientContractTest} starts, with their gRPC API on a free port, and a client whose
 * queue operations are the gRPC API's unary calls.
 *
 * <p>The contracts that cannot run through it are {@link ClientContractTest#EXCLUDED}'s (their
 * reasons hold for either transport) and the ones below, each with the reason; the same list is in
 * {@code docs/api.md}, "gRPC".
 */
class GrpcClientContractTest extends ClientContractTest {

  /** Contract test ("Nested class.method") the gRPC transport cannot pass, and why. */
  static final Map<String, String> EXCLUDED;

  static {
    Map<String, String> excluded = new HashMap<>(ClientContractTest.EXCLUDED);
    EXCLUDED = Map.copyOf(excluded);
  }

  @Override
  ServerConfig served(ServerConfig config) {
    return config.with(Settings.GRPC_PORT, 0);
  }

  @Override
  SwitchboardClient connect(SwitchboardServer server) {
    return SwitchboardClient.builder()
        .baseUri(server.uri())
        .grpcPort(server.grpcPort().orElseThrow())
        .transport(Transport.GRPC)
        .build();
  }
}
