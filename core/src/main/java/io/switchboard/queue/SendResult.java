package io.switchboard.queue;

/**
 * The outcome of one sent message.
 *
 * @param id the message id; for a duplicate, the id of the message first sent
 * @param sequence the message's sequence number (monotonic per queue); for a duplicate, the
 *     original's
 * @param duplicate true when deduplication dropped this send and nothing was enqueued
 */
public record SendResult(String id, long sequence, boolean duplicate) {}
