/**
 * Switchboard's gRPC protocol: the messages protoc generates from {@code switchboard/v1/*.proto} at
 * build time ({@code io.switchboard.proto.v1}) and the service's method descriptors ({@link
 * io.switchboard.proto.QueuesService}), shared by the server and the Java client.
 */
@SuppressWarnings("requires-automatic")
module io.switchboard.proto {
  requires transitive com.google.protobuf;
  requires transitive io.grpc;
  requires io.grpc.protobuf;
  requires static org.jspecify;

  exports io.switchboard.proto;
  exports io.switchboard.proto.v1;
}
