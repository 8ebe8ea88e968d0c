package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.BrowseRequest;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.Page;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueLimits;
import io.switchboard.queue.ReceiveRequest;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL, {@code max-answer-bytes} bounds an answer too: a browse page ends with a cursor
 * before it would pass it, a receive takes at most {@code maxAnswerBytes / maxMessageSize}.
 */
class PostgresAnswerBytesTest {

  private PostgresQueueEngine engine;

  @BeforeEach
  void open() {
    TestDatabase.fresh();
    engine =
        PostgresQueueEngine.builder()
            .url(TestDatabase.url(), "postgres", "postgres")
            .poolSize(2)
            .notifications(false)
            .limits(
                new QueueLimits(Long.MAX_VALUE, Long.MAX_VALUE, 1_000_000, 1000, 1000, 3L * 1024))
            .build();
    engine.createQueue("q", QueueConfig.builder().maxMessageSize(1024).build());
    for (int i = 0; i < 10; i++) {
      engine.send("q", NewMessage.of("x".repeat(1000)));
    }
  }

  @AfterEach
  void close() {
    engine.close();
  }

  @Test
  void browsePagesEndBeforeTheAnswerLimit_andCursorsReachEveryMessage() {
    Set<String> seen = new HashSet<>();
    Page page = engine.browse("q", BrowseRequest.first(100));
    assertEquals(3, page.items().size());
    page.items().forEach(m -> seen.add(m.id()));
    while (page.nextCursor().isPresent()) {
      page = engine.browse("q", BrowseRequest.first(100).after(page.nextCursor().get()));
      assertTrue(page.items().size() <= 3);
      page.items().forEach(m -> seen.add(m.id()));
    }
    assertEquals(10, seen.size());
  }

  @Test
  void receiveTakesAtMostWhatFitsAtTheQueuesMaxMessageSize() {
    assertEquals(3, engine.receive("q", ReceiveRequest.max(10)).size());
  }
}
