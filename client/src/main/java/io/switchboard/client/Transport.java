package io.switchboard.client;

/** How {@link SwitchboardClient} carries the queue operations ({@code QueueEngine}'s methods). */
public enum Transport {
  /** The HTTP API (REST/JSON), one request each: the default. */
  HTTP,
  /**
   * The gRPC API ({@code switchboard.v1.Queues}), one unary call each on one HTTP/2 connection;
   * needs {@link SwitchboardClient.Builder#grpcPort}. Keys, routing and workspaces stay on HTTP.
   */
  GRPC
}
