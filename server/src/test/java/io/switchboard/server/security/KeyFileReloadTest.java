package io.switchboard.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.switchboard.server.EngineFactory;
import io.switchboard.server.Http;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.auth.Audit;
import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.Settings;
import io.switchboard.time.ManualClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Regression (docs/security.md): {@code access-keys-file} changes were seen only after a restart.
 * The file is checked every {@code access-keys-reload-check} (here a manual clock's advance) or on
 * {@link SwitchboardServer#reloadKeyFile}: a removed key stops authenticating, an added one works,
 * a changed secret applies; an invalid file is logged as an error, without a secret, and the old
 * keys stay; the audit log names what a reload added, removed and changed.
 */
class KeyFileReloadTest {

  @TempDir Path dir;

  private final ManualClock clock = ManualClock.create();
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
  private final Logger audit = (Logger) LoggerFactory.getLogger(Audit.LOGGER);
  private Path file;
  private long modified = 1_700_000_000_000L;

  @BeforeEach
  void capture() {
    lines.start();
    root.addAppender(lines);
    audit.setLevel(Level.INFO);
  }

  @AfterEach
  void release() {
    root.detachAppender(lines);
    audit.setLevel(null);
  }

  private static String basic(String id, String secret) {
    return "Basic "
        + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
  }

  /** Writes the file, owner-only, with a modification time later than the last. */
  private void write(String text) throws IOException {
    Files.writeString(file, text);
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }
    modified += 1_000;
    Files.setLastModifiedTime(file, FileTime.fromMillis(modified));
  }

  private static int status(Http http, String id, String secret) {
    return http.send("GET", "/v1/queues", null, Map.of("Authorization", basic(id, secret)))
        .status();
  }

  private String logText() {
    return lines.list.stream()
        .map(
            e ->
                e.getLevel()
                    + " "
                    + e.getFormattedMessage()
                    + " "
                    + (e.getKeyValuePairs() == null
                        ? ""
                        : e.getKeyValuePairs().stream()
                            .map(kv -> kv.key + "=" + kv.value)
                            .collect(Collectors.joining(" "))))
        .collect(Collectors.joining("\n"));
  }

  private SwitchboardServer start() throws IOException {
    file = dir.resolve("keys.yaml");
    write(
        "keys:\n"
            + "  - id: AKOLD\n    secret: old-secret\n    grants: ['admin on *']\n"
            + "  - id: AKKEEP\n    secret: keep-secret\n    grants: ['admin on *']\n");
    ServerConfig config =
        ServerConfig.forTests()
            .with(Settings.ACCESS_KEYS_FILE, file)
            .withAccessKeys(io.switchboard.server.auth.AccessKeys.parse("AKFLAG:flag-secret"));
    return SwitchboardServer.start(config, EngineFactory.inMemory(), clock);
  }

  @Test
  void changedFile_isReadAtTheNextCheck_removedKeyRefused_addedAndChangedKeysServed()
      throws IOException {
    try (SwitchboardServer server = start();
        Http http = new Http(server.uri())) {
      assertEquals(200, status(http, "AKOLD", "old-secret"));
      write(
          "keys:\n"
              + "  - id: AKKEEP\n    secret: new-keep-secret\n    grants: ['admin on *']\n"
              + "  - id: AKNEW\n    secret: new-secret\n    grants: ['admin on *']\n");

      assertEquals(200, status(http, "AKOLD", "old-secret"), "nothing changes before a check");
      clock.advance(Duration.ofSeconds(10));

      assertEquals(401, status(http, "AKOLD", "old-secret"), "removed from the file");
      assertEquals(200, status(http, "AKNEW", "new-secret"), "added to the file");
      assertEquals(401, status(http, "AKKEEP", "keep-secret"), "its old secret");
      assertEquals(200, status(http, "AKKEEP", "new-keep-secret"), "its new secret");
      assertEquals(200, status(http, "AKFLAG", "flag-secret"), "access-keys are not the file's");
      String log = logText();
      assertTrue(
          log.contains("event=keys-reloaded")
              && log.contains("added=AKNEW")
              && log.contains("removed=AKOLD")
              && log.contains("changed=AKKEEP"),
          log);
      for (String secret : List.of("old-secret", "keep-secret", "new-secret")) {
        assertFalse(log.contains(secret), log);
      }
    }
  }

  @Test
  void invalidNewFile_keepsTheOldKeys_logsAnErrorWithoutASecret() throws IOException {
    try (SwitchboardServer server = start();
        Http http = new Http(server.uri())) {
      write("keys:\n  - id: AKOLD\n    secret: leaked-secret\n    grants: ['admin on *'\n");
      assertFalse(server.reloadKeyFile());
      clock.advance(Duration.ofSeconds(10));
      write("keys:\n  - id: AKFLAG\n    secret: other-secret\n    grants: ['admin on *']\n");
      assertFalse(server.reloadKeyFile(), "a key id of access-keys again");
      write("keys:\n  - id: AKX\n    secret: x-secret\n    grants: ['no-such-action on *']\n");
      clock.advance(Duration.ofSeconds(10));

      assertEquals(200, status(http, "AKOLD", "old-secret"));
      assertEquals(200, status(http, "AKKEEP", "keep-secret"));
      assertEquals(401, status(http, "AKX", "x-secret"));
      String log = logText();
      assertTrue(log.contains("ERROR access-keys-file not reloaded"), log);
      assertTrue(log.contains("AKFLAG is given twice"), log);
      assertFalse(log.contains("leaked-secret") || log.contains("other-secret"), log);
      assertFalse(log.contains("event=keys-reloaded"), log);

      // a valid file again is taken
      write("keys:\n  - id: AKKEEP\n    secret: keep-secret\n    grants: ['admin on *']\n");
      assertTrue(server.reloadKeyFile());
      assertEquals(401, status(http, "AKOLD", "old-secret"));
    }
  }

  @Test
  void deletedFile_keepsTheOldKeys() throws IOException {
    try (SwitchboardServer server = start();
        Http http = new Http(server.uri())) {
      Files.delete(file);
      clock.advance(Duration.ofSeconds(10));
      assertEquals(200, status(http, "AKOLD", "old-secret"));
      assertTrue(logText().contains("no such file"), logText());
    }
  }
}
