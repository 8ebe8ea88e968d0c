/**
 * The SQS-compatible endpoint (docs/sqs.md): both protocols (JSON and query), every action, the
 * queue policies, and {@link io.switchboard.server.sqs.SqsRoute}, which puts the endpoint on the
 * server's routes. Everything but {@code SqsRoute} is free of HTTP-framework types.
 *
 * <p>May use: {@code server.security} and {@code server.security.sigv4} (signatures, the exposure
 * guard), {@code server.http}, {@code server.config}, {@code server.auth}, {@code core}.
 */
@NullMarked
package io.switchboard.server.sqs;

import org.jspecify.annotations.NullMarked;
