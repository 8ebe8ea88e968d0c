package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueException;
import io.switchboard.testing.FreePorts;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a server says when it cannot start on its database, and how the schema is migrated. */
class StartupErrorsTest {

  @Test
  void unreachableDatabase_refusesToStartWithUnavailable() throws Exception {
    int port = FreePorts.free(); // nothing listens there
    QueueException e =
        assertThrows(
            QueueException.class,
            () ->
                PostgresQueueEngine.builder()
                    .url("jdbc:postgresql://127.0.0.1:" + port + "/switchboard", "u", "p")
                    .connectTimeout(Duration.ofMillis(500))
                    .build());
    assertEquals(ErrorCode.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains("unavailable"), e.getMessage());
    assertTrue(e.getMessage().contains("08001"), e.getMessage());
  }

  @Test
  void wrongCredentials_refusesToStartNamingTheLogin() {
    TestDatabase.postgres();
    String url = TestDatabase.url().replaceAll("\\?.*", "");
    QueueException e =
        assertThrows(
            QueueException.class,
            () ->
                PostgresQueueEngine.builder()
                    .url(url, "no_such_user", "wrong")
                    .connectTimeout(Duration.ofSeconds(2))
                    .build());
    assertEquals(ErrorCode.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains("refused the login"), e.getMessage());
    assertTrue(e.getMessage().contains("no_such_user"), e.getMessage());
  }

  @Test
  void schemaFromANewerVersion_refusesToStartAndChangesNothing() throws Exception {
    String url = TestDatabase.freshDatabase("newer_schema");
    try (var engine =
        PostgresQueueEngine.builder()
            .url(url, "postgres", "postgres")
            .notifications(false)
            .build()) {
      engine.createQueue("kept", QueueConfig.defaults());
    }
    try (Connection c = TestDatabase.pool().getConnection();
        Connection other = java.sql.DriverManager.getConnection(url, "postgres", "postgres");
        Statement s = other.createStatement()) {
      s.execute("insert into sb_schema_version (version) values (" + (Schema.VERSION + 1) + ")");
    }
    QueueException e =
        assertThrows(
            QueueException.class,
            () -> PostgresQueueEngine.builder().url(url, "postgres", "postgres").build());
    assertEquals(ErrorCode.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains("newer than this server knows"), e.getMessage());
    try (Connection other = java.sql.DriverManager.getConnection(url, "postgres", "postgres");
        Statement s = other.createStatement();
        var rs = s.executeQuery("select count(*) from sb_queue where name = 'kept'")) {
      rs.next();
      assertEquals(1, rs.getInt(1));
    }
  }

  @Test
  void startingTwice_migratesOnceAndKeepsQueues() throws Exception {
    String url = TestDatabase.freshDatabase("migrate_twice");
    try (var a =
        PostgresQueueEngine.builder()
            .url(url, "postgres", "postgres")
            .notifications(false)
            .build()) {
      a.createQueue("q", QueueConfig.defaults());
    }
    try (var b =
        PostgresQueueEngine.builder()
            .url(url, "postgres", "postgres")
            .notifications(false)
            .build()) {
      assertEquals("q", b.queue("q").name());
    }
    try (Connection other = java.sql.DriverManager.getConnection(url, "postgres", "postgres");
        Statement s = other.createStatement();
        var rs = s.executeQuery("select count(*), max(version) from sb_schema_version")) {
      rs.next();
      assertEquals(Schema.versions().size(), rs.getInt(1));
      assertEquals(Schema.VERSION, rs.getInt(2));
    }
  }
}
