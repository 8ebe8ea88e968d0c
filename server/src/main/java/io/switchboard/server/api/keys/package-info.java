/**
 * The access-key API ({@code /v1/keys}, docs/security.md): listing, creating and revoking the keys
 * kept in the store.
 *
 * <p>May use: {@code server.security} (the key store), {@code server.http}, {@code server.auth}.
 */
@NullMarked
package io.switchboard.server.api.keys;

import org.jspecify.annotations.NullMarked;
