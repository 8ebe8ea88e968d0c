package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.ReceiveRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the hot window on, a restart does not hold a queue's whole backlog in the heap: recovery
 * counts the available messages it finds as cold and reads only the window's first page. A store
 * with a backlog about twice a JVM's max heap recovers in that JVM, and the first messages come
 * back in order. (Before, recovery made every message of a queue in the heap and let go of what was
 * beyond the window afterwards: that JVM ran out of heap.)
 */
class RestartBacklogHeapTest {

  private static final int MESSAGES = 40_000;
  private static final int BODY = 2_000;

  @TempDir Path dir;

  /** Recovers the store in {@code args[0]} with a window of 100 and says what it found. */
  public static final class Recover {
    public static void main(String[] args) {
      try (QueueEngine engine =
          QueueEngine.builder()
              .journal(
                  RocksJournal.open(Path.of(args[0]), Durability.none(), OrderIndex.MAINTAINED))
              .hotWindow(100)
              .build()) {
        System.out.println("available " + engine.stats("q").available());
        for (Message m : engine.receive("q", ReceiveRequest.max(3))) {
          System.out.println("body " + m.body().substring(0, 6));
        }
        System.out.println("done");
      }
    }
  }

  private static String body(int i) {
    return String.format("%06d", i) + "x".repeat(BODY - 6);
  }

  @Test
  void aBacklogTwiceTheHeap_recoversInIt() throws Exception {
    try (QueueEngine engine =
        QueueEngine.builder()
            .journal(RocksJournal.open(dir, Durability.none(), OrderIndex.MAINTAINED))
            .hotWindow(100)
            .build()) {
      engine.createQueue("q", QueueConfig.builder().build());
      for (int i = 0; i < MESSAGES; i += 100) {
        List<NewMessage> batch = new ArrayList<>();
        for (int j = i; j < i + 100; j++) {
          batch.add(NewMessage.of(body(j)));
        }
        engine.sendBatch("q", batch);
      }
    }
    // 40,000 messages of 2,000 characters: about 80 MB of bodies (160 MB as Java strings)
    try (ChildJvm child = ChildJvm.startWithHeap("48m", Recover.class, dir.toString())) {
      List<String> lines = child.awaitLine("done", 120).stream().map(ChildJvm.Line::text).toList();
      assertEquals(
          List.of("available " + MESSAGES, "body 000000", "body 000001", "body 000002"), lines);
    }
  }
}
