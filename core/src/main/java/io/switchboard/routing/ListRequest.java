package io.switchboard.routing;

import java.util.Objects;
import java.util.Optional;

/**
 * Which page of a routing list to read ({@link Router#agents(String, ListRequest)}, {@link
 * Router#waiting(ListRequest)}, {@link Router#pendingReservations(String, ListRequest)}): at most
 * {@code limit} entries after {@code cursor}, the {@link ListPage#nextCursor()} of the page before
 * (none for the first page).
 *
 * <p>Each list has a fixed order by a key that never changes while an entry is listed (an agent's
 * id; a waiting contact's group, priority and arrival; an offer's number), and a cursor is the key
 * of the last entry given. So paging neither skips nor repeats an entry that is in the list from
 * the first page to the last, whatever changes in between; an entry added or removed meanwhile
 * appears or not depending on where it falls. A page's work under the router's lock is one pass
 * over the list, never a sort of it, and its answer holds at most {@link #MAX_LIMIT} entries.
 *
 * @param limit 1..{@link #MAX_LIMIT} entries
 * @param cursor where the page before ended; opaque, as the router gave it
 */
public record ListRequest(int limit, Optional<String> cursor) {

  /** The page size when the caller names none. */
  public static final int DEFAULT_LIMIT = 100;

  /** The largest page a caller may ask for. */
  public static final int MAX_LIMIT = 1000;

  public ListRequest {
    Objects.requireNonNull(cursor, "cursor");
    if (limit < 1 || limit > MAX_LIMIT) {
      throw RoutingException.invalid("limit must be between 1 and " + MAX_LIMIT + ", got " + limit);
    }
  }

  /** The first page, of {@code limit} entries. */
  public static ListRequest first(int limit) {
    return new ListRequest(limit, Optional.empty());
  }

  /** The first page of {@link #DEFAULT_LIMIT} entries. */
  public static ListRequest first() {
    return first(DEFAULT_LIMIT);
  }

  /** The page after the one that gave {@code cursor}. */
  public ListRequest after(String cursor) {
    return new ListRequest(limit, Optional.of(Objects.requireNonNull(cursor, "cursor")));
  }
}
