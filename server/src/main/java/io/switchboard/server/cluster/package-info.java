/**
 * Several servers over one shared store (a PostgreSQL database, a DynamoDB table): the routing
 * leader's election, through the store's {@link io.switchboard.routing.spi.RoutingLeader}, and the
 * forwarding of routing calls from a follower to the leader.
 *
 * <p>May use: {@code server.api.routing}, {@code server.observability} (tracing), {@code
 * server.security}, {@code server.http}, {@code server.config}, {@code server.auth}.
 */
@NullMarked
package io.switchboard.server.cluster;

import org.jspecify.annotations.NullMarked;
