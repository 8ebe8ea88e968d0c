package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.Message;
import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import io.switchboard.queue.ReceiveRequest;
import io.switchboard.testing.Await;
import io.switchboard.testing.FreePorts;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The database restarted under load: while it is away every call fails with UNAVAILABLE and says
 * so; once it is back calls succeed again on the same engine; nothing whose send was acknowledged
 * is lost. Its own PostgreSQL (fixed data directory and port), so the shared one is untouched.
 */
class DatabaseRestartTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void databaseRestartedUnderLoad_callsFailClearlyThenRecover_nothingAcknowledgedLost()
      throws Exception {
    Path data = Files.createDirectories(dir.resolve("pgdata"));
    int port = FreePorts.free();
    EmbeddedPostgres pg = start(data, port);
    String url = "jdbc:postgresql://localhost:" + port + "/postgres";
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    List<QueueException> failures = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean stop = new AtomicBoolean();
    try (PostgresQueueEngine engine =
        PostgresQueueEngine.builder()
            .url(url, "postgres", "postgres")
            .poolSize(4)
            .connectTimeout(Duration.ofMillis(500))
            .build()) {
      engine.createQueue("q", QueueConfig.defaults());
      Thread producer =
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int i = 0; !stop.get() && i < 1_000_000; i++) {
                      try {
                        acknowledged.add(engine.send("q", NewMessage.of("m" + i)).id());
                      } catch (QueueException e) {
                        failures.add(e);
                      }
                    }
                  });
      Await.until(() -> acknowledged.size() >= 200, "sends before the restart", WAIT);
      pg.close(); // stops the server, keeps its data directory
      Await.until(() -> !failures.isEmpty(), "a send failing while the database is away", WAIT);
      pg = start(data, port);
      int before = acknowledged.size();
      Await.until(() -> acknowledged.size() >= before + 200, "sends after the restart", WAIT);
      stop.set(true);
      producer.join(30_000);

      for (QueueException e : failures) {
        assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("PostgreSQL"), e.getMessage());
      }
      Set<String> drained = new HashSet<>();
      List<Message> got;
      while (!(got = engine.receive("q", ReceiveRequest.max(1000))).isEmpty()) {
        for (Message m : got) {
          drained.add(m.id());
          engine.ack("q", m.receipt().orElseThrow());
        }
      }
      Set<String> lost = new HashSet<>(acknowledged);
      lost.removeAll(drained);
      assertEquals(Set.of(), lost, "acknowledged sends missing after the restart");
    } finally {
      stop.set(true);
      pg.close();
    }
  }

  private static EmbeddedPostgres start(Path data, int port) throws Exception {
    return EmbeddedPostgres.builder()
        .setDataDirectory(data)
        .setCleanDataDirectory(false)
        .setPort(port)
        .start();
  }
}
