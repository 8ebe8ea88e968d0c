package io.switchboard.routing;

import java.util.List;
import java.util.Optional;

/**
 * One page of a routing list ({@link ListRequest}).
 *
 * @param items in the list's order
 * @param nextCursor present when more entries may follow: ask again with it for the next page
 */
public record ListPage<T>(List<T> items, Optional<String> nextCursor) {
  public ListPage {
    items = List.copyOf(items);
  }
}
