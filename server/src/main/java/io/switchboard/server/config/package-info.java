/**
 * The server's configuration: every setting declared once ({@link
 * io.switchboard.server.config.Settings}, {@link io.switchboard.server.config.Setting}), read from
 * the command line, the environment and a file into a {@link
 * io.switchboard.server.config.ServerConfig}; the values settings take (byte amounts, durability,
 * which private addresses a callback may reach) and the {@link
 * io.switchboard.server.config.StartupException} a configuration that cannot run is refused with.
 *
 * <p>May use: {@code core}, {@code client}, and {@code server.auth} (the access keys a
 * configuration names). Nothing else of the server: every other package reads its settings here.
 */
@NullMarked
package io.switchboard.server.config;

import org.jspecify.annotations.NullMarked;
