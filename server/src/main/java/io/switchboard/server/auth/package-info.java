/**
 * The access model: access keys and their grants ({@link io.switchboard.server.auth.Principal},
 * {@link io.switchboard.server.auth.Grant}, {@link io.switchboard.server.auth.Action}), the key
 * rings that hold them, the audit log of every refusal, and the rights a message move needs.
 *
 * <p>May use: {@code core} only. Every other package of the server may use it.
 */
@NullMarked
package io.switchboard.server.auth;

import org.jspecify.annotations.NullMarked;
