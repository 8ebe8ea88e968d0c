package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueInfo;
import io.switchboard.server.auth.KeyRing;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * What the SQS layer remembers between requests, on the engine's clock: when each queue was last
 * purged (SQS allows one purge a minute) and the answers of recent FIFO receives by {@code
 * ReceiveRequestAttemptId} (a retry within five minutes gets the same messages). Both are
 * in-memory: after a restart a purge is allowed at once and a retried receive takes new messages,
 * which SQS also allows once the visibility timeout has passed.
 *
 * <p>Configuration and metadata updates (attributes, tags, policy) go through the engine's atomic
 * {@link QueueEngine#updateQueue(String, UnaryOperator)}, so concurrent ones all land, whichever
 * server of a cluster takes them.
 */
final class SqsState {

  static final long PURGE_INTERVAL_MILLIS = 60_000;
  static final long ATTEMPT_WINDOW_MILLIS = 5 * 60_000;
  private static final int MAX_ATTEMPTS = 10_000;

  private final QueueEngine engine;
  private final KeyRing keys;
  private final Map<String, Long> lastPurge = new HashMap<>();
  private final Map<String, Attempt> attempts =
      new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Attempt> eldest) {
          return size() > MAX_ATTEMPTS;
        }
      };

  /** A receive's answer and the leases it took, kept for retries with the same attempt id. */
  record Attempt(long expiresAt, ObjectNode answer, List<String> receipts, long visibilityMillis) {}

  /**
   * The state of one {@link SqsEndpoint} over {@code engine}: a server makes one endpoint, so its
   * SQS state lives and dies with the server; {@code keys} are the server's access keys.
   * Thread-safe.
   */
  SqsState(QueueEngine engine, KeyRing keys) {
    this.engine = engine;
    this.keys = keys;
  }

  /** The access keys a queue policy may name ({@link QueuePolicy}). */
  KeyRing keys() {
    return keys;
  }

  long now() {
    return engine.clock().millis();
  }

  /**
   * Records a purge of {@code queue}, or refuses it with {@code PurgeQueueInProgress} when the last
   * one was less than 60 s ago. Keyed by creation time too, so a queue deleted and created again
   * starts afresh.
   */
  synchronized void purgeAllowed(QueueInfo queue) {
    String key = queue.name() + "@" + queue.createdAt().toEpochMilli();
    long now = now();
    Long last = lastPurge.get(key);
    if (last != null && now - last < PURGE_INTERVAL_MILLIS) {
      throw SqsErrorText.PURGE_QUEUE_IN_PROGRESS.error(queue.name());
    }
    lastPurge.put(key, now);
  }

  synchronized Optional<Attempt> attempt(String queue, String attemptId) {
    String key = queue + "\n" + attemptId;
    Attempt a = attempts.get(key);
    if (a == null) {
      return Optional.empty();
    }
    if (a.expiresAt() <= now()) {
      attempts.remove(key);
      return Optional.empty();
    }
    return Optional.of(a);
  }

  synchronized void remember(
      String queue, String attemptId, ObjectNode answer, List<String> receipts, long visibility) {
    attempts.put(
        queue + "\n" + attemptId,
        new Attempt(now() + ATTEMPT_WINDOW_MILLIS, answer.deepCopy(), receipts, visibility));
  }

  synchronized void forget(String queue, String attemptId) {
    attempts.remove(queue + "\n" + attemptId);
  }

  /** Applies {@code change} to the queue's configuration atomically; it may run more than once. */
  QueueInfo updateConfig(String queue, UnaryOperator<QueueConfig> change) {
    return engine.updateQueue(queue, change);
  }

  /** Applies {@code change} to a copy of the queue's metadata and writes it back. */
  QueueInfo updateMetadata(String queue, UnaryOperator<Map<String, String>> change) {
    return updateConfig(
        queue, c -> c.toBuilder().metadata(change.apply(new HashMap<>(c.metadata()))).build());
  }
}
