package io.switchboard.storage.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.queue.NewMessage;
import io.switchboard.queue.QueueConfig;
import io.switchboard.queue.QueueEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docs/operations.md, "Running the JVM": the data directory and all it holds are private. */
class StorePermissionsTest {

  @TempDir Path dir;

  @BeforeEach
  void posix() throws Exception {
    assumeTrue(
        Files.getFileStore(dir).supportsFileAttributeView("posix"),
        "SKIPPED: the temporary directory's file system has no POSIX permissions");
  }

  /**
   * The server opens the router's store ({@code <data-dir>/routing}) before the queue store: the
   * data directory was then created by the router store as a mere parent, with mode 0755.
   */
  @Test
  void everyDirectoryTheStoresCreate_is0700_whicheverStoreOpensFirst() throws Exception {
    Path data = dir.resolve("srv").resolve("data");
    try (RocksRouterJournal routing =
        RocksRouterJournal.open(data.resolve("routing"), Durability.sync())) {
      routing.load();
    }
    try (RocksRouterJournal workspace =
        RocksRouterJournal.open(data.resolve("workspaces").resolve("w1"), Durability.sync())) {
      workspace.load();
    }
    try (QueueEngine engine =
        QueueEngine.builder().journal(RocksJournal.open(data, Durability.sync())).build()) {
      engine.createQueue("q", QueueConfig.defaults());
      engine.send("q", NewMessage.of("secret"));
    }
    List<String> loose = new ArrayList<>();
    try (var all = Files.walk(dir.resolve("srv"))) {
      for (Path p : (Iterable<Path>) all::iterator) {
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(p);
        if (Files.isDirectory(p)) {
          if (!PosixFilePermissions.toString(mode).equals("rwx------")) {
            loose.add(p + " " + PosixFilePermissions.toString(mode));
          }
        } else if (mode.contains(PosixFilePermission.GROUP_WRITE)
            || mode.contains(PosixFilePermission.OTHERS_WRITE)) {
          loose.add(p + " " + PosixFilePermissions.toString(mode));
        }
      }
    }
    assertEquals(List.of(), loose, "directories not 0700, or files writable by others");
  }

  @Test
  void anExistingLooseDirectory_isLeftAsItIs_withAWarningThatSaysHowToFixIt() throws Exception {
    Path data = dir.resolve("data");
    Files.createDirectory(
        data, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    Optional<String> warning = StoreFiles.createPrivateDirectory(data, "data directory");
    assertTrue(warning.isPresent());
    assertTrue(warning.get().contains("rwxr-xr-x"), warning.get());
    assertTrue(warning.get().contains("chmod 700 " + data), warning.get());
    assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(data)));
    RocksJournal.open(data, Durability.sync()).close();

    Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
    assertFalse(StoreFiles.createPrivateDirectory(data, "data directory").isPresent());
  }
}
