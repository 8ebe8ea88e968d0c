package io.switchboard.queue;

import java.util.List;
import java.util.Optional;

/**
 * One page of a browse.
 *
 * @param items the messages, in delivery order
 * @param nextCursor pass to {@link BrowseRequest#after} for the next page; absent on the last
 */
public record Page(List<Message> items, Optional<String> nextCursor) {
  public Page {
    items = List.copyOf(items);
  }
}
