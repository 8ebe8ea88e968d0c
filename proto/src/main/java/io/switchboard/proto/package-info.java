/**
 * The gRPC service of {@code switchboard/v1/queues.proto} as grpc-java sees it: its method
 * descriptors, for the server's bindings and the client's calls.
 */
@NullMarked
package io.switchboard.proto;

import org.jspecify.annotations.NullMarked;
