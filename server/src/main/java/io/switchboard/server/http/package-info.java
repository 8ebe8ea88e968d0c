/**
 * HTTP, as every API of the server sees it: one request and its answer ({@link
 * io.switchboard.server.http.Call}), the declared routes and their table ({@link
 * io.switchboard.server.http.Route}, {@link io.switchboard.server.http.RouteTable}), the access a
 * route asks for ({@link io.switchboard.server.http.Guard}), the error answers, and the limits that
 * hold before a handler runs: connection and event-stream caps, long-poll places, read timeouts,
 * request ids.
 *
 * <p>May use: {@code server.config}, {@code server.auth}, Helidon. Never an API package: an error
 * or a status an API defines is mapped where the API is, or its mapping moves here.
 */
@NullMarked
package io.switchboard.server.http;

import org.jspecify.annotations.NullMarked;
