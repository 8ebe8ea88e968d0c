/**
 * Pushing a queue's messages to a consumer that holds a connection open: one dispatcher for every
 * transport that pushes (the gRPC API's {@code Consume} stream, push subscriptions' HTTP
 * deliveries). A {@link io.switchboard.server.dispatch.Subscription} takes messages from the engine
 * as they become available (the engine's long-poll wake-up, not a timer), hands them to a {@link
 * io.switchboard.server.dispatch.Sink}, never more than its credit leased and unsettled at once,
 * and refills as they are settled; a {@link io.switchboard.server.dispatch.Pace} decides when each
 * receive may start (a rate, free delivery slots), and a batch window may top a receive up. Leases,
 * visibility and dead-lettering are the engine's, unchanged.
 *
 * <p>May use: no other server package; no framework (plain Java over {@code core}).
 */
@NullMarked
package io.switchboard.server.dispatch;

import org.jspecify.annotations.NullMarked;
