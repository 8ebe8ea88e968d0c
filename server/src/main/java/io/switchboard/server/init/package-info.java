/**
 * The {@code init} file: queues, workspaces and keys a server creates at start, read whole and
 * checked before anything is changed.
 *
 * <p>May use: {@code server.security} (the key store), {@code server.config}, {@code server.auth},
 * {@code core}.
 */
@NullMarked
package io.switchboard.server.init;

import org.jspecify.annotations.NullMarked;
