/**
 * The server's lifecycle: {@link io.switchboard.server.SwitchboardServer} wires the packages below
 * together, starts them in order and closes them in reverse; {@link
 * io.switchboard.server.EngineFactory} opens the engine the configuration asks for; {@link
 * io.switchboard.server.RequestFilters} puts the cross-cutting filters in front of every route.
 * docs/architecture.md draws the packages and their arrows.
 *
 * <p>May use every package of the server; none of them uses this one.
 */
@NullMarked
package io.switchboard.server;

import org.jspecify.annotations.NullMarked;
