/**
 * The routing API (docs/routing.md): workspaces, agents, tasks, workflows, their event streams, and
 * the assignment callbacks a workflow sends out.
 *
 * <p>May use: {@code server.security} (the addresses a callback may reach), {@code server.http},
 * {@code server.config}, {@code server.auth}, {@code core}.
 */
@NullMarked
package io.switchboard.server.api.routing;

import org.jspecify.annotations.NullMarked;
