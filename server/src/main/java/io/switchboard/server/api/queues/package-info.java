/**
 * The native queue API ({@code /v1/queues...}, docs/api.md): its routes and handlers, which
 * translate a {@link io.switchboard.server.http.Call} into engine calls and back.
 *
 * <p>May use: {@code server.http}, {@code server.config}, {@code server.auth}, {@code core}.
 */
@NullMarked
package io.switchboard.server.api.queues;

import org.jspecify.annotations.NullMarked;
