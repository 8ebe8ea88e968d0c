package io.switchboard.client;

import io.switchboard.queue.QueueInfo;
import java.util.List;
import java.util.Optional;

/**
 * One page of the server's queues ({@link SwitchboardClient#queuePage}), by name.
 *
 * @param queues at most the page's limit; a page listed with a key may hold fewer
 * @param nextCursor present when more queues follow: ask again with it as the cursor
 */
public record QueuePage(List<QueueInfo> queues, Optional<String> nextCursor) {
  public QueuePage {
    queues = List.copyOf(queues);
  }
}
