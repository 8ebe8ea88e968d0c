package io.switchboard.server.sqs;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueException;
import io.switchboard.time.TimeSource;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The enforced policies of the queues one endpoint serves ({@link QueuePolicy}), so that an SQS
 * request does not read its queue once more before the action reads it again (on PostgreSQL, one
 * transaction more per request). Each queue's policy, or that it has none, is read from the engine
 * at most once every {@link #REFRESH_MILLIS} and kept by engine queue name:
 *
 * <ul>
 *   <li>a change served by this endpoint (CreateQueue, SetQueueAttributes, AddPermission,
 *       RemovePermission, DeleteQueue of the queue: {@link #changed}) applies to the next request
 *       at once, even one whose read of the old policy was under way when the change was served
 *       (such a read is not kept);
 *   <li>a change made through another server of a cluster, or through the native API, applies
 *       within {@link #REFRESH_MILLIS}, as Amazon SQS documents that attribute changes, the {@code
 *       Policy} included, take up to 60 seconds to apply; so does a queue deleted and created again
 *       elsewhere;
 *   <li>a queue that does not exist is not kept (the action answers for it); a read that fails for
 *       another reason refuses the request rather than serve it unchecked;
 *   <li>at most {@link #MAX_QUEUES} queues are kept; past that the cache starts afresh.
 * </ul>
 *
 * Thread-safe. Times are the endpoint's clock, so tests move it by hand.
 */
final class QueuePolicies {

  /** The longest a policy changed elsewhere goes unseen by this endpoint. */
  static final long REFRESH_MILLIS = 1_000;

  /** How many queues' policies an endpoint keeps; past it, it starts afresh. */
  static final int MAX_QUEUES = 1_000;

  /** A queue's policy as read at {@code readAt}: its text and parsed form, both null if none. */
  private record Entry(@Nullable String document, @Nullable QueuePolicy parsed, long readAt) {}

  private final QueueEngine engine;
  private final TimeSource clock;
  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

  /** Counts the changes served: a read that saw the count change meanwhile is not kept. */
  private final AtomicLong changes = new AtomicLong();

  QueuePolicies(QueueEngine engine, TimeSource clock) {
    this.engine = engine;
    this.clock = clock;
  }

  /**
   * The enforced policy of engine queue {@code queue} in {@code address}'s account, if the queue
   * exists and has one.
   *
   * @throws SqsError {@code ServiceUnavailable} (or as the engine's error says) if the queue could
   *     not be read
   */
  Optional<QueuePolicy> policy(String queue, QueueAddress address) {
    long now = clock.millis();
    Entry kept = entries.get(queue);
    if (kept != null && now - kept.readAt() < REFRESH_MILLIS && now >= kept.readAt()) {
      return Optional.ofNullable(kept.parsed());
    }
    long seen = changes.get();
    String document;
    try {
      document = engine.queue(queue).config().metadata().get(QueuePermissions.POLICY);
    } catch (QueueException e) {
      if (e.code() == ErrorCode.QUEUE_NOT_FOUND) {
        entries.remove(queue);
        return Optional.empty(); // the action answers for it
      }
      throw SqsError.of(e); // never serve a request whose policy could not be read
    }
    QueuePolicy parsed = null;
    if (document != null) {
      parsed =
          kept != null && document.equals(kept.document())
              ? kept.parsed() // the same text: parsed once, not at every refresh
              : QueuePolicy.enforced(document, address.arn(queue), address.accountId());
    }
    synchronized (this) { // with changed(): no change served between this check and the put
      if (changes.get() == seen) {
        if (entries.size() >= MAX_QUEUES && !entries.containsKey(queue)) {
          entries.clear();
        }
        entries.put(queue, new Entry(document, parsed, now));
      }
    }
    return Optional.ofNullable(parsed);
  }

  /**
   * Forgets engine queue {@code queue}'s policy: this endpoint served a request that may have
   * changed it, created or deleted the queue. Called once the change is made, before it is
   * answered.
   */
  synchronized void changed(String queue) {
    changes.incrementAndGet();
    entries.remove(queue);
  }

  /** How many queues' policies are kept (for tests). */
  int size() {
    return entries.size();
  }
}
