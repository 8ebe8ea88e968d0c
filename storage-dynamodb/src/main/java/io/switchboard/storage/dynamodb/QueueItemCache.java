package io.switchboard.storage.dynamodb;

import io.switchboard.queue.QueueException;
import io.switchboard.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * This server's copies of queue items ({@code queues}/{@code <name>}: configuration, generation,
 * priorities), so that an operation on a message does not read its queue's item every time
 * (docs/design.md, "Amazon DynamoDB as a store", "This server's copy of a queue's item"). A copy
 * answers for less than the bound after it was read, on the engine's clock; after that the item is
 * read again, strongly consistent. So a change made on another server is acted on here within the
 * bound, and one made here at once: whatever this server writes to a queue item forgets the copy.
 *
 * <p>A queue that is not there is never remembered, so a queue made on another server is seen at
 * once. Reads and forgets are ordered by a counter taken before each begins: a read that began
 * before a forget (or before another read) never replaces what that one left, so a slow read cannot
 * bring back a copy older than this server's own write. The copies are the items as read; the
 * engine decodes one per operation, so nothing it holds is shared between operations.
 */
final class QueueItemCache {

  /** SQS's own bound for a queue's attribute changes and deletion to be seen everywhere. */
  static final Duration MAX_BOUND = Duration.ofSeconds(60);

  /** An item as read ({@code null}: forgotten), when, and the order of the read or forget. */
  private record Copy(@Nullable Map<String, AttributeValue> item, long readAt, long order) {}

  private final Clock clock;
  private final long boundMillis;
  private final Function<String, @Nullable Map<String, AttributeValue>> read;
  private final AtomicLong order = new AtomicLong();
  private final Map<String, Copy> copies = new ConcurrentHashMap<>();

  /**
   * @param read the strongly consistent read of a queue's item by name, null when there is none
   */
  QueueItemCache(
      Clock clock, Duration bound, Function<String, @Nullable Map<String, AttributeValue>> read) {
    this.clock = clock;
    this.boundMillis = checkBound(bound).toMillis();
    this.read = read;
  }

  /** The bound, checked: 0 (read every time) to {@link #MAX_BOUND}. */
  static Duration checkBound(Duration bound) {
    if (bound.isNegative() || bound.compareTo(MAX_BOUND) > 0) {
      throw QueueException.invalid(
          "queueCacheTime must be 0.."
              + MAX_BOUND.toSeconds()
              + " seconds, got "
              + bound.toMillis()
              + " ms");
    }
    return bound;
  }

  /** The queue's item: this server's copy while it is younger than the bound, else read now. */
  @Nullable Map<String, AttributeValue> get(String name) {
    Copy c = copies.get(name);
    if (c != null && c.item() != null && clock.millis() - c.readAt() < boundMillis) {
      return c.item();
    }
    return read(name);
  }

  /** The queue's item read now, strongly consistent, and kept as this server's copy. */
  @Nullable Map<String, AttributeValue> read(String name) {
    long mine = order.incrementAndGet();
    long at = clock.millis();
    Map<String, AttributeValue> item = read.apply(name);
    if (item == null) {
      copies.computeIfPresent(name, (k, old) -> old.order() < mine ? null : old);
    } else {
      keep(name, new Copy(item, at, mine));
    }
    return item;
  }

  /** Drops the copy, after this server wrote the item: the next operation reads it. */
  void forget(String name) {
    keep(name, new Copy(null, clock.millis(), order.incrementAndGet()));
  }

  /**
   * Drops copies and forgets older than the bound. Safe at any time: what a read still under way
   * would keep was read before it began, so it is older than the bound too and never answers.
   */
  void prune() {
    long now = clock.millis();
    copies.values().removeIf(c -> now - c.readAt() >= boundMillis);
  }

  private void keep(String name, Copy copy) {
    copies.merge(name, copy, (old, mine) -> mine.order() > old.order() ? mine : old);
  }
}
