/**
 * The gRPC API (docs/api.md#grpc): the service {@code switchboard.v1.Queues} on its own port
 * ({@code grpc-port}), over grpc-java and the Netty grpc-netty-shaded carries. Streaming publish,
 * streaming consume over the {@code server.dispatch} dispatcher, and unary send, receive and ack;
 * the same access keys and grants as the HTTP API, with credentials in the call's metadata
 * (docs/security.md#grpc-credentials), and the same TLS.
 *
 * <p>May use: {@code server.dispatch}, {@code server.security}, {@code server.config}, {@code
 * server.auth}, grpc-java, Helidon's TLS types.
 */
@NullMarked
package io.switchboard.server.grpc;

import org.jspecify.annotations.NullMarked;
