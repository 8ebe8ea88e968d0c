package io.switchboard.queue;

import java.util.Objects;
import java.util.Optional;

/**
 * A page of a queue in delivery order (priority, then FIFO or LIFO), without leasing anything.
 *
 * @param limit 1..1000 messages per page
 * @param cursor where the previous page ended ({@link Page#nextCursor()})
 * @param filter only messages it accepts
 * @param includeInvisible also list delayed and in-flight messages, in the same order
 */
public record BrowseRequest(
    int limit, Optional<String> cursor, Optional<MessageFilter> filter, boolean includeInvisible) {

  public static final int MAX_LIMIT = 1000;

  public BrowseRequest {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw QueueException.invalid("limit must be 1..1000, got " + limit);
    }
    Objects.requireNonNull(cursor, "cursor");
    Objects.requireNonNull(filter, "filter");
  }

  public static BrowseRequest first(int limit) {
    return new BrowseRequest(limit, Optional.empty(), Optional.empty(), false);
  }

  public BrowseRequest after(String cursor) {
    return new BrowseRequest(limit, Optional.of(cursor), filter, includeInvisible);
  }

  public BrowseRequest filter(MessageFilter filter) {
    return new BrowseRequest(limit, cursor, Optional.of(filter), includeInvisible);
  }

  public BrowseRequest includeInvisible(boolean includeInvisible) {
    return new BrowseRequest(limit, cursor, filter, includeInvisible);
  }
}
