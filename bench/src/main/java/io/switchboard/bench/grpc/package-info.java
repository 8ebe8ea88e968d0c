/** The work-queue bench: Switchboard's gRPC streams beside RabbitMQ, in one run. */
@NullMarked
package io.switchboard.bench.grpc;

import org.jspecify.annotations.NullMarked;
