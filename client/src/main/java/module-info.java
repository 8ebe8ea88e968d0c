/**
 * The Java client of Switchboard's native HTTP API ({@code io.switchboard.client}). The API's JSON
 * mapping, which the server and the CLI use too, is in {@code io.switchboard.client.wire}:
 * internal, exported to those two modules only (docs/decisions.md, 2026-11-26).
 */
@SuppressWarnings("requires-automatic")
module io.switchboard.client {
  requires transitive io.switchboard.core;
  requires transitive com.fasterxml.jackson.databind;
  requires java.net.http;
  // SwitchboardClient.consume over the server's gRPC API (automatic modules)
  requires io.switchboard.proto;
  requires io.grpc;
  requires io.grpc.stub;
  requires io.grpc.netty.shaded;
  requires static org.jspecify;

  exports io.switchboard.client;
  // The API's JSON mapping, shared with the server and the CLI only (docs/decisions.md,
  // 2026-11-26).
  exports io.switchboard.client.wire to
      io.switchboard.server,
      io.switchboard.cli;

  // Jackson binds the wire records (and the access-key records of the API) by reflection.
  opens io.switchboard.client to
      com.fasterxml.jackson.databind;
  opens io.switchboard.client.wire to
      com.fasterxml.jackson.databind;
}
