/**
 * What an operator watches: the Prometheus metrics ({@link
 * io.switchboard.server.observability.ServerMetrics}, which reads the counters of the parts it
 * reports on), {@code /health}'s problems, OpenTelemetry tracing of requests and engine calls, and
 * the logging set-up.
 *
 * <p>May use: {@code server.api.*}, {@code server.security}, {@code server.http}, {@code
 * server.config}, {@code server.auth}: metrics are read from the parts they describe (pull), so
 * this package sits above them and none of them reports into it.
 */
@NullMarked
package io.switchboard.server.observability;

import org.jspecify.annotations.NullMarked;
