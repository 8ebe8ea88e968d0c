/**
 * AWS Signature Version 4, free of HTTP-framework types: the canonical request and the verification
 * of a signed request (header or presigned) against the access keys. The native API and the SQS
 * endpoint both take SigV4, so it lives here rather than under either.
 *
 * <p>May use: {@code server.auth} (the keys a signature is checked against) and {@code core}.
 * Nothing else of the server; errors are {@link
 * io.switchboard.server.security.sigv4.SignatureError}s, which each API answers in its own shape.
 */
@NullMarked
package io.switchboard.server.security.sigv4;

import org.jspecify.annotations.NullMarked;
