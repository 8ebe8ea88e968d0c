package io.switchboard.queue;

import java.time.Instant;

/**
 * A queue's identity and configuration.
 *
 * @param name unique name
 * @param grouped whether it is a grouped (SQS FIFO) queue: its name ends in {@code .fifo}
 * @param config current configuration
 * @param createdAt when it was created
 */
public record QueueInfo(String name, boolean grouped, QueueConfig config, Instant createdAt) {}
