/**
 * The web console: its sign-in sessions, pages and assets.
 *
 * <p>May use: {@code server.http}, {@code server.auth}.
 */
@NullMarked
package io.switchboard.server.console;

import org.jspecify.annotations.NullMarked;
