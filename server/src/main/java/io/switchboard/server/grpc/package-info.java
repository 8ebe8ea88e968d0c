/**
 * The gRPC API (docs/api.md#grpc): the services {@code switchboard.v1.Queues} and {@code
 * switchboard.v1.Routing} on their own port ({@code grpc-port}), over grpc-java and the Netty
 * grpc-netty-shaded carries. Streaming publish, streaming consume over the {@code server.dispatch}
 * dispatcher, the rest of the queue API as unary calls (the HTTP handlers' own methods where they
 * have more than one engine call: {@code server.api.queues}), and the routing event feed ({@code
 * server.api.routing}'s); the same access keys and grants as the HTTP API, with credentials in the
 * call's metadata (docs/security.md#grpc-credentials), and the same TLS. Errors are the HTTP API's
 * codes ({@code server.http}'s {@code HttpError} and {@code ErrorAnswers} give a status).
 *
 * <p>May use: {@code server.api.queues}, {@code server.api.routing}, {@code server.dispatch},
 * {@code server.security}, {@code server.http}, {@code server.config}, {@code server.auth},
 * grpc-java, Helidon's TLS types.
 */
@NullMarked
package io.switchboard.server.grpc;

import org.jspecify.annotations.NullMarked;
