/**
 * Several servers over one PostgreSQL database: the routing leader's election and the forwarding of
 * routing calls from a follower to the leader.
 *
 * <p>May use: {@code server.api.routing}, {@code server.observability} (tracing), {@code
 * server.security}, {@code server.http}, {@code server.config}, {@code server.auth}.
 */
@NullMarked
package io.switchboard.server.cluster;

import org.jspecify.annotations.NullMarked;
