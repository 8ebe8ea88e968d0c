/**
 * Push subscriptions (docs/design.md, "Push delivery"; docs/api.md, "Push subscriptions"): the
 * server POSTs a queue's messages to an HTTP endpoint. {@link
 * io.switchboard.server.api.push.PushDelivery} runs each subscription as a sink of the shared
 * dispatcher ({@code server.dispatch}) with an adaptive token bucket as its pace; {@link
 * io.switchboard.server.api.push.PushStore} keeps them in the engine's system records; {@link
 * io.switchboard.server.api.push.PushApi} is their routes.
 *
 * <p>May use: {@code server.dispatch}, {@code server.security}, {@code server.http}, {@code
 * server.config}, {@code server.auth}, {@code core}.
 */
@NullMarked
package io.switchboard.server.api.push;

import org.jspecify.annotations.NullMarked;
